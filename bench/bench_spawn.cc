// bench_spawn.cc: see bench_spawn.h.

#include "bench/bench_spawn.h"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "bench/bench.h"
#include "lib/clock.h"

namespace spawnlab {

void TimeSpawns(benchmark::State& state, TimedSpawner& spawner, SpawnMethod method,
                bool until_start, const SpawnOptions& options) {
  absl::StatusOr<SpawnTimes> warm = spawner.Once(method, options);
  if (!warm.ok()) return FailRow(state, warm.status());
  for (auto _ : state) {
    absl::StatusOr<SpawnTimes> t = spawner.Once(method, options);
    if (!t.ok()) {
      FailRow(state, t.status());
      break;
    }
    state.SetIterationTime(static_cast<double>(until_start ? t->to_start_ns : t->to_exit_ns) *
                           1e-9);
  }
}

std::vector<SpawnerTimes> TimeInSpawner(
    benchmark::State& state, SpawnerDriver& spawner, SpawnInterval interval,
    const std::optional<std::pair<SpawnMethod, std::string>>& what) {
  auto spawns = [&](int64_t n) {
    return what.has_value() ? spawner.Spawns(n, what->first, what->second) : spawner.Spawns(n);
  };
  // The warm-up (bench_spawn.h): the child's pages in the page cache, and
  // the machine out of the state the previous row left it in.
  const int64_t warm_start = MonotonicNanos();
  for (int k = 0; k < kWarmupSpawns; ++k) {
    if (absl::StatusOr<std::vector<SpawnerTimes>> warm = spawns(1); !warm.ok()) {
      FailRow(state, warm.status());
      return {};
    }
    if (MonotonicNanos() - warm_start >= kWarmupNanos) break;
  }
  // Google Benchmark runs exactly max_iterations: measured first, replayed.
  absl::StatusOr<std::vector<SpawnerTimes>> times =
      spawns(std::max<int64_t>(1, static_cast<int64_t>(state.max_iterations)));
  if (!times.ok()) {
    FailRow(state, times.status());
    return {};
  }
  int64_t fastest = std::numeric_limits<int64_t>::max();
  int64_t faults = 0;
  bool faults_known = !times->empty();
  for (const SpawnerTimes& t : *times) {
    faults += t.child_faults;
    faults_known = faults_known && t.child_faults >= 0;
  }
  size_t i = 0;
  for (auto _ : state) {
    const SpawnerTimes& t = (*times)[std::min(i++, times->size() - 1)];
    const int64_t value = interval == SpawnInterval::kToStart  ? t.to_start_ns
                          : interval == SpawnInterval::kToExit ? t.to_exit_ns
                                                               : t.instructions;
    fastest = std::min(fastest, value);
    state.SetIterationTime(static_cast<double>(value) * 1e-9);
  }
  if (interval != SpawnInterval::kInstructions && i > 0) {
    state.counters["fastest_us"] = static_cast<double>(fastest) / 1e3;
  }
  if (faults_known) {
    state.counters["child_faults"] =
        static_cast<double>(faults) / static_cast<double>(times->size());
  }
  return *std::move(times);
}

}  // namespace spawnlab
