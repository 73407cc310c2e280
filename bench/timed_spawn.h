// timed_spawn.h: spawn a child of lib/children and measure the two intervals
// every spawn experiment reports.
//
// The child gets the write end of a pipe and writes its CLOCK_MONOTONIC
// reading there at its first instruction (minimal child) or main (the others).
// TimedSpawner::Once spawns it, reaps it, and returns the time from just
// before the spawn call to that reading (until:start, the spawnbench way) and
// to the reap (until:exit, lmbench's lat_proc). The pipe is made once.
//
// Example:
//
//   absl::StatusOr<spawnlab::TimedSpawner> s = spawnlab::TimedSpawner::Create(child_path);
//   absl::StatusOr<spawnlab::SpawnTimes> t = s->Once(spawnlab::SpawnMethod::kVfork);
//   state.SetIterationTime(t->to_exit_ns * 1e-9);

#ifndef SPAWNLAB_BENCH_TIMED_SPAWN_H_
#define SPAWNLAB_BENCH_TIMED_SPAWN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "lib/clock.h"
#include "lib/spawn.h"
#include "lib/unique_fd.h"

namespace spawnlab {

struct SpawnTimes {
  int64_t to_start_ns;  // spawn call to the child's first clock reading
  int64_t to_exit_ns;   // spawn call to the child reaped
};

class TimedSpawner {
 public:
  // `child` is run as `child CLOCK_FD [extra_args...]`.
  static absl::StatusOr<TimedSpawner> Create(const std::string& child,
                                             std::vector<std::string> extra_args = {});

  // One measured spawn. An error if the child fails, exits non-zero or writes
  // no clock reading.
  absl::StatusOr<SpawnTimes> Once(SpawnMethod method, const SpawnOptions& options = {});

  // Runs the child once, untimed, asking it for the count of its memory
  // mappings (lib/children/child.cc's "maps" mode).
  absl::StatusOr<int64_t> ChildMappings(SpawnMethod method);

  const ExecSpec& spec() const { return spec_; }

 private:
  TimedSpawner(UniqueFd read_end, UniqueFd inherited, ExecSpec spec, std::string child)
      : read_end_(std::move(read_end)),
        inherited_(std::move(inherited)),
        spec_(std::move(spec)),
        child_(std::move(child)) {}

  UniqueFd read_end_;   // O_CLOEXEC | O_NONBLOCK
  UniqueFd inherited_;  // the child's copy of the write end (no O_CLOEXEC)
  ExecSpec spec_;
  std::string child_;
};

}  // namespace spawnlab

#endif  // SPAWNLAB_BENCH_TIMED_SPAWN_H_
