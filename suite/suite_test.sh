#!/bin/sh
# suite_test.sh: the suite plans every bench, refuses an unknown one, and a
# --quick run of one bench writes its quick file into the workspace it is
# given, beside (never over) a full run, then the reports; --self_check runs
# it twice elsewhere and prints the reproducibility table; an experiment folder
# the build has not listed is named; --against refuses what it cannot compare;
# --processes fixes every bench's plan; --minutes shares a budget.
#   suite_test.sh SUITE
set -eu
suite="$1"
ws="$TEST_TMPDIR/ws"
mkdir -p "$ws"
export BUILD_WORKSPACE_DIRECTORY="$ws" SPAWNLAB_LOCK_FILE="$TEST_TMPDIR/lock"

plan=$("$suite" --dry_run)
for e in clone3 crosscheck syscalls command linking strip memfd inline io_uring_spawn accept; do
  echo "$plan" | grep -q "^  $e " || { echo "the plan lacks $e: $plan" >&2; exit 1; }
done

if "$suite" --only=nosuch >/dev/null 2>&1; then echo "an unknown experiment was accepted" >&2; exit 1; fi
if env -u BUILD_WORKSPACE_DIRECTORY "$suite" --dry_run >/dev/null 2>&1; then
  echo "ran without a workspace" >&2; exit 1
fi

# --against compares full runs: with --quick, or in a bad form, it is a usage error.
for bad in "--quick --against=6.1" "--against=6.1:6.2" "--against=/h" "--report=false --against=6.1"; do
  # shellcheck disable=SC2086
  if "$suite" --dry_run $bad > "$TEST_TMPDIR/against.txt" 2>&1; then echo "accepted: $bad" >&2; exit 1; fi
  grep -q "against=KERNEL\[/HOST\]" "$TEST_TMPDIR/against.txt" || { cat "$TEST_TMPDIR/against.txt"; exit 1; }
done
"$suite" --dry_run --against=6.18.44-fc-v782 >/dev/null || { echo "--against refused" >&2; exit 1; }
# --minutes: a budget that binds gives each bench its share as its time cap.
"$suite" --dry_run --minutes=2 > "$TEST_TMPDIR/budget.txt" 2>&1 || { cat "$TEST_TMPDIR/budget.txt"; exit 1; }
grep -q "^suite: .* about 2m00s (--minutes; expected from their last runs here: .*): each bench's time cap is its share" "$TEST_TMPDIR/budget.txt" || { cat "$TEST_TMPDIR/budget.txt"; exit 1; }
grep -Eq "^  clone3 +~[0-9]+m[0-9]+s expected, at most [0-9]+m[0-9]+s now" "$TEST_TMPDIR/budget.txt" || { cat "$TEST_TMPDIR/budget.txt"; exit 1; }
if "$suite" --dry_run --minutes=-1 >/dev/null 2>&1; then echo "--minutes=-1 was accepted" >&2; exit 1; fi
"$suite" --dry_run --minutes=1000 > "$TEST_TMPDIR/loose.txt" 2>&1 || { cat "$TEST_TMPDIR/loose.txt"; exit 1; }
grep -q "^suite: .* estimated .*within --minutes; each bench's share of it is its time cap" "$TEST_TMPDIR/loose.txt" || { cat "$TEST_TMPDIR/loose.txt"; exit 1; }
# A budget that does not bind still caps each bench at its share: a last run
# that was capped does not say how long an uncapped one takes.
grep -Eq "^  clone3 +~[0-9]+m[0-9]+s expected, at most [0-9]+m[0-9]+s now" "$TEST_TMPDIR/loose.txt" || { cat "$TEST_TMPDIR/loose.txt"; exit 1; }
"$suite" --dry_run --minutes=0 | grep -q "now" && { echo "no budget, yet a share was shown" >&2; exit 1; }
# --processes: a fixed plan for every bench, 1 to 100, and not for a smoke run.
for bad in "--processes=-1" "--processes=101" "--quick --processes=2"; do
  # shellcheck disable=SC2086
  if "$suite" --dry_run $bad > "$TEST_TMPDIR/processes.txt" 2>&1; then echo "accepted: $bad" >&2; exit 1; fi
  grep -q "expected 1 to 100 processes per bench" "$TEST_TMPDIR/processes.txt" || { cat "$TEST_TMPDIR/processes.txt"; exit 1; }
done
# --rounds: with --processes only.
for bad in "--rounds=4" "--processes=2 --rounds=0x"; do
  # shellcheck disable=SC2086
  if "$suite" --dry_run $bad > "$TEST_TMPDIR/rounds.txt" 2>&1; then echo "accepted: $bad" >&2; exit 1; fi
done
grep -q "rounds" "$TEST_TMPDIR/rounds.txt" || { cat "$TEST_TMPDIR/rounds.txt"; exit 1; }

# A folder added after Bazel listed experiments/ is named, with the command that fixes it.
mkdir -p "$ws/experiments/newone" && touch "$ws/experiments/newone/BUILD.bazel"
if "$suite" --dry_run > "$TEST_TMPDIR/new.txt" 2>&1; then echo "an unlisted experiment folder went unnoticed" >&2; exit 1; fi
grep -q "experiments/newone is new to this Bazel server" "$TEST_TMPDIR/new.txt" || { cat "$TEST_TMPDIR/new.txt"; exit 1; }
grep -q "bazel sync --configure" "$TEST_TMPDIR/new.txt" || { cat "$TEST_TMPDIR/new.txt"; exit 1; }
rm -r "$ws/experiments"

"$suite" --quick --only=syscalls > "$TEST_TMPDIR/out.txt" 2>&1 || { cat "$TEST_TMPDIR/out.txt"; exit 1; }
quick=$(find "$ws/results" -name syscalls.quick.json)
[ -n "$quick" ] || { echo "no syscalls.quick.json under $ws/results" >&2; exit 1; }
[ -z "$(find "$ws/results" -name syscalls.json)" ] || { echo "a quick run wrote a full file" >&2; exit 1; }
grep -q '"run.lock": "held for it by its parent, pid' "$quick" || { echo "the bench did not run under the suite's lock" >&2; exit 1; }
[ -f "$ws/reports/README.md" ] || { echo "no reports" >&2; exit 1; }
grep -q "^suite: .* for 1 benches (--quick)" "$TEST_TMPDIR/out.txt" || { cat "$TEST_TMPDIR/out.txt"; exit 1; }
# --wait_quiet: the suite looks at the machine before the bench and says what it saw
# (quiet or not: that is the machine's; a 1-second budget, so it never waits long).
"$suite" --quick --only=syscalls --wait_quiet=1 --report=false > "$TEST_TMPDIR/quiet.txt" 2>&1 || { cat "$TEST_TMPDIR/quiet.txt"; exit 1; }
grep -Eq "^\[suite\] syscalls: the machine (is quiet|is not quiet|is still not quiet; going on) \([0-9]+% of [0-9]+ slices slow" "$TEST_TMPDIR/quiet.txt" || { cat "$TEST_TMPDIR/quiet.txt"; exit 1; }
# --self_check: two runs into a temporary folder, then the table; results/ untouched.
before=$(find "$ws/results" -type f | sort)
"$suite" --self_check --quick --only=syscalls > "$TEST_TMPDIR/self.txt" 2>&1 || true
grep -q "syscalls: how far two runs agree" "$TEST_TMPDIR/self.txt" || { cat "$TEST_TMPDIR/self.txt"; exit 1; }
grep -q "| rows the U test calls different at a 5% false discovery rate (raw times) |" "$TEST_TMPDIR/self.txt" || { cat "$TEST_TMPDIR/self.txt"; exit 1; }
grep -q "^self-check runs: /tmp/spawnlab-self-check-" "$TEST_TMPDIR/self.txt" || { cat "$TEST_TMPDIR/self.txt"; exit 1; }
[ "$(find "$ws/results" -type f | sort)" = "$before" ] || { echo "--self_check wrote into results/" >&2; exit 1; }
rm -rf "$(sed -n 's/^self-check runs: \(.*\)\/$/\1/p' "$TEST_TMPDIR/self.txt")"
# --processes=1 reaches the bench: a full run of one process (memfd's is short).
"$suite" --processes=1 --rounds=3 --only=memfd --report=false > "$TEST_TMPDIR/one.txt" 2>&1 || { cat "$TEST_TMPDIR/one.txt"; exit 1; }
full=$(find "$ws/results" -name memfd.json)
[ -n "$full" ] || { echo "no memfd.json under $ws/results" >&2; cat "$TEST_TMPDIR/one.txt"; exit 1; }
grep -q '"spawnlab.stopping.rule": "fixed: one process"' "$full" || { echo "--processes=1 did not reach the bench" >&2; exit 1; }
grep -q '"spawnlab.rounds": "3"' "$full" || { echo "--rounds=3 did not reach the bench" >&2; exit 1; }
echo "suite test: ok"
