// timed_spawn.cc: see timed_spawn.h.

#include "bench/timed_spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include "absl/strings/str_cat.h"

namespace spawnlab {

absl::StatusOr<TimedSpawner> TimedSpawner::Create(const std::string& child,
                                                  std::vector<std::string> extra_args) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) return absl::ErrnoToStatus(errno, "pipe2");
  UniqueFd read_end(fds[0]), write_end(fds[1]);
  UniqueFd inherited(fcntl(write_end.get(), F_DUPFD, 3));
  if (!inherited.valid()) return absl::ErrnoToStatus(errno, "F_DUPFD");
  std::vector<std::string> argv = {child, absl::StrCat(inherited.get())};
  argv.insert(argv.end(), extra_args.begin(), extra_args.end());
  return TimedSpawner(std::move(read_end), std::move(inherited), ExecSpec(child, argv), child);
}

absl::StatusOr<SpawnTimes> TimedSpawner::Once(SpawnMethod method, const SpawnOptions& options) {
  const int64_t t0 = MonotonicNanos();
  absl::StatusOr<Child> child = Spawn(method, spec_, options);
  if (!child.ok()) return child.status();
  absl::StatusOr<ExitStatus> status = child->Wait();
  const int64_t t1 = MonotonicNanos();
  if (!status.ok()) return status.status();
  if (!status->success()) {
    return absl::InternalError(absl::StrCat(child_, " ended with ", status->ToString()));
  }
  int64_t child_clock;
  if (read(read_end_.get(), &child_clock, sizeof(child_clock)) != sizeof(child_clock)) {
    return absl::DataLossError(absl::StrCat(child_, " wrote no clock reading"));
  }
  return SpawnTimes{child_clock - t0, t1 - t0};
}

absl::StatusOr<int64_t> TimedSpawner::ChildMappings(SpawnMethod method) {
  ExecSpec spec(child_, {child_, absl::StrCat(inherited_.get()), "0", "maps"});
  absl::StatusOr<Child> child = Spawn(method, spec);
  if (!child.ok()) return child.status();
  absl::StatusOr<ExitStatus> status = child->Wait();
  if (!status.ok()) return status.status();
  int64_t values[2];
  if (!status->success() || read(read_end_.get(), values, sizeof(values)) != sizeof(values)) {
    return absl::DataLossError(absl::StrCat(child_, " did not report its mappings"));
  }
  return values[1];
}

}  // namespace spawnlab
