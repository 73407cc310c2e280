// syscall_count.cc: see syscall_count.h.

#include "lib/syscall_count.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "absl/strings/str_cat.h"

namespace spawnlab {

absl::StatusOr<int> CountSyscalls(const ExecSpec& spec) {
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) return absl::ErrnoToStatus(errno, "pipe2");
  pid_t pid = fork();
  if (pid < 0) {
    close(report[0]);
    close(report[1]);
    return absl::ErrnoToStatus(errno, "fork");
  }
  if (pid == 0) {
    close(report[0]);
    int err = 0;
    if (ptrace(PTRACE_TRACEME, 0, nullptr, nullptr) != 0) {
      err = errno;
    } else {
      execve(spec.path(), spec.argv(), spec.envp());
      err = errno;
    }
    ssize_t ignored = write(report[1], &err, sizeof(err));
    (void)ignored;
    _exit(127);
  }
  close(report[1]);
  // Killed and reaped on every early return, through a pidfd where the kernel
  // has them (a pid alone could be another process's if it were reaped).
  Child child(pid, UniqueFd(static_cast<int>(syscall(SYS_pidfd_open, pid, 0))));
  int status;
  // The child stops with SIGTRAP after a successful execve (or exits).
  if (waitpid(pid, &status, 0) != pid) return absl::ErrnoToStatus(errno, "waitpid");
  int err = 0;
  ssize_t n = read(report[0], &err, sizeof(err));
  close(report[0]);
  if (n == sizeof(err)) {
    return absl::ErrnoToStatus(err, absl::StrCat("ptrace/exec ", spec.path()));
  }
  if (!WIFSTOPPED(status)) {
    return absl::InternalError(absl::StrCat(spec.path(), " did not stop after exec"));
  }
  if (ptrace(PTRACE_SETOPTIONS, pid, nullptr,
             reinterpret_cast<void*>(PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL |
                                     PTRACE_O_TRACEEXEC)) != 0) {
    return absl::ErrnoToStatus(errno, "PTRACE_SETOPTIONS");
  }
  int stops = 0;  // syscall-entry and syscall-exit stops alternate
  int pending_signal = 0;
  while (true) {
    if (ptrace(PTRACE_SYSCALL, pid, nullptr, reinterpret_cast<void*>(pending_signal)) != 0) {
      return absl::ErrnoToStatus(errno, "PTRACE_SYSCALL");
    }
    pending_signal = 0;
    if (waitpid(pid, &status, 0) != pid) return absl::ErrnoToStatus(errno, "waitpid");
    if (WIFEXITED(status) || WIFSIGNALED(status)) {
      child.Release();  // reaped just now
      break;
    }
    if (WIFSTOPPED(status)) {
      if (WSTOPSIG(status) == (SIGTRAP | 0x80)) {
        ++stops;
      } else if ((status >> 16) != 0) {
        // A ptrace event (PTRACE_EVENT_EXEC: the program exec'd another, as
        // `env` or a shell does): follow on; it is no signal to deliver.
        // Without PTRACE_O_TRACEEXEC the kernel would raise a SIGTRAP here,
        // and passing that on would kill the tracee.
      } else {
        pending_signal = WSTOPSIG(status);  // a real signal: deliver it
      }
    }
  }
  // A count from a program that was killed is not its count.
  if (WIFSIGNALED(status)) {
    return absl::AbortedError(absl::StrCat(spec.path(), " was killed by ",
                                           ExitStatus(status).ToString(), " while traced"));
  }
  // Entries are every other stop; the last syscall (exit_group) has no exit
  // stop; the execve that started it all ran before tracing began.
  return (stops + 1) / 2 + 1;
}

}  // namespace spawnlab
