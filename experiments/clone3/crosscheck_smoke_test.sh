#!/bin/sh
# crosscheck_smoke_test.sh: crosscheck --quick writes every row it promises
# (its --list_rows, which the report spec is checked against), and no other.
#   crosscheck_smoke_test.sh CROSSCHECK MINIMAL_CHILD C_CHILD
set -eu
out="$TEST_TMPDIR/crosscheck.json"
timeout 120 "$1" --quick --minimal_child="$2" --c_child="$3" --out="$out" --lock=none
"$1" --list_rows | sort > "$TEST_TMPDIR/promised"
# The rows lmbench and the ledger need are among those promised.
for row in crosscheck/way:lat_proc/op:fork-exit/parent:minimal \
    crosscheck/way:lat_proc/op:fork-exec/child:dynamic-c/parent:minimal \
    crosscheck/way:lat_proc/op:fork-exit/parent:400m-touched \
    crosscheck/way:lat_proc/op:vfork-exit/parent:400m-touched \
    crosscheck/way:spawnbench/op:vfork-exec/parent:1g-touched; do
  grep -qx "$row" "$TEST_TMPDIR/promised" || { echo "not promised: $row" >&2; exit 1; }
done
python3 - "$out" "$TEST_TMPDIR/promised" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]), parse_constant=lambda c: sys.exit("bare " + c))
written = {b["run_name"] for b in doc["benchmarks"]}
promised = set(open(sys.argv[2]).read().split())
if written != promised:
    sys.exit("written but not promised: %s; promised but not written: %s"
             % (sorted(written - promised), sorted(promised - written)))
# Every repetition records the parent's size at its turn, and the minimal
# parent's turns after a ballast turn are no larger than its first: a buffer
# the ballast's turn left in the heap would be forked with every later spawn.
reps = [b for b in doc["benchmarks"] if b["run_type"] == "iteration"]
for b in reps:
    for counter in ("parent_rss_kib", "parent_pte_kib", "parent_threads", "parent_mappings"):
        if counter not in b:
            sys.exit("%s #%d has no %s" % (b["name"], b["repetition_index"], counter))
row = "crosscheck/way:lat_proc/op:fork-exit/parent:minimal"
rss = [b["parent_rss_kib"] for b in sorted((b for b in reps if b["name"] == row),
                                           key=lambda b: b["repetition_index"])]
# Under AddressSanitizer the parent is not minimal anyway: the shadow of each
# ballast it unmaps stays resident (hundreds of MiB), so the growth is not
# this process's own.
if doc["context"].get("sanitizer", "none") != "none":
    print("minimal parent's growth not checked: built with the %s sanitizer"
          % doc["context"]["sanitizer"])
elif len(rss) < 2 or rss[-1] - rss[0] > 1024:
    sys.exit("the minimal parent grew from %s to %s KiB resident" % (rss[0], rss[-1]))
if any(b["parent_threads"] != 1 for b in reps):
    sys.exit("a parent with more than one thread")
# Its run is summed up as a bench's is: the key ratios' baselines for
# compare --self_check, and the drift canary (unknown under 4 rounds), which
# was measured in every round.
context = doc["context"]
if context.get("spawnlab.ratio_baseline") != "op:vfork-exec,parent:minimal":
    sys.exit("ratio baselines: %r" % context.get("spawnlab.ratio_baseline"))
canary = context.get("spawnlab.canary.row")
if canary not in written:
    sys.exit("the canary %r is not a row it wrote" % canary)
for key in ("spawnlab.canary.drift_pct", "spawnlab.canary.spread_pct"):
    if not context.get(key, "").startswith("unknown: fewer than 4"):
        sys.exit("a 2-round run's %s: %r" % (key, context.get(key)))
if len(context.get("spawnlab.canary.series", "").split()) != 2:
    sys.exit("canary series: %r" % context.get("spawnlab.canary.series"))
# spawnbench's own minimum, the fastest spawn of each round, on its rows.
for b in reps:
    if "way:spawnbench" in b["name"] and not 0 < b.get("fastest_us", 0) <= b["real_time"]:
        sys.exit("%s #%d: fastest_us %r" % (b["name"], b["repetition_index"], b.get("fastest_us")))
PY
grep -q '"repetition_index"' "$out" || { echo "no repetitions written" >&2; exit 1; }
grep -q '"run.end"' "$out" || { echo "no run record" >&2; exit 1; }
# A run made of two processes of one round each: the same rows, each
# repetition naming its process, spawnbench's minimum still over every spawn,
# and nothing left beside the results.
out2="$TEST_TMPDIR/processes/crosscheck.json"
timeout 120 "$1" --quick --processes=2 --rounds=1 --minimal_child="$2" --c_child="$3" \
  --out="$out2" --lock=none
python3 - "$out2" "$TEST_TMPDIR/promised" <<'PY'
import json, os, sys
doc = json.load(open(sys.argv[1]), parse_constant=lambda c: sys.exit("bare " + c))
written = {b["run_name"] for b in doc["benchmarks"]}
if written != set(open(sys.argv[2]).read().split()):
    sys.exit("a run of two processes wrote other rows")
if doc["context"].get("spawnlab.processes") != "2" or doc["context"].get("spawnlab.rounds") != "2":
    sys.exit("processes/rounds: %r/%r" % (doc["context"].get("spawnlab.processes"),
                                          doc["context"].get("spawnlab.rounds")))
reps = [b for b in doc["benchmarks"] if b["run_type"] == "iteration"]
for name in written:
    got = [b["spawnlab_process"] for b in sorted((b for b in reps if b["run_name"] == name),
                                                 key=lambda b: b["repetition_index"])]
    if got != [1, 2]:
        sys.exit("%s: processes %r" % (name, got))
for a in doc["benchmarks"]:
    if a["run_type"] == "aggregate" and a["aggregate_name"] == "min" and "way:spawnbench" in a["name"]:
        fastest = min(b["fastest_us"] for b in reps if b["run_name"] == a["run_name"])
        if a["real_time"] != fastest:
            sys.exit("%s: min %r, fastest spawn %r" % (a["run_name"], a["real_time"], fastest))
left = os.listdir(os.path.dirname(sys.argv[1]))
if left != ["crosscheck.json"]:
    sys.exit("left beside the results: %r" % left)
PY
if "$1" --processes=0 2>/dev/null; then echo "--processes=0 was accepted" >&2; exit 1; fi
for bad in --max_seconds=x --max_seconds=-1; do
  if "$1" "$bad" 2>/dev/null; then echo "$bad was accepted" >&2; exit 1; fi
done
if "$1" --bogus 2>/dev/null; then echo "a bad flag was accepted" >&2; exit 1; fi
if "$1" --c_child=/nonexistent --out="$TEST_TMPDIR/x.json" 2>/dev/null; then
  echo "a missing child was accepted" >&2; exit 1
fi
echo "crosscheck smoke test: ok"
