#!/bin/bash
# spawnbench_side_by_side_test.sh: the side-by-side script's reader recomputes
# a kept run's table from its rounds (a run kept by the first, awk-based
# version: the same table), and a changed figure in a round changes it.
set -euo pipefail
reader="$1"
kept="$2"
python3 "$reader" --self_test "$kept"
changed="$TEST_TMPDIR/changed.txt"
# Round 1's first spawnbench fork average, tripled.
awk '/^== round 1: spawnbench$/ { sb = 1 }
     sb && !done && /^ *fork small *: avg=/ { sub(/avg=/, "avg=3"); done = 1 }
     { print }' "$kept" > "$changed"
if cmp -s "$kept" "$changed"; then
  echo "the test's own edit changed nothing" >&2
  exit 1
fi
if python3 "$reader" --self_test "$changed" 2> "$TEST_TMPDIR/err"; then
  echo "a changed figure went unnoticed" >&2
  exit 1
fi
grep -q "differs" "$TEST_TMPDIR/err"
# Wrong input: a clear usage, exit 2.
set +e
python3 "$reader" nonsense 2> "$TEST_TMPDIR/usage"
rc=$?
set -e
[[ "$rc" == 2 ]] && grep -q "usage" "$TEST_TMPDIR/usage"
echo "ok"
