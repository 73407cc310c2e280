// syscall_count.h: how many syscalls does a program make from exec to exit?
//
// The program is run once under ptrace (PTRACE_SYSCALL, as strace does) and
// every syscall entry is counted, the execve that starts it included, so the
// figure compares with `strace -f -c`. Used for the linking experiment's
// "syscalls per exec" counter; it is slow (two stops per syscall) and never
// part of a timed interval.
//
// Example:
//
//   absl::StatusOr<int> n = spawnlab::CountSyscalls(
//       spawnlab::ExecSpec("/bin/true", {"true"}));
//   // PermissionDenied where ptrace is not allowed (seccomp, Yama, a sandbox)

#ifndef SPAWNLAB_LIB_SYSCALL_COUNT_H_
#define SPAWNLAB_LIB_SYSCALL_COUNT_H_

#include "absl/status/statusor.h"
#include "lib/spawn.h"

namespace spawnlab {

// Runs `spec` to its end under ptrace and returns the syscalls it made
// (including its execve). The child is killed if anything goes wrong.
absl::StatusOr<int> CountSyscalls(const ExecSpec& spec);

}  // namespace spawnlab

#endif  // SPAWNLAB_LIB_SYSCALL_COUNT_H_
