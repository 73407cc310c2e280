// bench.cc: does inlining change what a spawn costs? Does -O0 in the child?
//
//   bazel run //experiments/inline:bench [-- --quick]
//
// Its rows and how each is measured: README.md, "Rows and method".

#include "bench/bench.h"

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "bench/bench_spawn.h"
#include "lib/command.h"
#include "lib/probes.h"
#include "lib/runfiles.h"
#include "lib/spawn.h"
#include "bench/spawner/driver.h"
#include "bench/timed_spawn.h"

namespace spawnlab {
namespace {

void BM_Spawner(benchmark::State& state, std::string spawner, SpawnMethod method, std::string child,
                bool instructions) {
  if (instructions) {
    if (absl::Status s = ProbePerfInstructions(); !s.ok()) return SkipRow(state, s);
  }
  std::vector<std::string> args = {std::string(SpawnMethodName(method)), child};
  if (instructions) args.insert(args.begin(), "--count_instructions");
  absl::StatusOr<SpawnerDriver> driver = SpawnerDriver::Start(spawner, std::move(args));
  if (!driver.ok()) return FailRow(state, driver.status());
  const std::vector<SpawnerTimes> times = TimeInSpawner(
      state, *driver, instructions ? SpawnInterval::kInstructions : SpawnInterval::kToExit);
  if (instructions && !times.empty()) {
    double total = 0;
    for (const SpawnerTimes& t : times) total += static_cast<double>(t.instructions);
    state.counters["instructions"] = total / static_cast<double>(times.size());
  }
}

void BM_ChildOpt(benchmark::State& state, std::string child, bool until_start) {
  absl::StatusOr<TimedSpawner> spawner = TimedSpawner::Create(child);
  if (!spawner.ok()) return FailRow(state, spawner.status());
  TimeSpawns(state, *spawner, SpawnMethod::kVfork, until_start);
}

// One run of a command_build binary: its mean ns per build.
void BM_Build(benchmark::State& state, std::string builder, std::string program, int n) {
  for (auto _ : state) {
    absl::StatusOr<CommandResult> r = Command(builder)
                                          .Args({absl::StrCat(n), program})
                                          .Stdout(Stdio::Pipe())
                                          .Stderr(Stdio::Pipe())
                                          .Timeout(absl::Seconds(60))
                                          .Run();
    if (!r.ok()) return FailRow(state, r.status());
    double ns = 0;
    if (!r->status.success() || !absl::SimpleAtod(absl::StripAsciiWhitespace(r->out), &ns)) {
      return FailRow(state, absl::InternalError(absl::StrCat(builder, ": ", r->status.ToString(),
                                                             ": ", r->out, r->err)));
    }
    state.SetIterationTime(ns * 1e-9);
  }
}

void Register(const BenchOptions& options) {
  std::vector<RoundRow> rows;
  const std::string minimal = RunfileOrExit("lib/children/minimal_child");
  for (const char* inl : {"forbidden", "default", "forced"}) {
    const std::string spawner = RunfileOrExit(absl::StrCat("experiments/inline/spawner_", inl));
    for (SpawnMethod method : {SpawnMethod::kVfork, SpawnMethod::kFork}) {
      const std::string m(SpawnMethodName(method));
      for (bool instructions : {false, true}) {
        rows.push_back({instructions
                            ? absl::StrCat("instructions/inline:", inl, "/method:", m)
                            : absl::StrCat("spawn/inline:", inl, "/method:", m, "/until:exit"),
                        [spawner, method, minimal, instructions](benchmark::State& state) {
                          BM_Spawner(state, spawner, method, minimal, instructions);
                        }});
        // 1 "ns" is 1 instruction.
        if (instructions)
          rows.back().configure = [](benchmark::internal::Benchmark* b) {
            b->Unit(benchmark::kNanosecond);
          };
      }
    }
  }
  for (const char* opt : {"O0", "O2"}) {
    const std::string child = RunfileOrExit(absl::StrCat("experiments/inline/child_", opt));
    for (bool until_start : {true, false}) {
      rows.push_back(
          {absl::StrCat("exec/child-opt:", opt, "/until:", until_start ? "start" : "exit"),
           [child, until_start](benchmark::State& state) {
             BM_ChildOpt(state, child, until_start);
           }});
    }
  }
  for (const char* inl : {"forbidden", "default", "forced"}) {
    const std::string builder =
        RunfileOrExit(absl::StrCat("experiments/inline/command_build_", inl));
    const int n = options.quick ? 20000 : 200000;
    rows.push_back(
        {absl::StrCat("build/inline:", inl, "/op:command"),
         [builder, minimal, n](benchmark::State& state) { BM_Build(state, builder, minimal, n); },
         Clock::kManual,
         [](benchmark::internal::Benchmark* b) {
           b->Unit(benchmark::kNanosecond)->Iterations(1);
         }});
  }
  RegisterRound(options, std::move(rows));
}

// The bench's declaration: its rounds, canary and key ratios (bench.h: BenchDefaults).
BenchDefaults Declare() {
  BenchDefaults defaults;
  // Rounds: each round runs every row once, shuffled, so that each inlining
  // and each child's -O0 is compared with its default within a round.
  defaults.rounds = 25;  // a round is ~1 s
  defaults.ratio_baselines = {{"inline", "default"}, {"child-opt", "O2"}};
  // Drift: this row, once per round (README, "Noisy runs").
  defaults.canary_row = "spawn/inline:default/method:vfork/until:exit";
  return defaults;
}

}  // namespace
}  // namespace spawnlab

SPAWNLAB_BENCH_MAIN("inline", spawnlab::Register, spawnlab::Declare)
