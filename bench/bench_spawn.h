// bench_spawn.h: the timing loops of spawn rows: TimeSpawns from the bench
// process itself, TimeInSpawner from a parent of the row's shape
// (bench/spawner). Both time until:start (the child's first clock reading) or
// until:exit (reaped), warm up untimed first, and fail the row on a failed
// spawn.
//
//   void BM_Exec(benchmark::State& state, std::string child, bool until_start) {
//     absl::StatusOr<spawnlab::TimedSpawner> s = spawnlab::TimedSpawner::Create(child);
//     if (!s.ok()) return spawnlab::FailRow(state, s.status());
//     spawnlab::TimeSpawns(state, *s, spawnlab::SpawnMethod::kVfork, until_start);
//   }
//
//   void BM_Parent(benchmark::State& state, spawnlab::SpawnerDriver& parent) {
//     spawnlab::TimeInSpawner(state, parent, spawnlab::SpawnInterval::kToExit);
//   }

#ifndef SPAWNLAB_BENCH_BENCH_SPAWN_H_
#define SPAWNLAB_BENCH_BENCH_SPAWN_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "benchmark/benchmark.h"
#include "lib/spawn.h"
#include "bench/spawner/driver.h"
#include "bench/timed_spawn.h"

namespace spawnlab {

// TimeInSpawner's warm-up: this many untimed spawns, or as many as fit in
// this time, whichever comes first (at least one). More than one: a fork just
// after a row that forked a larger parent runs slow for its next few forks,
// a state spawnbench and lat_proc, which fork one parent back to back, never
// see.
inline constexpr int kWarmupSpawns = 5;
inline constexpr int64_t kWarmupNanos = 100'000'000;

// One untimed warm-up spawn, then one spawn per iteration of `state`.
void TimeSpawns(benchmark::State& state, TimedSpawner& spawner, SpawnMethod method,
                bool until_start, const SpawnOptions& options = {});

// What an iteration of a spawner row is: a time (SpawnerTimes' to_start_ns or
// to_exit_ns) or the spawn call's user-space instructions (the spawner started
// with --count_instructions), reported as if they were nanoseconds.
enum class SpawnInterval { kToStart, kToExit, kInstructions };

// The spawns of method and child `what` (or of the spawner's own, given at
// its start): after the warm-up, all of the repetition's iterations in one
// request, spawned back to back inside the spawner as spawnbench's and
// lat_proc's loops run, and replayed into `state`. Records the fastest spawn
// as the counter `fastest_us` (its `min` aggregate is spawnbench's minimum)
// and the page faults of each child's life as `child_faults` (the mean).
// Returns their times, empty if the row failed (it is marked so).
std::vector<SpawnerTimes> TimeInSpawner(
    benchmark::State& state, SpawnerDriver& spawner, SpawnInterval interval,
    const std::optional<std::pair<SpawnMethod, std::string>>& what = std::nullopt);

}  // namespace spawnlab

#endif  // SPAWNLAB_BENCH_BENCH_SPAWN_H_
