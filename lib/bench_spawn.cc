// bench_spawn.cc: see bench_spawn.h.

#include "lib/bench_spawn.h"

#include "lib/bench.h"

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

}  // namespace spawnlab
