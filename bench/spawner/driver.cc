// driver.cc: see driver.h.

#include "bench/spawner/driver.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace spawnlab {
namespace {

constexpr int64_t kMaxSpawnsPerRequest = 1000000;  // spawner_main.cc's limit

}  // namespace

absl::StatusOr<SpawnerDriver> SpawnerDriver::Start(const std::string& spawner,
                                                   std::vector<std::string> args) {
  absl::StatusOr<Process> p =
      Command(spawner).Args(std::move(args)).Stdin(Stdio::Pipe()).Stdout(Stdio::Pipe()).Start();
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

absl::StatusOr<SpawnerDriver> SpawnerDriver::Start(const std::string& spawner, SpawnMethod method,
                                                   const std::string& child) {
  return Start(spawner, {std::string(SpawnMethodName(method)), child});
}

absl::Status SpawnerDriver::Send(absl::string_view request) {
  // A spawner that died leaves a pipe with no reader: EPIPE, not a SIGPIPE
  // that would kill the bench.
  const ssize_t n = WriteWithoutSigpipe(process_.stdin_fd(), request.data(), request.size());
  const int saved = errno;
  if (n < 0 && saved == EPIPE) return absl::UnavailableError("the spawner has exited");
  if (n != static_cast<ssize_t>(request.size())) {
    return absl::ErrnoToStatus(saved, "write to the spawner");
  }
  return absl::OkStatus();
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
    char buf[4096];
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

absl::StatusOr<SpawnerTimes> SpawnerDriver::ReadTimes() {
  absl::StatusOr<std::string> line = ReadLine();
  if (!line.ok()) return line.status();
  SpawnerTimes t;
  std::vector<std::string> f = absl::StrSplit(*line, ' ');
  if (f.size() != 4 || !absl::SimpleAtoi(f[0], &t.to_start_ns) ||
      !absl::SimpleAtoi(f[1], &t.to_exit_ns) || !absl::SimpleAtoi(f[2], &t.instructions) ||
      !absl::SimpleAtoi(f[3], &t.child_faults)) {
    return absl::InternalError(absl::StrCat("the spawner said '", *line, "'"));
  }
  return t;
}

absl::StatusOr<SpawnerTimes> SpawnerDriver::SpawnOnce() {
  if (absl::Status s = Send("spawn\n"); !s.ok()) return s;
  return ReadTimes();
}

absl::StatusOr<SpawnerTimes> SpawnerDriver::SpawnOnce(SpawnMethod method, absl::string_view child) {
  if (child.find('\n') != absl::string_view::npos) {
    return absl::InvalidArgumentError("a child path with a newline");
  }
  if (absl::Status s = Send(absl::StrCat("spawn ", SpawnMethodName(method), " ", child, "\n"));
      !s.ok()) {
    return s;
  }
  return ReadTimes();
}

absl::StatusOr<std::vector<SpawnerTimes>> SpawnerDriver::ReadManyTimes(int64_t n) {
  std::vector<SpawnerTimes> times;
  times.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    absl::StatusOr<SpawnerTimes> t = ReadTimes();
    if (!t.ok()) return t.status();
    times.push_back(*t);
  }
  return times;
}

absl::StatusOr<std::vector<SpawnerTimes>> SpawnerDriver::Spawns(int64_t n) {
  if (n < 1 || n > kMaxSpawnsPerRequest) {
    return absl::InvalidArgumentError(
        absl::StrCat("spawns asked for ", n, ", not 1 to ", kMaxSpawnsPerRequest));
  }
  if (absl::Status s = Send(absl::StrCat("spawns ", n, "\n")); !s.ok()) return s;
  return ReadManyTimes(n);
}

absl::StatusOr<std::vector<SpawnerTimes>> SpawnerDriver::Spawns(int64_t n, SpawnMethod method,
                                                                absl::string_view child) {
  if (n < 1 || n > kMaxSpawnsPerRequest) {
    return absl::InvalidArgumentError(
        absl::StrCat("spawns asked for ", n, ", not 1 to ", kMaxSpawnsPerRequest));
  }
  if (child.find('\n') != absl::string_view::npos) {
    return absl::InvalidArgumentError("a child path with a newline");
  }
  if (absl::Status s =
          Send(absl::StrCat("spawns ", n, " ", SpawnMethodName(method), " ", child, "\n"));
      !s.ok()) {
    return s;
  }
  return ReadManyTimes(n);
}

absl::StatusOr<ParentShape> SpawnerDriver::Shape() {
  if (absl::Status s = Send("shape\n"); !s.ok()) return s;
  absl::StatusOr<std::string> line = ReadLine();
  if (!line.ok()) return line.status();
  ParentShape p;
  std::vector<std::string> f = absl::StrSplit(*line, ' ');
  if (f.size() != 5 || !absl::SimpleAtoi(f[0], &p.mappings) ||
      !absl::SimpleAtoi(f[1], &p.rss_kib) || !absl::SimpleAtoi(f[2], &p.pte_kib) ||
      !absl::SimpleAtoi(f[3], &p.threads) || !absl::SimpleAtod(f[4], &p.ballast_adjacent)) {
    return absl::InternalError(absl::StrCat("the spawner said '", *line, "' to shape"));
  }
  return p;
}

absl::Status SpawnerDriver::Nop() {
  if (absl::Status s = Send("nop\n"); !s.ok()) return s;
  absl::StatusOr<std::string> line = ReadLine();
  if (!line.ok()) return line.status();
  if (*line != "ok") return absl::InternalError(absl::StrCat("the spawner said '", *line, "'"));
  return absl::OkStatus();
}

}  // namespace spawnlab
