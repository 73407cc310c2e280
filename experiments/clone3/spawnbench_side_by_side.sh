#!/bin/bash
# spawnbench_side_by_side.sh: this bench's fork, vfork, clone and posix_spawn rows from the
# minimal, placed (1g-touched) and unplaced (1g-touched-unplaced) 1 GiB
# parents, then spawnbench's four binaries, ROUNDS times, one after another.
#
#   git clone https://github.com/joshtriplett/spawnbench /tmp/spawnbench
#   make -C /tmp/spawnbench fork vfork clone_vm posix_spawn t
#   bazel build //experiments/clone3:bench
#   experiments/clone3/spawnbench_side_by_side.sh /tmp/spawnbench [ROUNDS]
#
# It ends with the two tools' answer to one question, round by round: what a
# fork from a 1 GiB touched parent costs over a fork from a small one
# (spawnlab: medians, placed and unplaced parent; spawnbench: its minimum and
# its average over 2000 spawns).
set -euo pipefail
sb="${1:?usage: $0 SPAWNBENCH_DIR [ROUNDS]}"
rounds="${2:-5}"
here="$(cd "$(dirname "$0")/../.." && pwd)"
bench="$here/bazel-bin/experiments/clone3/bench"
for f in "$bench" "$sb/fork" "$sb/vfork" "$sb/clone_vm" "$sb/posix_spawn" "$sb/t"; do
  [[ -x "$f" ]] || { echo "missing: $f (see the top of this script)" >&2; exit 2; }
done
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
for r in $(seq "$rounds"); do
  echo "== round $r: spawnlab"
  "$bench" --processes=3 --rows --out="$out/round-$r.json" \
    --benchmark_filter='spawn/method:(fork|vfork|clone|posix_spawn)/child:minimal/parent:(minimal|1g-touched|1g-touched-unplaced)/until:start' |
    grep -E '^spawn|^run:' | tee "$out/spawnlab-$r.txt"
  echo "== round $r: spawnbench"
  (cd "$sb" && for m in fork vfork clone_vm posix_spawn; do
    PATH=/usr/local/bin:/usr/local/sbin:/usr/bin:/usr/sbin:/bin:/sbin:. "./$m"
  done) | tee "$out/spawnbench-$r.txt"
done
# The answer: fork from 1 GiB touched over fork from small, each round.
echo
echo "fork from a 1 GiB touched parent / fork from a small one, to the child's first instruction:"
printf '%-6s %18s %20s %18s %18s\n' round "spawnlab placed" "spawnlab unplaced" "spawnbench min" "spawnbench avg"
for r in $(seq "$rounds"); do
  # spawnlab's --rows table: NAME MEDIAN UNIT ...; the first table (times),
  # not the ratios below it.
  median() { awk -v row="$1" '$1 == row && $3 == "us" { print $2; exit }' "$out/spawnlab-$r.txt"; }
  small=$(median spawn/method:fork/child:minimal/parent:minimal/until:start)
  placed=$(median spawn/method:fork/child:minimal/parent:1g-touched/until:start)
  unplaced=$(median spawn/method:fork/child:minimal/parent:1g-touched-unplaced/until:start)
  # spawnbench: "fork small     : avg=Nns min=Nns" and "fork +  1G init: ...".
  field() { awk -v size="$1" -v key="$2" '$1 == "fork" && $0 ~ (size " *:") {
      for (i = 1; i <= NF; i++) if (index($i, key "=") == 1) { v = substr($i, length(key) + 2); sub(/ns$/, "", v); print v } }' \
      "$out/spawnbench-$r.txt"; }
  awk -v r="$r" -v s="$small" -v p="$placed" -v u="$unplaced" \
      -v smin="$(field small min)" -v savg="$(field small avg)" \
      -v bmin="$(field "1G init" min)" -v bavg="$(field "1G init" avg)" \
      'function x(a, b) { return (a > 0 && b > 0) ? sprintf("%.1fx", a / b) : "—" }
       BEGIN { printf "%-6s %18s %20s %18s %18s\n", r, x(p, s), x(u, s), x(bmin, smin), x(bavg, savg) }'
done
