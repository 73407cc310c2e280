// bench_lock.cc: see bench_lock.h.

#include "bench/bench_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"

namespace spawnlab {
namespace {

// Opens the lock file without following a link or blocking on a FIFO, and
// checks that it is a regular file. Read-only where the file is another
// user's (a sticky folder with fs.protected_regular refuses O_CREAT on it):
// flock needs no write access.
absl::StatusOr<UniqueFd> OpenLockFile(const std::string& path) {
  constexpr int kFlags = O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
  UniqueFd fd(open(path.c_str(), O_RDWR | O_CREAT | kFlags, 0644));
  if (!fd.valid() && (errno == EACCES || errno == EPERM)) {
    fd = UniqueFd(open(path.c_str(), O_RDONLY | kFlags));
  }
  if (!fd.valid()) {
    if (errno == ELOOP) {
      return absl::FailedPreconditionError(absl::StrCat(
          "lock file ", path, " is a symbolic link; spawnlab follows none (remove it)"));
    }
    return absl::ErrnoToStatus(errno, absl::StrCat("open lock file ", path));
  }
  struct stat st;
  if (fstat(fd.get(), &st) != 0) return absl::ErrnoToStatus(errno, absl::StrCat("fstat ", path));
  if (!S_ISREG(st.st_mode)) {
    return absl::FailedPreconditionError(
        absl::StrCat("lock file ", path, " is not a regular file (remove it)"));
  }
  return fd;
}

// Whether the holder's line may go into the file: only one this user made,
// with no other name (a hard link) and opened for writing.
bool MayWriteHolder(int fd) {
  struct stat st;
  const int mode = fcntl(fd, F_GETFL);
  return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
         st.st_nlink == 1 && mode >= 0 && (mode & O_ACCMODE) == O_RDWR;
}

}  // namespace

std::string DefaultBenchLockPath() {
  const char* env = std::getenv("SPAWNLAB_LOCK_FILE");
  if (env != nullptr && *env != '\0') return env;
  struct stat st;
  if (lstat("/run/lock", &st) == 0 && S_ISDIR(st.st_mode)) return "/run/lock/spawnlab-bench.lock";
  return "/tmp/spawnlab-bench.lock";
}

std::string BenchLock::ReadHolder(int fd) {
  char buf[512];
  ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
  if (n <= 0) return "an unnamed process";
  return std::string(absl::StripAsciiWhitespace(absl::string_view(buf, n)));
}

absl::StatusOr<BenchLock> BenchLock::Acquire(const std::string& path, absl::string_view what,
                                             Mode mode, std::ostream* log) {
  absl::StatusOr<UniqueFd> opened = OpenLockFile(path);
  if (!opened.ok()) return opened.status();
  UniqueFd fd = *std::move(opened);
  const absl::Time start = absl::Now();
  std::string holder;
  absl::Time last_said = absl::InfinitePast();
  while (flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    if (errno != EWOULDBLOCK) return absl::ErrnoToStatus(errno, absl::StrCat("flock ", path));
    holder = ReadHolder(fd.get());
    if (mode == kFail) {
      return absl::FailedPreconditionError(
          absl::StrCat("another bench is measuring on this machine (", holder, "; lock ", path,
                       "). Wait for it, or use --lock=wait"));
    }
    if (log != nullptr && absl::Now() - last_said >= absl::Seconds(30)) {
      *log << "waiting for the bench lock: " << holder << " (" << path << ")" << std::endl;
      last_said = absl::Now();
    }
    absl::SleepFor(absl::Milliseconds(100));
  }
  const absl::Duration waited = holder.empty() ? absl::ZeroDuration() : absl::Now() - start;
  if (MayWriteHolder(fd.get())) {
    std::string line = absl::StrCat(
        "pid ", getpid(), ": ", what, ", since ",
        absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::Now(), absl::UTCTimeZone()), "\n");
    if (ftruncate(fd.get(), 0) != 0 ||
        pwrite(fd.get(), line.data(), line.size(), 0) != static_cast<ssize_t>(line.size())) {
      return absl::ErrnoToStatus(errno, absl::StrCat("write lock file ", path));
    }
  }
  return BenchLock(std::move(fd), waited, holder);
}

absl::StatusOr<BenchLock> BenchLock::Inherited(absl::string_view fd_text) {
  int fd = -1;
  if (!absl::SimpleAtoi(fd_text, &fd) || fd < 3) {
    return absl::FailedPreconditionError(
        absl::StrCat(kInheritedLockEnv, "=", fd_text, ": expected a descriptor number of 3 or more"));
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    return absl::FailedPreconditionError(absl::StrCat(
        kInheritedLockEnv, "=", fd, ": not an open lock file; run the bench without it"));
  }
  // The same open file description as the parent's: flock on it is the
  // parent's lock, held for as long as any process keeps the description.
  while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    return absl::FailedPreconditionError(
        absl::StrCat(kInheritedLockEnv, "=", fd, " does not hold the bench lock"));
  }
  fcntl(fd, F_SETFD, FD_CLOEXEC);
  return BenchLock(UniqueFd(fd), absl::ZeroDuration(), "");
}

absl::StatusOr<std::string> TakeBenchLock(absl::string_view what, absl::string_view mode,
                                          std::string path, std::optional<BenchLock>& lock) {
  const char* inherited = std::getenv(kInheritedLockEnv);
  if (inherited != nullptr && *inherited != '\0') {
    const std::string fd_text = inherited;
    unsetenv(kInheritedLockEnv);
    pid_t parent = getppid();
    if (const char* holder = std::getenv(kInheritedLockHolderEnv); holder != nullptr) {
      int pid = 0;
      if (absl::SimpleAtoi(holder, &pid)) parent = pid;
      unsetenv(kInheritedLockHolderEnv);
    }
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent || parent == 1) {
      return absl::FailedPreconditionError("the parent that held the bench lock is gone");
    }
    absl::StatusOr<BenchLock> got = BenchLock::Inherited(fd_text);
    if (!got.ok()) return got.status();
    lock.emplace(*std::move(got));
    return absl::StrCat("held for it by its parent, pid ", parent, " (inherited descriptor)");
  }
  if (mode == "none") return std::string("none taken (--lock=none)");
  if (path.empty()) path = DefaultBenchLockPath();
  absl::StatusOr<BenchLock> got =
      BenchLock::Acquire(path, what, mode == "fail" ? BenchLock::kFail : BenchLock::kWait, &std::cerr);
  if (!got.ok()) return got.status();
  lock.emplace(*std::move(got));
  return lock->waited_for().empty()
             ? std::string("acquired at once")
             : absl::StrFormat("waited %.0f s for %s", absl::ToDoubleSeconds(lock->waited()),
                               lock->waited_for());
}

}  // namespace spawnlab
