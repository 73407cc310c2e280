// bench.cc: what does the way a program is linked cost when it is spawned,
// and what does the way its *parent* is linked cost the spawn?
//
//   bazel run //experiments/linking:bench [-- --quick]
//
// Its rows and how each is measured: README.md, "Rows and method".

#include "bench/bench.h"

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/bench_spawn.h"
#include "lib/runfiles.h"
#include "lib/spawn.h"
#include "bench/spawner/driver.h"
#include "lib/syscall_count.h"
#include "bench/timed_spawn.h"

namespace spawnlab {
namespace {

// The child's counters, measured once per variant (ptrace is slow).
struct ChildCounters {
  int64_t mappings = -1;
  absl::StatusOr<int> syscalls = 0;
};

const ChildCounters& CountersFor(const std::string& child, TimedSpawner& spawner) {
  static auto* cache = new std::map<std::string, ChildCounters>;
  auto it = cache->find(child);
  if (it != cache->end()) return it->second;
  ChildCounters c;
  absl::StatusOr<int64_t> maps = spawner.ChildMappings(SpawnMethod::kVfork);
  if (maps.ok()) c.mappings = *maps;
  c.syscalls = CountSyscalls(ExecSpec(child, {child}));
  return (*cache)[child] = c;
}

void BM_ChildExec(benchmark::State& state, std::string child, bool until_start) {
  absl::StatusOr<TimedSpawner> spawner = TimedSpawner::Create(child);
  if (!spawner.ok()) return FailRow(state, spawner.status());
  const ChildCounters& counters = CountersFor(child, *spawner);
  TimeSpawns(state, *spawner, SpawnMethod::kVfork, until_start);
  if (counters.mappings >= 0) state.counters["mappings"] = static_cast<double>(counters.mappings);
  if (counters.syscalls.ok()) state.counters["syscalls"] = *counters.syscalls;
}

void BM_ParentSpawn(benchmark::State& state, std::string parent, SpawnMethod method,
                    std::string child) {
  absl::StatusOr<SpawnerDriver> driver = SpawnerDriver::Start(parent, method, child);
  if (!driver.ok()) return FailRow(state, driver.status());
  if (TimeInSpawner(state, *driver, SpawnInterval::kToExit).empty()) return;
  state.counters["parent_mappings"] = static_cast<double>(driver->parent_mappings());
}

void Register(const BenchOptions& options) {
  std::vector<RoundRow> rows;
  for (const char* link : {"static", "static-pie", "dynamic", "dynamic-many"}) {
    const std::string child = RunfileOrExit(absl::StrCat("experiments/linking/child_", link));
    for (bool until_start : {true, false}) {
      rows.push_back(
          {absl::StrCat("exec/child-link:", link, "/until:", until_start ? "start" : "exit"),
           [child, until_start](benchmark::State& state) {
             BM_ChildExec(state, child, until_start);
           }});
    }
  }
  if (options.round == 0) {
    absl::Status ptrace = CountSyscalls(ExecSpec("/bin/true", {"true"})).status();
    benchmark::AddCustomContext("linking.syscall_counter",
                                ptrace.ok() ? "ptrace" : std::string(ptrace.message()));
  }
  const std::string minimal = RunfileOrExit("lib/children/minimal_child");
  for (const char* link : {"static", "dynamic"}) {
    // The static parent is clone3's parent:minimal; the dynamic one this
    // experiment's own, with every Abseil and re2 shared object mapped.
    const std::string parent =
        RunfileOrExit(std::string(link) == "static" ? "bench/spawner/spawner_minimal"
                                                    : "experiments/linking/parent_dynamic");
    for (SpawnMethod method : {SpawnMethod::kFork, SpawnMethod::kVfork}) {
      rows.push_back({absl::StrCat("spawn/parent-link:", link, "/method:", SpawnMethodName(method),
                                   "/until:exit"),
                      [parent, method, minimal](benchmark::State& state) {
                        BM_ParentSpawn(state, parent, method, minimal);
                      }});
    }
  }
  RegisterRound(options, std::move(rows));
}

// The bench's declaration: its rounds, canary and key ratios (bench.h: BenchDefaults).
BenchDefaults Declare() {
  BenchDefaults defaults;
  // Rounds: each round runs every row once, shuffled, so that each variant's
  // ratio to its static baseline is taken within a round, drift cancelled.
  defaults.rounds = 25;  // a round is ~1 s
  defaults.ratio_baselines = {{"child-link", "static"}, {"parent-link", "static"}};
  // Drift: this row, once per round (README, "Noisy runs").
  defaults.canary_row = "spawn/parent-link:static/method:vfork/until:exit";
  return defaults;
}

}  // namespace
}  // namespace spawnlab

SPAWNLAB_BENCH_MAIN("linking", spawnlab::Register, spawnlab::Declare)
