// strace.h: runs a program to its end under strace and returns what strace
// wrote (its -o file, kept in a private folder), for the benches that count
// or classify system calls outside any timed interval.
//
// Example:
//
//   absl::StatusOr<std::string> table = spawnlab::RunUnderStrace(
//       {"-f", "-c", "-U", "name,calls"}, {"/bin/true"}, absl::Seconds(60));
//   // NotFound without /usr/bin/strace; PermissionDenied where strace may
//   // not attach (seccomp, Yama, a sandbox); Internal if the program fails.

#ifndef SPAWNLAB_LIB_STRACE_H_
#define SPAWNLAB_LIB_STRACE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace spawnlab {

inline constexpr char kStracePath[] = "/usr/bin/strace";

// Runs `argv` (argv[0] a path) under strace with `options` (and -o, which
// this adds), killed after `timeout`. Its output is discarded; what strace
// wrote is returned. An ASan build of the program runs with detect_leaks=0:
// LeakSanitizer exits under ptrace.
absl::StatusOr<std::string> RunUnderStrace(const std::vector<std::string>& options,
                                           const std::vector<std::string>& argv,
                                           absl::Duration timeout);

}  // namespace spawnlab

#endif  // SPAWNLAB_LIB_STRACE_H_
