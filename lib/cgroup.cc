// cgroup.cc: see cgroup.h.

#include "lib/cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace spawnlab {
namespace {

// Empties and removes the cgroup directory `path`: rmdir, and while it is
// busy, cgroup.kill (Linux 5.14) and a short wait, for up to about 2 s.
// Async-signal-safe: the watcher runs it in a child of a threaded process.
bool RemoveCgroupDir(const char* path, const char* kill_path) {
  for (int i = 0; i < 200; ++i) {
    if (rmdir(path) == 0 || errno == ENOENT) return true;
    if (errno != EBUSY) return false;
    const int k = open(kill_path, O_WRONLY | O_CLOEXEC);
    if (k >= 0) {
      ssize_t ignored = write(k, "1", 1);
      (void)ignored;
      close(k);
    }
    struct timespec ten_ms = {0, 10 * 1000 * 1000};
    nanosleep(&ten_ms, nullptr);
  }
  return false;
}

// Directories "<prefix>-<pid>" in `dir` whose pid is no process: removed.
void SweepStale(const std::string& dir, absl::string_view prefix) {
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return;
  const std::string start = absl::StrCat(prefix, "-");
  std::vector<std::string> stale;
  while (const struct dirent* e = readdir(d)) {
    int pid = 0;
    if (e->d_type != DT_DIR || !absl::StartsWith(e->d_name, start) ||
        !absl::SimpleAtoi(e->d_name + start.size(), &pid) || pid <= 0) {
      continue;
    }
    if (kill(pid, 0) != 0 && errno == ESRCH) stale.push_back(absl::StrCat(dir, "/", e->d_name));
  }
  closedir(d);
  for (const std::string& path : stale) {
    RemoveCgroupDir(path.c_str(), (path + "/cgroup.kill").c_str());
  }
}

}  // namespace

absl::StatusOr<std::string> OwnCgroupV2Dir() {
  // Our own cgroup v2 directory: the line "0::/path" of /proc/self/cgroup.
  std::ifstream in("/proc/self/cgroup");
  std::string line, path;
  while (std::getline(in, line)) {
    if (absl::StartsWith(line, "0::")) path = line.substr(3);
  }
  if (path.empty()) {
    return absl::FailedPreconditionError("this process is in no cgroup v2 hierarchy");
  }
  // Where cgroup2 is mounted: /sys/fs/cgroup on a unified host, elsewhere
  // (systemd's hybrid layout: /sys/fs/cgroup/unified) beside cgroup v1.
  std::string mount;
  std::ifstream mountinfo("/proc/self/mountinfo");
  while (std::getline(mountinfo, line)) {
    // "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS ... - FSTYPE SOURCE SUPER"
    std::vector<std::string> f = absl::StrSplit(line, ' ');
    auto dash = std::find(f.begin(), f.end(), "-");
    if (f.size() > 4 && dash != f.end() && dash + 1 != f.end() && *(dash + 1) == "cgroup2") {
      mount = f[4];
      break;
    }
  }
  if (mount.empty()) {
    return absl::FailedPreconditionError(
        "no cgroup v2 hierarchy is mounted (/proc/self/mountinfo)");
  }
  return path == "/" ? mount : absl::StrCat(mount, path);
}

absl::StatusOr<ScopedCgroup> ScopedCgroup::Create(absl::string_view prefix) {
  absl::StatusOr<std::string> own = OwnCgroupV2Dir();
  if (!own.ok()) return own.status();
  SweepStale(*own, prefix);
  ScopedCgroup cg;
  cg.path_ = absl::StrCat(*own, "/", prefix, "-", getpid());
  if (mkdir(cg.path_.c_str(), 0755) != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot make the cgroup ", cg.path_, ": ", strerror(errno)));
  }
  cg.fd_ = UniqueFd(open(cg.path_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!cg.fd_.valid()) {
    const int err = errno;
    rmdir(cg.path_.c_str());
    return absl::ErrnoToStatus(err, absl::StrCat("open ", cg.path_));
  }
  // The watcher: it waits for the end of a pipe whose write end only this
  // process holds (O_CLOEXEC: no program this process starts keeps it), so
  // it wakes when this process goes, however it goes, and removes the
  // directory. In a process group of its own, ignoring the terminal's
  // signals, so that a Ctrl-C that ends the bench does not end it first.
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0) {
    const int err = errno;
    rmdir(cg.path_.c_str());
    return absl::ErrnoToStatus(err, "pipe2 for the cgroup's watcher");
  }
  const std::string kill_path = cg.path_ + "/cgroup.kill";
  const char* path_c = cg.path_.c_str();
  const char* kill_c = kill_path.c_str();
  const pid_t w = fork();
  if (w == 0) {
    // A name of its own, so that `pkill bench` ends the bench, not this.
    prctl(PR_SET_NAME, "cgroup-watcher", 0, 0, 0);
    setpgid(0, 0);
    struct sigaction ignore = {};
    ignore.sa_handler = SIG_IGN;
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE}) sigaction(sig, &ignore, nullptr);
    close(p[1]);
    const int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null >= 0) {
      dup2(null, 0);
      dup2(null, 1);
      dup2(null, 2);
    }
    // Nothing else of the parent's: not its lock, not its pipes.
    const int keep = p[0];
    if (keep > 3) syscall(SYS_close_range, 3u, static_cast<unsigned>(keep - 1), 0u);
    syscall(SYS_close_range, static_cast<unsigned>(keep + 1), ~0u, 0u);
    char c;
    while (read(keep, &c, 1) < 0 && errno == EINTR) {
    }
    RemoveCgroupDir(path_c, kill_c);
    _exit(0);
  }
  const int err = errno;
  close(p[0]);
  if (w < 0) {
    close(p[1]);
    rmdir(cg.path_.c_str());
    return absl::ErrnoToStatus(err, "fork of the cgroup's watcher");
  }
  cg.watcher_pipe_ = UniqueFd(p[1]);
  cg.watcher_ = w;
  return cg;
}

ScopedCgroup::ScopedCgroup(ScopedCgroup&& other) noexcept
    : path_(std::move(other.path_)),
      fd_(std::move(other.fd_)),
      watcher_pipe_(std::move(other.watcher_pipe_)),
      watcher_(other.watcher_) {
  other.path_.clear();
  other.watcher_ = -1;
}

ScopedCgroup::~ScopedCgroup() {
  if (path_.empty()) return;
  fd_.reset();
  RemoveCgroupDir(path_.c_str(), (path_ + "/cgroup.kill").c_str());
  watcher_pipe_.reset();  // the watcher wakes, finds the directory gone, ends
  if (watcher_ > 0) {
    int status;
    while (waitpid(watcher_, &status, 0) < 0 && errno == EINTR) {
    }
  }
}

int ScopedCgroup::ProcessCount() const {
  std::ifstream in(path_ + "/cgroup.procs");
  if (!in) return -1;
  int n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

}  // namespace spawnlab
