#!/usr/bin/env bash
# wrk_ab.sh: requests/s of two builds of the accept server under the same wrk
# load, every model and mechanism, the two builds alternated round by round so
# that the machine's drift falls on both alike. Prints a markdown table of the
# median requests/s of each and their ratio.
#
#   experiments/accept/wrk_ab.sh OLD_SERVER NEW_SERVER [ROUNDS] [SECONDS]
#
# Defaults: 5 rounds of 3 s each, wrk -t1 -c64 (keep-alive), 2 workers, every
# model and mechanism (or those in $MODELS and $MECHANISMS). Run it on a quiet
# machine: nothing else may measure meanwhile.
set -euo pipefail
old="${1:?usage: wrk_ab.sh OLD_SERVER NEW_SERVER [ROUNDS] [SECONDS]}"
new="${2:?usage: wrk_ab.sh OLD_SERVER NEW_SERVER [ROUNDS] [SECONDS]}"
rounds="${3:-5}"
seconds="${4:-3}"
command -v wrk >/dev/null || { echo "wrk_ab.sh: wrk is not installed (./bazelw installs it)" >&2; exit 2; }
for b in "$old" "$new"; do
  [[ -x "$b" ]] || { echo "wrk_ab.sh: $b is not an executable" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT

# One wrk run against a fresh server; prints requests/s.
measure() {
  local server="$1" model="$2" mech="$3" log="$tmp/server.log" port="" pid
  "$server" --model="$model" --mechanism="$mech" --workers=2 --port=0 >"$log" 2>&1 &
  pid=$!
  for _ in $(seq 1 200); do
    port=$(sed -n 's/^listening on 127.0.0.1:\([0-9]*\).*/\1/p' "$log")
    [[ -n "$port" ]] && break
    sleep 0.05
  done
  if [[ -z "$port" ]]; then
    kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true
    echo "nan"
    return
  fi
  local out
  out=$(timeout $((seconds + 30)) wrk -t1 -c64 -d"${seconds}s" "http://127.0.0.1:$port/" 2>&1)
  kill -TERM "$pid"; wait "$pid" 2>/dev/null || true
  if grep -q -e "Socket errors" -e "Non-2xx" <<<"$out"; then echo "nan"; return; fi
  sed -n 's/^Requests\/sec: *\([0-9.]*\)/\1/p' <<<"$out"
}

median() { sort -g | awk '{v[NR]=$1} END {if (NR==0) print "nan"; else if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }

echo "| model | mechanism | before, req/s | after, req/s | after/before |"
echo "|---|---|---:|---:|---:|"
for model in ${MODELS:-shared reuseport proxy}; do
  for mech in ${MECHANISMS:-blocking epoll epoll-exclusive uring uring-multishot}; do
    : >"$tmp/a"; : >"$tmp/b"
    for r in $(seq 1 "$rounds"); do
      if ((r % 2)); then
        measure "$old" "$model" "$mech" >>"$tmp/a"; measure "$new" "$model" "$mech" >>"$tmp/b"
      else
        measure "$new" "$model" "$mech" >>"$tmp/b"; measure "$old" "$model" "$mech" >>"$tmp/a"
      fi
    done
    a=$(grep -v nan "$tmp/a" | median); b=$(grep -v nan "$tmp/b" | median)
    ratio=$(awk -v a="$a" -v b="$b" 'BEGIN {if (a+0 > 0 && b+0 > 0) printf "%.3f", b/a; else print "n/a"}')
    printf "| %s | %s | %.0f | %.0f | %s |\n" "$model" "$mech" "$a" "$b" "$ratio"
  done
done
