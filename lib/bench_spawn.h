// bench_spawn.h: the timing loop of a spawn row.
//
// One untimed warm-up spawn, then one spawn per iteration of `state`, each
// iteration's time being until:start (the child's first clock reading) or
// until:exit (reaped). A failed spawn fails the row.
//
// Example:
//
//   void BM_Exec(benchmark::State& state, std::string child, bool until_start) {
//     absl::StatusOr<spawnlab::TimedSpawner> s = spawnlab::TimedSpawner::Create(child);
//     if (!s.ok()) return spawnlab::FailRow(state, s.status());
//     spawnlab::TimeSpawns(state, *s, spawnlab::SpawnMethod::kVfork, until_start);
//   }

#ifndef SPAWNLAB_LIB_BENCH_SPAWN_H_
#define SPAWNLAB_LIB_BENCH_SPAWN_H_

#include "benchmark/benchmark.h"
#include "lib/spawn.h"
#include "lib/timed_spawn.h"

namespace spawnlab {

void TimeSpawns(benchmark::State& state, TimedSpawner& spawner, SpawnMethod method,
                bool until_start, const SpawnOptions& options = {});

}  // namespace spawnlab

#endif  // SPAWNLAB_LIB_BENCH_SPAWN_H_
