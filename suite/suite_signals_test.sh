#!/bin/bash
# suite_signals_test.sh: the suite hands its lock to the bench it runs, passes
# SIGTERM on to it and exits 130; killed with SIGKILL, it takes its bench
# along (PR_SET_PDEATHSIG) and the lock is free again. uml.sh waits for the
# host's lock before booting UML.
#   suite_signals_test.sh SUITE UML_SH REPORT
set -u
suite="$1" uml_sh="$2" report="$3"
ws="$TEST_TMPDIR/ws"
mkdir -p "$ws"
export BUILD_WORKSPACE_DIRECTORY="$ws" SPAWNLAB_LOCK_FILE="$TEST_TMPDIR/lock"
fail() { echo "FAIL: $*" >&2; exit 1; }
passed=0

# Waits up to 60 s for a process whose command line has $1; prints its pid.
wait_for() {
  for _ in $(seq 600); do
    p=$(pgrep -f -- "$1" | head -1)
    [ -n "$p" ] && { echo "$p"; return 0; }
    sleep 0.1
  done
  return 1
}
gone() {  # waits up to 30 s for pid $1 to end
  for _ in $(seq 300); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
  return 1
}

# SIGTERM: passed on to the bench, exit 130.
"$suite" --only=syscalls --report=false > "$TEST_TMPDIR/term.txt" 2>&1 &
suite_pid=$!
bench=$(wait_for "syscalls/bench") || fail "the bench never started: $(cat "$TEST_TMPDIR/term.txt")"
kill -TERM "$suite_pid"
wait "$suite_pid"
rc=$?
[ "$rc" -eq 130 ] || fail "an interrupted suite exited $rc, not 130"
gone "$bench" || fail "the bench outlived SIGTERM to the suite"
passed=$((passed + 1))

# SIGKILL: the bench dies with the suite, and the lock is free afterwards.
"$suite" --only=syscalls --report=false > "$TEST_TMPDIR/kill.txt" 2>&1 &
suite_pid=$!
bench=$(wait_for "syscalls/bench") || fail "the bench never started: $(cat "$TEST_TMPDIR/kill.txt")"
kill -KILL "$suite_pid"
wait "$suite_pid" 2>/dev/null
gone "$bench" || fail "the bench outlived the suite's SIGKILL"
flock -n "$SPAWNLAB_LOCK_FILE" true || fail "the lock is still held after the suite and its bench died"
passed=$((passed + 1))

# uml.sh waits for the host's bench lock before it boots anything.
if command -v linux.uml >/dev/null 2>&1; then
  exec 9<>"$SPAWNLAB_LOCK_FILE"
  flock -n 9 || fail "cannot take the lock for the UML check"
  "$uml_sh" "$suite" "$report" --timeout=60 --no-report > "$TEST_TMPDIR/uml.txt" 2>&1 9>&- &
  uml_pid=$!
  for _ in $(seq 100); do grep -q "waiting for the bench lock" "$TEST_TMPDIR/uml.txt" && break; sleep 0.1; done
  grep -q "waiting for the bench lock" "$TEST_TMPDIR/uml.txt" || fail "uml.sh did not wait for the lock: $(cat "$TEST_TMPDIR/uml.txt")"
  grep -q "booting" "$TEST_TMPDIR/uml.txt" && fail "uml.sh booted UML while another held the lock"
  # uml.sh is blocked in flock: SIGTERM is acted on once the lock is let go,
  # before anything boots.
  kill -TERM "$uml_pid"
  exec 9>&-
  wait "$uml_pid" 2>/dev/null
  if grep -q booting "$TEST_TMPDIR/uml.txt"; then
    fail "uml.sh booted UML after it was told to stop: $(cat "$TEST_TMPDIR/uml.txt")"
  fi
  passed=$((passed + 1))
  # Killed with SIGKILL, uml.sh takes UML with it (setpriv --pdeathsig).
  "$uml_sh" "$suite" "$report" --timeout=60 --no-report > "$TEST_TMPDIR/uml2.txt" 2>&1 &
  uml_pid=$!
  for _ in $(seq 300); do grep -q "booting" "$TEST_TMPDIR/uml2.txt" && break; sleep 0.1; done
  uml_kernel=$(wait_for "init=/tmp/spawnlab-uml") || fail "UML never started: $(cat "$TEST_TMPDIR/uml2.txt")"
  kill -KILL "$uml_pid"
  wait "$uml_pid" 2>/dev/null
  gone "$uml_kernel" || { pkill -KILL -f "init=/tmp/spawnlab-uml"; fail "UML outlived its script's SIGKILL"; }
  passed=$((passed + 1))
fi
echo "suite_signals_test: $passed passed, 0 failed"
