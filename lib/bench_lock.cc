// bench_lock.cc: see bench_lock.h.

#include "lib/bench_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"

namespace spawnlab {

std::string DefaultBenchLockPath() {
  const char* env = std::getenv("SPAWNLAB_LOCK_FILE");
  return env != nullptr && *env != '\0' ? env : "/tmp/spawnlab-bench.lock";
}

std::string BenchLock::ReadHolder(int fd) {
  char buf[512];
  ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
  if (n <= 0) return "an unnamed process";
  return std::string(absl::StripAsciiWhitespace(absl::string_view(buf, n)));
}

absl::StatusOr<BenchLock> BenchLock::Acquire(const std::string& path, absl::string_view what,
                                             Mode mode, std::ostream* log) {
  // 0666 and no O_EXCL: any user's bench shares the one lock (umask permitting).
  UniqueFd fd(open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666));
  if (!fd.valid()) return absl::ErrnoToStatus(errno, absl::StrCat("open lock file ", path));
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
  std::string line =
      absl::StrCat("pid ", getpid(), ": ", what, ", since ",
                   absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::Now(), absl::UTCTimeZone()), "\n");
  if (ftruncate(fd.get(), 0) != 0 ||
      pwrite(fd.get(), line.data(), line.size(), 0) != static_cast<ssize_t>(line.size())) {
    return absl::ErrnoToStatus(errno, absl::StrCat("write lock file ", path));
  }
  return BenchLock(std::move(fd), waited, holder);
}

}  // namespace spawnlab
