// bench.cc: what does stripping a binary save when it is exec'd?
//
//   bazel run //experiments/strip:bench [-- --quick]
//
// Rows: exec/strip:S/cache:C/until:exit, the static child (lib/children/
// child.cc) built S = debug (-g3), default, stripped (-s), spawned by vfork
// and reaped, with the binary's pages C = warm (in the page cache) or cold
// (dropped with posix_fadvise before every exec, untimed; the row is skipped
// with the reason where they cannot be dropped). Counter: file_bytes.

#include "bench/bench.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "lib/page_cache.h"
#include "lib/runfiles.h"
#include "bench/timed_spawn.h"

namespace spawnlab {
namespace {

void BM_Exec(benchmark::State& state, std::string child, bool cold) {
  absl::StatusOr<TimedSpawner> spawner = TimedSpawner::Create(child);
  absl::StatusOr<PageCacheFile> file = PageCacheFile::Open(child);
  if (!spawner.ok()) return FailRow(state, spawner.status());
  if (!file.ok()) return FailRow(state, file.status());
  if (cold) {
    if (absl::Status s = file->Evict(); !s.ok()) return SkipRow(state, s);
  } else {
    absl::StatusOr<SpawnTimes> warm = spawner->Once(SpawnMethod::kVfork);
    if (!warm.ok()) return FailRow(state, warm.status());
  }
  for (auto _ : state) {
    if (cold) {
      if (absl::Status s = file->Evict(); !s.ok()) return SkipRow(state, s);
    }
    absl::StatusOr<SpawnTimes> t = spawner->Once(SpawnMethod::kVfork);
    if (!t.ok()) {
      FailRow(state, t.status());
      break;
    }
    state.SetIterationTime(static_cast<double>(t->to_exit_ns) * 1e-9);
  }
  state.counters["file_bytes"] = static_cast<double>(file->size());
}

// Called once per round (BenchDefaults::rounds): every round registers
// every row once, in its shuffled order.
void Register(const BenchOptions& options) {
  std::vector<RoundRow> rows;
  for (const char* variant : {"debug", "default", "stripped"}) {
    const std::string child = RunfileOrExit(absl::StrCat("experiments/strip/child_", variant));
    for (bool cold : {false, true}) {
      rows.push_back(
          {absl::StrCat("exec/strip:", variant, "/cache:", cold ? "cold" : "warm", "/until:exit"),
           [child, cold](benchmark::State& state) { BM_Exec(state, child, cold); }});
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
  defaults.canary_row = "exec/strip:default/cache:warm/until:exit";
  // Key ratios, each row over its baseline in the same round (README, "Reproducibility").
  defaults.ratio_baselines = {{"strip", "default"}};
  return defaults;
}

}  // namespace
}  // namespace spawnlab

SPAWNLAB_BENCH_MAIN("strip", spawnlab::Register, spawnlab::Declare)
