// driver.cc: see driver.h.

#include "lib/spawner/driver.h"

#include <errno.h>
#include <poll.h>
#include <unistd.h>

#include <cstdio>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace spawnlab {

absl::StatusOr<SpawnerDriver> SpawnerDriver::Start(const std::string& spawner,
                                                   SpawnMethod method,
                                                   const std::string& child) {
  absl::StatusOr<Process> p = Command(spawner)
                                  .Args({std::string(SpawnMethodName(method)), child})
                                  .Stdin(Stdio::Pipe())
                                  .Stdout(Stdio::Pipe())
                                  .Start();
  if (!p.ok()) return p.status();
  SpawnerDriver driver(*std::move(p), -1);
  absl::StatusOr<std::string> ready = driver.ReadLine();
  if (!ready.ok()) return ready.status();
  std::vector<std::string> words = absl::StrSplit(*ready, ' ');
  if (words.size() != 2 || words[0] != "ready" || !absl::SimpleAtoi(words[1], &driver.mappings_)) {
    return absl::InternalError(absl::StrCat(spawner, " said '", *ready, "' instead of ready"));
  }
  return driver;
}

absl::StatusOr<std::string> SpawnerDriver::ReadLine() {
  while (true) {
    size_t nl = buffer_.find('\n');
    if (nl != std::string::npos) {
      std::string line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      return line;
    }
    struct pollfd pfd = {process_.stdout_fd(), POLLIN, 0};
    int r = poll(&pfd, 1, 60000);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return absl::ErrnoToStatus(errno, "poll on the spawner");
    if (r == 0) return absl::DeadlineExceededError("the spawner did not answer in 60 s");
    char buf[256];
    ssize_t n = read(process_.stdout_fd(), buf, sizeof(buf));
    if (n > 0) {
      buffer_.append(buf, static_cast<size_t>(n));
    } else if (n == 0) {
      return absl::UnavailableError("the spawner exited (see its stderr)");
    } else if (errno != EAGAIN && errno != EINTR) {
      return absl::ErrnoToStatus(errno, "read from the spawner");
    }
  }
}

absl::StatusOr<SpawnerTimes> SpawnerDriver::SpawnOnce() {
  static constexpr char kRequest[] = "spawn\n";
  if (write(process_.stdin_fd(), kRequest, sizeof(kRequest) - 1) != sizeof(kRequest) - 1) {
    return absl::ErrnoToStatus(errno, "write to the spawner");
  }
  absl::StatusOr<std::string> line = ReadLine();
  if (!line.ok()) return line.status();
  SpawnerTimes t;
  std::vector<std::string> f = absl::StrSplit(*line, ' ');
  if (f.size() != 3 || !absl::SimpleAtoi(f[0], &t.to_start_ns) ||
      !absl::SimpleAtoi(f[1], &t.to_exit_ns) || !absl::SimpleAtoi(f[2], &t.instructions)) {
    return absl::InternalError(absl::StrCat("the spawner said '", *line, "'"));
  }
  return t;
}

}  // namespace spawnlab
