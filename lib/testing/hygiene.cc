// hygiene.cc: see hygiene.h.

#include "lib/testing/hygiene.h"

#include <dirent.h>
#include <limits.h>
#include <unistd.h>

#include <cstdlib>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/proc_stat.h"

namespace spawnlab {
namespace testing {

std::map<int, std::string> OpenFds() {
  std::map<int, std::string> fds;
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return fds;
  const int own = dirfd(dir);
  while (struct dirent* e = readdir(dir)) {
    int fd;
    if (!absl::SimpleAtoi(e->d_name, &fd) || fd == own) continue;
    char target[PATH_MAX];
    std::string link = absl::StrCat("/proc/self/fd/", fd);
    ssize_t n = readlink(link.c_str(), target, sizeof(target) - 1);
    fds[fd] = n > 0 ? std::string(target, static_cast<size_t>(n)) : "?";
  }
  closedir(dir);
  return fds;
}

std::vector<pid_t> Children() {
  std::vector<pid_t> children;
  const pid_t self = getpid();
  DIR* dir = opendir("/proc");
  if (dir == nullptr) return children;
  while (struct dirent* e = readdir(dir)) {
    int pid;
    if (!absl::SimpleAtoi(e->d_name, &pid)) continue;
    absl::StatusOr<ProcStat> stat = ReadProcStat(pid);
    if (stat.ok() && stat->ppid == self) children.push_back(pid);
  }
  closedir(dir);
  return children;
}

absl::Status Hygiene::Check() const {
  std::vector<std::string> problems;
  for (const auto& [fd, target] : OpenFds()) {
    auto before = fds_before_.find(fd);
    if (before == fds_before_.end() || before->second != target) {
      problems.push_back(absl::StrCat("descriptor ", fd, " -> ", target, " leaked"));
    }
  }
  for (pid_t pid : Children()) {
    problems.push_back(absl::StrCat("child ", pid, " not reaped"));
  }
  if (problems.empty()) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrJoin(problems, "; "));
}

}  // namespace testing
}  // namespace spawnlab
