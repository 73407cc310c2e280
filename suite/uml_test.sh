#!/bin/sh
# uml_test.sh: on Linux 6.1 under User-Mode Linux, older than the kernel the
# code was written on, every bench's --quick completes: rows the kernel cannot
# run are skipped with a reason, none fails. Skipped (passing, with the reason)
# where UML is not installed, where it cannot run programs on this host's CPU
# (uml.sh exits 4), or under a sanitizer, whose shadow memory does not fit
# UML's 2 GiB.
#   uml_test.sh UML_SH SUITE REPORT
set -eu
uml_sh="$1" suite="$2" report="$3"
if ! command -v linux.uml >/dev/null 2>&1; then
  echo "uml test: SKIPPED: linux.uml is not installed (Debian's user-mode-linux; ./bazelw installs it)"
  exit 0
fi
if [ -n "${ASAN_OPTIONS:-}${UBSAN_OPTIONS:-}" ]; then
  echo "uml test: SKIPPED: a sanitizer build (--config=asan/ubsan) does not run under UML"
  exit 0
fi
ws="$TEST_TMPDIR/ws"
mkdir -p "$ws"
out="$TEST_TMPDIR/uml.txt"
status=0
BUILD_WORKSPACE_DIRECTORY="$ws" "$uml_sh" "$suite" "$report" --timeout=900 --no-report \
  > "$out" 2>&1 || status=$?
fail() { echo "uml test: $1" >&2; cat "$out" >&2; exit 1; }
if [ "$status" -eq 4 ]; then  # probed by trying: UML cannot run on this CPU
  echo "uml test: SKIPPED: $(grep '^uml: this UML cannot run' "$out" | head -1 | cut -c6-)"
  exit 0
fi
[ "$status" -eq 0 ] || fail "the suite under UML exited $status"
grep -q "^uml: Linux 6\.1\." "$out" || fail "UML did not report a 6.1 kernel"
! grep -q "^failed:" "$out" || fail "a bench failed under UML"
for f in "$ws"/results/6.1.*/*/*.json; do
  grep -q '"virtualization": "uml"' "$f" || fail "$f does not say it ran under UML"
done
n=$(ls "$ws"/results/6.1.*/*/*.json | wc -l)
expected=$(wc -l < "$(dirname "$suite")/experiments.txt")
[ "$n" -eq "$expected" ] || fail "$n results files, expected $expected (one per suite entry)"
# The kernel's age shows as skips with the release that added the feature.
grep -q 'IORING_OP_WAITID (Linux 6.7)' "$ws"/results/6.1.*/*/io_uring_spawn.json ||
  fail "io_uring WAITID did not skip with its release"
echo "uml test: ok ($n benches under $(grep -o '^uml: Linux [^ ]*' "$out" | head -1 | cut -c6-))"
