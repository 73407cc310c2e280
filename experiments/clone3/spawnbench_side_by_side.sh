#!/bin/bash
# spawnbench_side_by_side.sh: this bench's fork, vfork, clone and posix_spawn rows from the
# minimal, placed (1g-touched) and unplaced (1g-touched-unplaced) 1 GiB
# parents, then spawnbench's four binaries, then the same four built here with
# one change (each child reaped, and its page faults counted outside the
# timed loop), ROUNDS times, one after another.
#
#   git clone https://github.com/joshtriplett/spawnbench /tmp/spawnbench
#   make -C /tmp/spawnbench fork vfork clone_vm posix_spawn t
#   bazel build //experiments/clone3:bench
#   experiments/clone3/spawnbench_side_by_side.sh /tmp/spawnbench [ROUNDS [PATH_MODE [OUT]]]
#
# PATH_MODE: "published" (the default) runs spawnbench with the PATH its
# `make bench` sets, six directories before ".": every spawn's child makes six
# failed execs first. "dot" runs it with PATH=., so its child execs at once,
# as this bench's does.
#
# It ends with the five ratios of issue 45, each the median over the rounds
# with its range, in three pairings of statistics: typical with typical
# (spawnlab's row medians, spawnbench's averages), best with best (the
# fastest single spawn in each) and the issue's (spawnlab's medians against
# spawnbench's minima); and whether they agree within 10%. The fork-size
# ratio is shown from the placed and the unplaced parent. The reaped
# spawnbench is compared in the like pairings.
#
# OUT: where the run is kept: its conditions, the closing table and every
# round's lines from both tools. Default:
# results/<kernel release>/<host id>/spawnbench_side_by_side.txt (the host id
# this bench's results are filed under), replaced whole at the end (written
# beside it, then renamed: never through a link). The analysis reads only
# .json files; the clone3 README links this one.
set -euo pipefail
sb="${1:?usage: $0 SPAWNBENCH_DIR [ROUNDS [published|dot [OUT]]]}"
rounds="${2:-5}"
case "${3:-published}" in
  published) sb_path=/usr/local/bin:/usr/local/sbin:/usr/bin:/usr/sbin:/bin:/sbin:. ;;
  dot) sb_path=. ;;
  *) echo "PATH_MODE must be published or dot, not '$3'" >&2; exit 2 ;;
esac
case "$rounds" in
  '' | *[!0-9]* | 0) echo "ROUNDS must be a positive whole number, not '$rounds'" >&2; exit 2 ;;
esac
here="$(cd "$(dirname "$0")/../.." && pwd)"
bench="$here/bazel-bin/experiments/clone3/bench"
for f in "$bench" "$sb/fork" "$sb/vfork" "$sb/clone_vm" "$sb/posix_spawn" "$sb/t"; do
  [[ -x "$f" ]] || { echo "missing: $f (see the top of this script)" >&2; exit 2; }
done
[[ -f "$sb/bench.c" ]] || { echo "missing: $sb/bench.c, spawnbench's source (the reaped build needs it)" >&2; exit 2; }
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
# spawnbench changed in one thing, built beside it: each child is reaped after
# its timestamp is read (waitpid), as this bench's and lat_proc's loops do.
# As published, its 2,000 children of a size stay zombies and each one's exit
# runs beside the next spawns. Reaped, their page faults can be counted too:
# after each size, outside the timed loop, the faults per spawn of its
# children (getrusage RUSAGE_CHILDREN, as this bench's child_faults) and of
# itself, on a line of their own.
reaped="$out/spawnbench-reaped"
mkdir -p "$reaped"
sed -e 's|^\( *\)uint64_t t = timespec_sub_small(&end, &start);|\1waitpid(-1, NULL, 0);\n&|' \
  -e 's|^#include <sys/wait.h>|&\n#include <sys/resource.h>|' \
  -e 's|^\( *\)uint64_t total_time = 0;|&\n\1struct rusage k0, s0, k1, s1;\n\1getrusage(RUSAGE_CHILDREN, \&k0);\n\1getrusage(RUSAGE_SELF, \&s0);|' \
  -e 's|^\( *\)free(extra_mem);|\1getrusage(RUSAGE_CHILDREN, \&k1);\n\1getrusage(RUSAGE_SELF, \&s1);\n\1printf("%14s %-10s: child_faults=%.2f parent_faults=%.2f (per spawn)\\n", BENCH_NAME, size.desc, (double)(k1.ru_minflt - k0.ru_minflt) / ITERATIONS, (double)(s1.ru_minflt - s0.ru_minflt) / ITERATIONS);\n&|' \
  "$sb/bench.c" > "$reaped/bench.c"
[[ "$(grep -c -e 'waitpid(-1, NULL, 0);' -e 'child_faults=' -e 'getrusage(RUSAGE_CHILDREN, &k0)' -e 'sys/resource.h' "$reaped/bench.c")" == 4 ]] ||
  { echo "$sb/bench.c: not the lines this script changes (another spawnbench?)" >&2; exit 2; }
for m in fork vfork clone_vm posix_spawn; do
  gcc -static -DUSE_$m -DBENCH_NAME="\"$m\"" -Wall -Werror -O0 -g "$reaped/bench.c" -o "$reaped/$m"
done
cp "$sb/t" "$reaped/t"
for r in $(seq "$rounds"); do
  echo "== round $r: spawnlab"
  "$bench" --processes=3 --rows --out="$out/round-$r.json" \
    --benchmark_filter='spawn/method:(fork|vfork|clone|posix_spawn)/child:minimal/parent:(minimal|1g-touched|1g-touched-unplaced)/until:start' |
    grep -E '^spawn|^run:' | tee "$out/spawnlab-$r.txt"
  # Each row's fastest single spawn over the run (its fastest_us counter):
  # spawnlab's minimum, the statistic spawnbench reports.
  python3 - "$out/round-$r.json" >> "$out/spawnlab-$r.txt" <<'PY'
import json, re, sys
fastest, faults = {}, {}
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    if b.get("run_type") == "iteration" and "fastest_us" in b:
        # Google Benchmark's own segments (/iterations:N, /min_time:S, which
        # the 1 GiB parents' rows carry, /manual_time) off.
        name = re.sub(r"/(iterations:\d+|min_time:[0-9.]+|manual_time|real_time)", "", b["run_name"])
        fastest[name] = min(fastest.get(name, float("inf")), b["fastest_us"])
        if "child_faults" in b:
            faults.setdefault(name, []).append(b["child_faults"])
for name, us in fastest.items():
    print("fastest", name, us)
# Its children's page faults per spawn (child_faults), as the reaped
# spawnbench counts them: the median over the row's repetitions.
for name, f in faults.items():
    print("child_faults", name, "%.2f" % sorted(f)[len(f) // 2])
PY
  echo "== round $r: spawnbench"
  # Its last size, 30 GiB untouched, is refused by malloc where the kernel's
  # overcommit heuristic sees more than RAM and swap (no swap here); the sizes
  # compared come before it.
  run_spawnbench() {
    (cd "$1" && for m in fork vfork clone_vm posix_spawn; do
      PATH="$sb_path" "./$m" ||
        echo "($m stopped with status $? after the sizes it printed)"
    done) 2>&1
  }
  run_spawnbench "$sb" | tee "$out/spawnbench-$r.txt"
  echo "== round $r: spawnbench, reaped"
  run_spawnbench "$reaped" | tee "$out/spawnbench-reaped-$r.txt"
done
# The answer: the issue's five ratios, each round and over the rounds, in
# three pairings of statistics. "@median~avg": spawnlab's ratio of row medians
# (its --rows table: NAME MEDIAN UNIT ...) against spawnbench's ratio of its
# averages, the typical spawn in each; "@min~min": spawnlab's ratio of its
# fastest single spawns (fastest_us) against spawnbench's of its minima, the
# best case in each; "@median~min": the issue's own pairing, a median against a
# minimum. Agreement: spawnlab / spawnbench, within 10% to agree.
# Then spawnbench reaped, in the two like pairings: "(reaped)".
for r in $(seq "$rounds"); do for tool in published reaped; do for pairing in median~avg min~min median~min; do
  [[ "$tool" == reaped && "$pairing" == median~min ]] && continue
  sb_lines="$out/spawnbench-$r.txt"
  [[ "$tool" == reaped ]] && sb_lines="$out/spawnbench-reaped-$r.txt"
  awk -v r="$r" -v pairing="$pairing" -v tool="$tool" '
    function us(v, unit) { return unit == "ns" ? v / 1000 : unit == "ms" ? v * 1000 : unit == "s" ? v * 1e6 : v }
    FNR == NR && $1 == "fastest" { fast[$2] = $3; next }
    FNR == NR && $1 ~ /^spawn\// && !($1 in lab) { lab[$1] = us($2, $3); next }
    FNR != NR && /: avg=/ {
      name = $1; desc = $0; sub(/^ *[^ ]+ /, "", desc); sub(/ *:.*/, "", desc)
      for (i = 1; i <= NF; i++) {
        if (index($i, "avg=") == 1) { v = substr($i, 5); sub(/ns$/, "", v); avg[name "|" desc] = v }
        if (index($i, "min=") == 1) { v = substr($i, 5); sub(/ns$/, "", v); mn[name "|" desc] = v }
      }
    }
    function row(m, p,   k) {
      k = "spawn/method:" m "/child:minimal/parent:" p "/until:start"
      return pairing == "min~min" ? fast[k] : lab[k]
    }
    function sb(m, size,   k) {
      k = m "|" size
      return pairing == "median~avg" ? avg[k] : mn[k]
    }
    function q(a, b) { return (a > 0 && b > 0) ? a / b : 0 }
    function out(name, lab_ratio, sb_ratio) {
      print r, name "@" pairing (tool == "reaped" ? "(reaped)" : ""), lab_ratio, sb_ratio
    }
    END {
      out("fork/vfork", q(row("fork", "minimal"), row("vfork", "minimal")), q(sb("fork", "small"), sb("vfork", "small")))
      out("posix_spawn/vfork", q(row("posix_spawn", "minimal"), row("vfork", "minimal")), q(sb("posix_spawn", "small"), sb("vfork", "small")))
      out("clone/vfork", q(row("clone", "minimal"), row("vfork", "minimal")), q(sb("clone_vm", "small"), sb("vfork", "small")))
      out("vfork-1g-touched/vfork", q(row("vfork", "1g-touched"), row("vfork", "minimal")), q(sb("vfork", "+  1G init"), sb("vfork", "small")))
      out("fork-1g-touched/fork", q(row("fork", "1g-touched"), row("fork", "minimal")), q(sb("fork", "+  1G init"), sb("fork", "small")))
      out("fork-1g-touched-unplaced/fork", q(row("fork", "1g-touched-unplaced"), row("fork", "minimal")), q(sb("fork", "+  1G init"), sb("fork", "small")))
    }' "$out/spawnlab-$r.txt" "$sb_lines"
done; done; done > "$out/ratios.txt"
{
  echo
  echo "the issue's ratios, to the child's first instruction, spawnlab against spawnbench (PATH ${3:-published}),"
  echo "each the median over $rounds rounds (range); agree: within 10%. Pairings of statistics:"
  echo "  @median~avg  spawnlab's row medians against spawnbench's averages (the typical spawn in each)"
  echo "  @min~min     spawnlab's fastest single spawns against spawnbench's minima (the best case in each)"
  echo "  @median~min  spawnlab's medians against spawnbench's minima (the issue's pairing)"
  echo "  (reaped)     against spawnbench changed in one thing: each child reaped after its timestamp"
  echo "Where spawnbench's own rounds spread by more than 20% (highest over lowest), the note says so:"
  echo "its figure moved more than the tolerance."
  awk '
    { key = $2; if (!(key in n)) order[++keys] = key; n[key]++; a[key, n[key]] = $3; b[key, n[key]] = $4 }
    function median(arr, key, m,   i, j, t, v) {
      for (i = 1; i <= m; i++) v[i] = arr[key, i]
      for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
      lo = v[1]; hi = v[m]
      return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
    }
    END {
      printf "%-46s %22s %22s %7s %-3s %s\n", "ratio", "spawnlab", "spawnbench", "", "agree", "note"
      for (k = 1; k <= keys; k++) {
        key = order[k]
        sa = median(a, key, n[key]); alo = lo; ahi = hi
        sb = median(b, key, n[key]); blo = lo; bhi = hi
        ag = sb > 0 ? sa / sb : 0
        note = (blo > 0 && bhi / blo > 1.2) ? sprintf("its rounds spread %.0f%%", (bhi / blo - 1) * 100) : ""
        printf "%-46s %7.2f (%.2f-%.2f) %7.2f (%.2f-%.2f) %7.2f %-3s %s\n", key, sa, alo, ahi, sb, blo, bhi, ag,
               (ag >= 0.9 && ag <= 1.1) ? "yes" : "no", note
      }
    }' "$out/ratios.txt"
} > "$out/table.txt"
echo
cat "$out/table.txt"

# Keep the run: where and when, the table, then both tools' own lines.
context="$(python3 -c 'import json, sys; c = json.load(open(sys.argv[1]))["context"]; print(c.get("kernel.release", "unknown"), c.get("host.id", "unknown"), c.get("git.revision", "unknown"))' "$out/round-1.json")"
read -r release host revision <<<"$context"
# The bench reads its revision where `bazel run` says the workspace is; run
# from here, it is this checkout's.
if [[ "$revision" == unknown ]]; then
  revision="$(git -C "$here" rev-parse HEAD 2>/dev/null || echo unknown)"
  [[ -z "$(git -C "$here" status --porcelain --untracked-files=no 2>/dev/null)" ]] || revision+=" (dirty)"
fi
keep="${4:-$here/results/$release/$host/spawnbench_side_by_side.txt}"
mkdir -p "$(dirname "$keep")"
tmp="$(mktemp "$(dirname "$keep")/.spawnbench_side_by_side.XXXXXX")"
{
  echo "spawnbench side by side (experiments/clone3/spawnbench_side_by_side.sh)"
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "kernel: $release; host id: $host; spawnlab revision: $revision"
  echo "spawnbench: $(git -C "$sb" rev-parse HEAD 2>/dev/null || echo "not a git checkout"), PATH ${3:-published}; rounds: $rounds"
  echo
  cat "$out/table.txt"
  for r in $(seq "$rounds"); do
    echo
    echo "== round $r: spawnlab (rows: median, fastest repetition, cv, repetitions; then each row's fastest single spawn)"
    cat "$out/spawnlab-$r.txt"
    echo "== round $r: spawnbench"
    cat "$out/spawnbench-$r.txt"
    echo "== round $r: spawnbench, reaped"
    cat "$out/spawnbench-reaped-$r.txt"
  done
} > "$tmp"
chmod 644 "$tmp"
mv -f "$tmp" "$keep"
echo
echo "kept: $keep"
