#!/usr/bin/env bash
# uml.sh: the suite's --quick smoke, and the probes, on a second real kernel:
# Debian's User-Mode Linux (Linux 6.1), booted as an ordinary process with the
# host's root as its file system.
#
#   bazel run //suite:uml                          # every bench, then reports/
#   bazel run //suite:uml -- --only=clone3,syscalls
#   bazel run //suite:uml -- --full --only=descriptors --processes=2 --rounds=6
#
# --full runs the suite's full plan instead of its smoke, for what only UML can
# run here: root inside UML may raise RLIMIT_NOFILE to 1,048,576, so the
# descriptors rows at that limit (skipped on a host without CAP_SYS_RESOURCE)
# run there, the loop to the limit included (about a minute per spawn: UML
# traps each of its million system calls). Fix the plan (--processes, --rounds):
# the benches' stopping rule would wait for intervals UML cannot give, and a
# full run's rounds would take hours.
#
# Results go to results/<6.1.x>/<uml host>/ with `virtualization: uml`: UML
# traps every system call, so its timings are no 6.1 machine's and the ledger
# never judges from them; they are for the kernel-feature matrix and the skip
# paths. Exit status: the suite's inside UML, 2 for a usage error, 3 if UML is
# missing or did not finish, 4 if it cannot run programs on this host's CPU.
set -euo pipefail

ws=${BUILD_WORKSPACE_DIRECTORY:-}
if [[ -z "$ws" ]]; then
  echo "uml: run me with \`bazel run //suite:uml\`: results go into the workspace" >&2
  exit 2
fi
suite="$PWD/$1"
report="$PWD/$2"
# PID 1's helper (loopback up, power off), built beside the suite: a minimal
# Debian has neither ip, ifconfig nor poweroff.
pid1="$(dirname "$suite")/uml_pid1"
shift 2
timeout_s=1800
do_report=1
mode="--quick --keep_quick"
suite_args=()
# Flags (before any of the suite's own, which are passed on):
#   --timeout=SECONDS   give up on UML after this long (default 1800)
#   --no-report         leave reports/ alone
#   --full              the suite's full plan, not its --quick (see above)
for a in "$@"; do
  case "$a" in
    --timeout=*) timeout_s=${a#--timeout=} ;;
    --no-report) do_report=0 ;;
    --full) mode="" ;;
    *) suite_args+=("$a") ;;
  esac
done
[[ "$timeout_s" =~ ^[0-9]+$ ]] || { echo "uml: --timeout=$timeout_s: expected seconds" >&2; exit 2; }

uml=$(command -v linux.uml || true)
if [[ -z "$uml" ]]; then
  echo "uml: linux.uml not found: install Debian's user-mode-linux (./bazelw does)" >&2
  exit 3
fi

# The suite and every bench it starts find their files in our runfiles tree,
# which `bazel run` (or the test) built and left as our working directory's
# parent: a binary's own tree in bazel-bin exists only if it was built alone.
runfiles=$(dirname "$PWD")
tmp=$(mktemp -d /tmp/spawnlab-uml.XXXXXX)
uml_pid=
tail_pid=
cleanup() {
  # UML's helper processes share its process group: nothing outlives us.
  if [[ -n "$uml_pid" ]]; then kill -KILL -- "-$uml_pid" 2>/dev/null || true; fi
  if [[ -n "$tail_pid" ]]; then kill "$tail_pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The host's bench lock, for UML's whole boot: nothing else measures on the
# host's CPUs meanwhile (UML's suite cannot take it: its flock stays inside
# UML). Created without following a link (noclobber is O_EXCL), opened
# read-only (flock needs no more), never written.
lock=${SPAWNLAB_LOCK_FILE:-}
if [[ -z "$lock" ]]; then
  lock=/tmp/spawnlab-bench.lock
  [[ -d /run/lock && ! -L /run/lock ]] && lock=/run/lock/spawnlab-bench.lock
fi
[[ -e "$lock" || -L "$lock" ]] || (set -C; : > "$lock") 2>/dev/null || true
if [[ -L "$lock" || ! -f "$lock" ]]; then
  echo "uml: lock file $lock is not a regular file (a link?); remove it" >&2
  exit 3
fi
exec {lock_fd}<"$lock"
if ! flock -n "$lock_fd"; then
  echo "uml: waiting for the bench lock ($lock: $(head -c 200 "$lock" 2>/dev/null))" >&2
  flock "$lock_fd"
fi

printf '%q ' "${suite_args[@]+"${suite_args[@]}"}" > "$tmp/args"
cat > "$tmp/init" <<INIT
#!/bin/sh
# PID 1 inside UML: mount what the benches read, bring up loopback, run the
# suite, leave its exit status on the host's file system, power off.
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t tmpfs tmpfs /dev/shm 2>/dev/null
"$pid1" lo-up
cd "$PWD"
export RUNFILES_DIR="$runfiles" BUILD_WORKSPACE_DIRECTORY="$ws" HOME=/root \
  PATH=/usr/bin:/bin:/usr/sbin:/sbin SPAWNLAB_LOCK_FILE="$tmp/uml-bench.lock"
echo "uml: Linux \$(uname -r) is up; the suite starts" > /dev/console
eval "set -- \$(cat "$tmp/args")"
"$suite" $mode --report=false "\$@" > /dev/console 2>&1
echo \$? > "$tmp/status"
exec "$pid1" poweroff
INIT
chmod +x "$tmp/init"

echo "uml: booting $uml (Linux $(dpkg-query -W -f='${Version}' user-mode-linux 2>/dev/null || echo '?')), at most ${timeout_s} s"
# `quiet`: the console carries the suite's output, not the kernel's boot log.
# uml_dir: UML's own state goes into our temporary folder, not $HOME/.uml (a
# test has no $HOME). Its memory is a file in $TMPDIR: /dev/shm where it can.
uml_tmp=/tmp
if [[ -d /dev/shm && -w /dev/shm ]]; then uml_tmp=/dev/shm; fi
# Its console and errors go to a file, shown as they come, so that how it
# stopped can be read afterwards. It dies with this script, even of SIGKILL
# (setpriv --pdeathsig), so that no UML goes on writing into results/; it
# does not inherit the lock's descriptor, which dies with us too.
: > "$tmp/console"  # before tail follows it: the background job makes it too late
TMPDIR=$uml_tmp setsid setpriv --pdeathsig KILL "$uml" {lock_fd}<&- mem=2G root=/dev/root rootfstype=hostfs rootflags=/ rw quiet \
  uml_dir="$tmp" init="$tmp/init" con=null con0=fd:0,fd:1 < /dev/null > "$tmp/console" 2>&1 &
uml_pid=$!
tail -n +1 -f --pid="$uml_pid" "$tmp/console" &
tail_pid=$!
deadline=$((SECONDS + timeout_s))
while kill -0 "$uml_pid" 2>/dev/null; do
  if ((SECONDS >= deadline)); then
    echo "uml: gave up after ${timeout_s} s (--timeout)" >&2
    exit 3
  fi
  sleep 1
done
wait "$uml_pid" || true
uml_pid=
wait "$tail_pid" 2>/dev/null || true  # the console shown to its end
tail_pid=
if [[ ! -s "$tmp/status" ]]; then
  # UML runs each program as a host process it drives through ptrace; where it
  # cannot restore a program's floating-point registers it kills the program,
  # init first. Older UML kernels do so on CPUs whose extended register state
  # (XSAVE) is larger than they allow; AMX's tile data makes it largest.
  if grep -q "ptrace set fp regs failed" "$tmp/console"; then
    ext=$(grep -o -w -m1 'amx_tile\|avx512f' /proc/cpuinfo | sort -u | paste -sd ' ' || true)
    echo "uml: this UML cannot run programs on this host's CPU: it failed to restore a" \
      "process's floating-point registers through ptrace (\"ptrace set fp regs failed\")," \
      "as older UML kernels do where the CPU's extended register state is larger than they" \
      "allow (this CPU has: ${ext:-none of AVX-512 and AMX})" >&2
    exit 4
  fi
  echo "uml: UML stopped before the suite finished" >&2
  exit 3
fi
status=$(cat "$tmp/status")
if ((do_report)); then
  echo "uml: regenerating reports/"
  "$report"
fi
echo "uml: the suite inside UML exited $status"
exit "$status"
