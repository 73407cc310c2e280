#!/usr/bin/env bash
# wrk_test.sh: wrk against the server in every model and mechanism, 1 s each
# on loopback: zero socket errors and zero non-2xx responses.
#   wrk_test.sh SERVER
# wrk is a Debian package (./bazelw installs it); without it the test says so
# and passes, as a skip.
set -uo pipefail
server="$1"
if ! command -v wrk >/dev/null 2>&1; then
  echo "SKIPPED: wrk is not installed (./bazelw installs it)"
  exit 0
fi
failures=0
for model in shared reuseport proxy; do
  for mech in blocking epoll epoll-exclusive uring uring-multishot; do
    log="${TEST_TMPDIR:-/tmp}/server-$model-$mech.log"
    "$server" --model="$model" --mechanism="$mech" --workers=2 --port=0 >"$log" 2>&1 &
    pid=$!
    port=""
    for _ in $(seq 1 200); do
      port=$(sed -n 's/^listening on 127.0.0.1:\([0-9]*\).*/\1/p' "$log")
      [[ -n "$port" ]] && break
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.05
    done
    if [[ -z "$port" ]]; then
      wait "$pid"
      code=$?
      if ((code == 3)); then
        echo "SKIPPED $model/$mech: $(cat "$log")"
        continue
      fi
      echo "FAIL $model/$mech: the server did not start (exit $code): $(cat "$log")"
      failures=$((failures + 1))
      continue
    fi
    out=$(timeout 60 wrk -t1 -c8 -d1s "http://127.0.0.1:$port/" 2>&1)
    kill -TERM "$pid"
    wait "$pid"
    requests=$(sed -n 's/^ *\([0-9]*\) requests in.*/\1/p' <<<"$out")
    if grep -q -e "Socket errors" -e "Non-2xx" <<<"$out" || [[ -z "$requests" || "$requests" -eq 0 ]]; then
      echo "FAIL $model/$mech:"
      echo "$out"
      failures=$((failures + 1))
    else
      echo "ok $model/$mech: $requests requests, no socket errors, no non-2xx"
    fi
  done
done
((failures == 0)) || { echo "$failures combination(s) failed"; exit 1; }
