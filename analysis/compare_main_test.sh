#!/usr/bin/env bash
# compare_main_test: //analysis:compare reads each file once, so a FIFO or
# /dev/stdin keeps the key-ratio targets, and a directory is named as one.
set -euo pipefail
compare="$1"
f="$2"  # a results file that declares a ratio baseline

fail() { echo "FAIL: $*" >&2; exit 1; }

out=$("$compare" --self_check <(cat "$f") <(cat "$f")) || fail "self-check over FIFOs exited $?"
grep -q "key ratios (over " <<<"$out" || fail "the key-ratio targets were dropped on FIFO input: $out"
grep -q "none declared" <<<"$out" && fail "FIFO input lost the ratio baseline"

out=$("$compare" --self_check /dev/stdin "$f" < "$f") || fail "self-check from /dev/stdin exited $?"
grep -q "key ratios (over " <<<"$out" || fail "the key-ratio targets were dropped on /dev/stdin"

dir=$(mktemp -d "${TEST_TMPDIR:-/tmp}/compare.XXXXXX")
if err=$("$compare" "$dir" "$f" 2>&1); then fail "a directory was compared"; fi
grep -q "is a directory" <<<"$err" || fail "a directory was not named as one: $err"
# Two different benches are not "not reproducible": they are not comparable.
sed 's/"spawnlab.experiment": "command"/"spawnlab.experiment": "other"/' "$f" > "$dir/other.json"
set +e
err=$("$compare" --self_check "$f" "$dir/other.json" 2>&1)
rc=$?
set -e
((rc == 2)) || fail "two benches compared with exit $rc: $err"
grep -q "two runs of one bench" <<<"$err" || fail "no clear error for two benches: $err"
echo "compare_main_test: 4 passed, 0 failed"
