#!/bin/sh
# crosscheck_smoke_test.sh: crosscheck --quick writes every row it promises.
#   crosscheck_smoke_test.sh CROSSCHECK MINIMAL_CHILD
set -eu
out="$TEST_TMPDIR/crosscheck.json"
timeout 120 "$1" --quick --minimal_child="$2" --out="$out" --lock=none
for way_op in lat_proc/op:fork-exit lat_proc/op:vfork-exit lat_proc/op:fork-exec lat_proc/op:vfork-exec \
    lat_proc/op:clone-exec lat_proc/op:posix_spawn-exec spawnbench/op:fork-exec \
    spawnbench/op:vfork-exec spawnbench/op:clone-exec spawnbench/op:posix_spawn-exec; do
  for parent in minimal 1g-touched; do
    row="crosscheck/way:$way_op/parent:$parent"
    grep -q "\"run_name\": \"$row\"" "$out" || { echo "missing row $row" >&2; exit 1; }
  done
done
# Strict JSON (no bare NaN), repetitions written, and the run record.
python3 -c 'import json,sys; json.load(open(sys.argv[1]), parse_constant=lambda c: sys.exit("bare " + c))' "$out"
grep -q '"repetition_index"' "$out" || { echo "no repetitions written" >&2; exit 1; }
grep -q '"run.end"' "$out" || { echo "no run record" >&2; exit 1; }
if "$1" --bogus 2>/dev/null; then echo "a bad flag was accepted" >&2; exit 1; fi
echo "crosscheck smoke test: ok"
