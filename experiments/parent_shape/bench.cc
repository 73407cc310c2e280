// bench.cc: what the shape of a parent (its mappings, its threads) costs a
// spawn, at the same resident size.
//
//   bazel run //experiments/parent_shape:bench [-- --quick]
//
// Its rows and how each is measured: README.md, "Rows and method".

#include "bench/bench.h"

#include <unistd.h>

#include <condition_variable>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "experiments/parent_shape/many_mappings.h"
#include "bench/bench_spawn.h"
#include "lib/proc_stat.h"
#include "lib/runfiles.h"
#include "lib/spawn.h"
#include "bench/timed_spawn.h"

namespace spawnlab {
namespace {

// Lines of /proc/self/maps: this process's mappings now.
int64_t Mappings() {
  std::ifstream in("/proc/self/maps");
  int64_t n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

// Nothing will poll the child: no pidfd to make and close.
SpawnOptions NoPidfd() {
  SpawnOptions options;
  options.want_pidfd = false;
  return options;
}

// n - 1 threads blocked on a condition variable until this goes.
class IdleThreads {
 public:
  explicit IdleThreads(int n) {
    for (int i = 1; i < n; ++i) {
      threads_.emplace_back([this] {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [this] { return done_; });
      });
    }
  }
  ~IdleThreads() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = true;
    }
    cv_.notify_all();
    for (std::thread& t : threads_) t.join();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::vector<std::thread> threads_;
};

void BM_Mappings(benchmark::State& state, SpawnMethod method, size_t n, std::string child) {
  absl::StatusOr<TimedSpawner> spawner = TimedSpawner::Create(child);
  if (!spawner.ok()) return FailRow(state, spawner.status());
  absl::StatusOr<ManyMappings> mappings = ManyMappings::Make(n);
  if (!mappings.ok()) return SkipRow(state, mappings.status());
  const int64_t maps = Mappings();
  TimeSpawns(state, *spawner, method, /*until_start=*/false, NoPidfd());
  state.counters["parent_mappings"] = static_cast<double>(maps);
}

void BM_Threads(benchmark::State& state, SpawnMethod method, int n, std::string child) {
  absl::StatusOr<TimedSpawner> spawner = TimedSpawner::Create(child);
  if (!spawner.ok()) return FailRow(state, spawner.status());
  IdleThreads threads(n);
  // The bench's own progress thread is there too: count what is.
  absl::StatusOr<ProcStat> self = ReadProcStat(getpid());
  const int64_t count = self.ok() ? self->threads : -1, maps = Mappings();
  TimeSpawns(state, *spawner, method, /*until_start=*/false, NoPidfd());
  state.counters["parent_threads"] = static_cast<double>(count);
  state.counters["parent_mappings"] = static_cast<double>(maps);
}

// Called once per round (BenchDefaults::rounds): every round registers
// every row once, in its shuffled order.
void Register(const BenchOptions& options) {
  const std::string child = RunfileOrExit("lib/children/minimal_child");
  std::vector<RoundRow> rows;
  for (SpawnMethod method : {SpawnMethod::kFork, SpawnMethod::kVfork}) {
    for (size_t n : {100, 1000, 10000, 60000}) {
      rows.push_back({absl::StrCat("spawn/method:", SpawnMethodName(method), "/mappings:", n,
                                   "/until:exit"),
                      [method, n, child](benchmark::State& state) {
                        BM_Mappings(state, method, n, child);
                      }});
    }
  }
  for (SpawnMethod method : {SpawnMethod::kFork, SpawnMethod::kVfork, SpawnMethod::kPosixSpawn}) {
    for (int n : {1, 16, 256}) {
      rows.push_back({absl::StrCat("spawn/method:", SpawnMethodName(method), "/parent-threads:", n,
                                   "/until:exit"),
                      [method, n, child](benchmark::State& state) {
                        BM_Threads(state, method, n, child);
                      }});
    }
  }
  RegisterRound(options, std::move(rows));
}

// The bench's declaration: its rounds, canary and key ratios (bench.h: BenchDefaults).
BenchDefaults Declare() {
  BenchDefaults defaults;
  // In rounds: each measures every row once, in a shuffled order, so that a
  // row's repetition k and its baseline's ran in the same round (README,
  // "Reproducibility").
  defaults.rounds = 25;
  // Drift: this row, once per round (README, "Noisy runs").
  defaults.canary_row = "spawn/method:vfork/parent-threads:1/until:exit";
  // Key ratios, each row over its baseline in the same round (README, "Reproducibility").
  defaults.ratio_baselines = {{"mappings", "100"}, {"parent-threads", "1"}, {"method", "vfork"}};
  return defaults;
}

}  // namespace
}  // namespace spawnlab

SPAWNLAB_BENCH_MAIN("parent_shape", spawnlab::Register, spawnlab::Declare)
