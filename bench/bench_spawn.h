// bench_spawn.h: the timing loops of spawn rows.
//
// TimeSpawns: spawns from the bench process itself (bench/timed_spawn.h), one
// untimed warm-up spawn, then one spawn per iteration of `state`, each
// iteration's time being until:start (the child's first clock reading) or
// until:exit (reaped). A failed spawn fails the row.
//
// TimeInSpawner: spawns from a parent of the row's shape (bench/spawner),
// untimed warm-up spawns (kWarmupSpawns of them, or as many as fit in
// kWarmupNanos, at least one), then all of the repetition's iterations in one
// request, spawned back to back inside the spawner as spawnbench's and
// lat_proc's loops run, and replayed into `state`. The warm-up is that long
// because a fork of a parent with 1 GiB touched, right after a row that forked
// one with 4 GiB, ran at 15-19 ms instead of 10.5 for its next two or three
// forks on this project's VM: with one warm-up spawn, 12-13 of 20 repetitions
// were measured in that state, with five none. spawnbench and lat_proc, which
// fork one parent back to back, never see it. It records the fastest
// single spawn as the counter `fastest_us` (over the run, its `min`
// aggregate is spawnbench's own minimum), and the page faults each child took
// in its life, before its exec and after, as `child_faults` (the mean over the
// repetition's spawns).
//
// Example:
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
// this time, whichever comes first (at least one).
inline constexpr int kWarmupSpawns = 5;
inline constexpr int64_t kWarmupNanos = 100'000'000;

void TimeSpawns(benchmark::State& state, TimedSpawner& spawner, SpawnMethod method,
                bool until_start, const SpawnOptions& options = {});

// What an iteration of a spawner row is: a time (SpawnerTimes' to_start_ns or
// to_exit_ns) or the spawn call's user-space instructions (the spawner started
// with --count_instructions), reported as if they were nanoseconds.
enum class SpawnInterval { kToStart, kToExit, kInstructions };

// The spawns of method and child `what` (or of the spawner's own, given at
// its start); returns their times, empty if the row failed (it is marked so).
std::vector<SpawnerTimes> TimeInSpawner(
    benchmark::State& state, SpawnerDriver& spawner, SpawnInterval interval,
    const std::optional<std::pair<SpawnMethod, std::string>>& what = std::nullopt);

}  // namespace spawnlab

#endif  // SPAWNLAB_BENCH_BENCH_SPAWN_H_
