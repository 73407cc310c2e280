#!/bin/bash
# audit.sh: each API's system calls per spawn of the minimal child, counted by
# strace -f -c over spawn_loop at N = 0 and N = 1000 (the difference / 1000).
#
#   bazel run //experiments/command:audit
set -euo pipefail
loop="$1"
child="$2"
if ! command -v strace >/dev/null; then
  echo "audit: strace is not installed (Debian: apt install strace)" >&2
  exit 2
fi
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
n=1000
# name calls, one per line, from strace -c's table.
counts() { awk 'NR > 2 && $1 !~ /^-/ && $1 != "total" { print $1, $2 }' "$1" | sort; }
apis=(command spawn clone vfork)
for api in "${apis[@]}"; do
  for k in 0 "$n"; do
    strace -f -c -U name,calls -o "$dir/$api-$k" "$loop" --api="$api" --n="$k" "$child"
  done
  join -a1 -a2 -e0 -o 0,1.2,2.2 <(counts "$dir/$api-$n") <(counts "$dir/$api-0") |
    awk -v api="$api" -v n="$n" '$2 != $3 { printf "%s %s %.2f\n", api, $1, ($2 - $3) / n }' \
      >>"$dir/table"
done
echo "system calls per spawn (strace -f -c, $n spawns less none; parent and child)"
printf '%-16s' syscall
for api in "${apis[@]}"; do printf '%10s' "$api"; done
echo
for name in $(awk '{ print $2 }' "$dir/table" | sort -u); do
  printf '%-16s' "$name"
  for api in "${apis[@]}"; do
    v="$(awk -v a="$api" -v s="$name" '$1 == a && $2 == s { print $3 }' "$dir/table")"
    printf '%10s' "${v:-.}"
  done
  echo
done
