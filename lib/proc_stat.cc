// proc_stat.cc: see proc_stat.h.

#include "lib/proc_stat.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace spawnlab {

absl::StatusOr<ProcStat> ParseProcStat(absl::string_view line) {
  const size_t open = line.find('('), close = line.rfind(')');
  if (open == absl::string_view::npos || close == absl::string_view::npos || close < open) {
    return absl::InvalidArgumentError(absl::StrCat("not a /proc/PID/stat line: '", line, "'"));
  }
  ProcStat s;
  s.comm = std::string(line.substr(open + 1, close - open - 1));
  // Field 3 (state) is the first after the ')'.
  std::vector<absl::string_view> f = absl::StrSplit(line.substr(close + 1), ' ', absl::SkipEmpty());
  int64_t utime, stime;
  if (f.size() < 22 || f[0].size() != 1 || !absl::SimpleAtoi(f[1], &s.ppid) ||
      !absl::SimpleAtoi(f[11], &utime) || !absl::SimpleAtoi(f[12], &stime) ||
      !absl::SimpleAtoi(f[17], &s.threads) || !absl::SimpleAtoi(f[21], &s.rss_pages)) {
    return absl::InvalidArgumentError(absl::StrCat("not a /proc/PID/stat line: '", line, "'"));
  }
  s.state = f[0][0];
  s.cpu_ticks = utime + stime;
  return s;
}

absl::StatusOr<ProcStat> ReadProcStat(pid_t pid) {
  // open/read rather than an ifstream: a process that ends between the two
  // makes read() fail with ESRCH, where an ifstream would throw.
  const std::string path = absl::StrCat("/proc/", pid, "/stat");
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return absl::NotFoundError(absl::StrCat(path, ": ", strerror(errno)));
  char buf[1024];
  ssize_t n;
  do {
    n = read(fd, buf, sizeof(buf) - 1);
  } while (n < 0 && errno == EINTR);
  const int err = errno;
  close(fd);
  if (n <= 0) return absl::NotFoundError(absl::StrCat(path, ": ", n < 0 ? strerror(err) : "empty"));
  return ParseProcStat(absl::string_view(buf, static_cast<size_t>(n)));
}

}  // namespace spawnlab
