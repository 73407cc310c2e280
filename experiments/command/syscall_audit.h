// syscall_audit.h: what one spawn costs in system calls, by API, as
// `strace -f -c` counts them (parent and child): spawn_loop is traced at N
// spawns and at none, and the difference is divided by N, so the loop's own
// start and exit cancel. The command bench records it as each API's counters
// (README.md, "System calls per spawn").
//
// Example:
//
//   absl::StatusOr<SyscallCounts> per_spawn =
//       spawnlab::SyscallsPerSpawn(loop_path, "command", child_path, 100);
//   // (*per_spawn)["clone3"] == 1; no "openat": nothing under /proc is read.
//   // NotFound without strace, PermissionDenied where ptrace is not allowed.

#ifndef SPAWNLAB_EXPERIMENTS_COMMAND_SYSCALL_AUDIT_H_
#define SPAWNLAB_EXPERIMENTS_COMMAND_SYSCALL_AUDIT_H_

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace spawnlab {

// System call name to calls (a count, or calls per spawn).
using SyscallCounts = std::map<std::string, double>;

// The calls of `strace -c -U name,calls` output, by name ("total" left out).
absl::StatusOr<SyscallCounts> ParseStraceCounts(absl::string_view text);

// (with - without) / spawns, for each call whose count differs.
SyscallCounts PerSpawn(const SyscallCounts& with, const SyscallCounts& without, int spawns);

// Runs `spawn_loop --api=API --n=N child` and `--n=0` under strace -f -c
// (/usr/bin/strace, each run bounded to a minute) and returns the calls per
// spawn. NotFound when strace is not installed; PermissionDenied when it
// cannot trace here.
absl::StatusOr<SyscallCounts> SyscallsPerSpawn(const std::string& spawn_loop, absl::string_view api,
                                               const std::string& child, int spawns);

}  // namespace spawnlab

#endif  // SPAWNLAB_EXPERIMENTS_COMMAND_SYSCALL_AUDIT_H_
