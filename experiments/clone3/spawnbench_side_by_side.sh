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
# What reads the rounds and makes the table (and its --self_test).
reader="$here/experiments/clone3/spawnbench_side_by_side.py"
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
  # Each row's fastest single spawn over the run (fastest_us: spawnlab's
  # minimum, the statistic spawnbench reports) and its children's page faults.
  "$reader" fastest "$out/round-$r.json" >> "$out/spawnlab-$r.txt"
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
# Every round's lines from both tools, as the run keeps them; then the answer
# from them: the issue's ratios, each round and over the rounds, in three
# pairings of statistics (the reader's `table`).
for r in $(seq "$rounds"); do
  echo
  echo "== round $r: spawnlab (rows: median, fastest repetition, cv, repetitions; then each row's fastest single spawn)"
  cat "$out/spawnlab-$r.txt"
  echo "== round $r: spawnbench"
  cat "$out/spawnbench-$r.txt"
  echo "== round $r: spawnbench, reaped"
  cat "$out/spawnbench-reaped-$r.txt"
done > "$out/rounds.txt"
"$reader" table --path_mode="${3:-published}" < "$out/rounds.txt" > "$out/table.txt"
echo
cat "$out/table.txt"

# Keep the run: where and when, the table, then both tools' own lines.
context="$("$reader" context "$out/round-1.json")"
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
  cat "$out/table.txt" "$out/rounds.txt"
} > "$tmp"
chmod 644 "$tmp"
mv -f "$tmp" "$keep"
echo
echo "kept: $keep"
