// proc_stat.h: one process's /proc/PID/stat, parsed: its name, state, parent,
// CPU time, thread count and resident size.
//
// The line is "pid (comm) state ppid ... utime stime ... rss ..." (proc(5));
// comm may hold spaces and parentheses, so the fields are split after the last
// ')'. A process that ends while it is read is NotFound, not an error to
// report: callers walking /proc skip it.
//
// Example:
//
//   absl::StatusOr<spawnlab::ProcStat> s = spawnlab::ReadProcStat(pid);
//   if (s.ok() && s->ppid == getpid()) ...   // a child of ours
//   int64_t cpu = s->cpu_ticks;              // utime + stime, in clock ticks

#ifndef SPAWNLAB_LIB_PROC_STAT_H_
#define SPAWNLAB_LIB_PROC_STAT_H_

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace spawnlab {

struct ProcStat {
  std::string comm;
  char state = '?';  // R, S, D, Z, ...
  pid_t ppid = 0;
  int64_t cpu_ticks = 0;  // utime + stime (fields 14 and 15), in sysconf(_SC_CLK_TCK) units
  int64_t threads = 0;    // field 20, num_threads
  int64_t rss_pages = 0;  // field 24
};

// Parses one /proc/PID/stat line; InvalidArgument if it is not one.
absl::StatusOr<ProcStat> ParseProcStat(absl::string_view line);

// Reads /proc/PID/stat; NotFound if the process does not exist (any more).
absl::StatusOr<ProcStat> ReadProcStat(pid_t pid);

}  // namespace spawnlab

#endif  // SPAWNLAB_LIB_PROC_STAT_H_
