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
# Compare spawnlab's "fork 1g / fork minimal" (each round's paired ratio) with
# spawnbench's "+ 1G init" minimum over its "small" minimum.
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
    grep -E '^spawn|^run:'
  echo "== round $r: spawnbench"
  (cd "$sb" && for m in fork vfork clone_vm posix_spawn; do
    PATH=/usr/local/bin:/usr/local/sbin:/usr/bin:/usr/sbin:/bin:/sbin:. "./$m"
  done)
done
