// bench.cc: what placing a child in a cgroup costs a spawn, born there by
// CLONE_INTO_CGROUP (Linux 5.7) or moved there by the child itself through
// cgroup.procs before it execs (the way supervisors did before 5.7).
//
//   bazel run //experiments/cgroup_placement:bench [-- --quick]
//
// Its rows and how each is measured: README.md, "Rows and method".

#include "bench/bench.h"

#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/bench_spawn.h"
#include "lib/cgroup.h"
#include "lib/probes.h"
#include "lib/spawn.h"
#include "bench/timed_spawn.h"

namespace spawnlab {
namespace {

// The run's cgroup, made once at registration (null, with the reason in
// `cgroup_error`, where it cannot be).
std::unique_ptr<ScopedCgroup> cgroup;
absl::Status cgroup_error;

enum class Placement { kNone, kChildWritesProcs, kCloneIntoCgroup };

const char* PlacementName(Placement p) {
  switch (p) {
    case Placement::kNone:
      return "none";
    case Placement::kChildWritesProcs:
      return "child-writes-procs";
    case Placement::kCloneIntoCgroup:
      return "clone-into-cgroup";
  }
  return "unknown";
}

void BM_Place(benchmark::State& state, SpawnMethod method, Placement placement, std::string child) {
  absl::StatusOr<TimedSpawner> spawner = TimedSpawner::Create(child);
  if (!spawner.ok()) return FailRow(state, spawner.status());
  SpawnOptions options;
  options.want_pidfd = false;  // nothing polls the child
  if (placement != Placement::kNone) {
    if (placement == Placement::kCloneIntoCgroup) {
      if (absl::Status s = ProbeCloneIntoCgroup(); !s.ok()) return SkipRow(state, s);
    }
    if (cgroup == nullptr) return SkipRow(state, cgroup_error);
    options.cgroup_fd = cgroup->fd();
  }
  TimeSpawns(state, *spawner, method, /*until_start=*/false, options);
}

// The cgroup every placement row moves its children into, and what the run
// says of it; cgroup_error where it cannot be made (rows then skip).
void MakeCgroup() {
  absl::StatusOr<ScopedCgroup> made = ScopedCgroup::Create("spawnlab-cgroup_placement");
  if (made.ok()) {
    cgroup = std::make_unique<ScopedCgroup>(*std::move(made));
    // What the kernel does on a move depends on the controllers the cgroup
    // has (none on a hybrid host, whose controllers live in cgroup v1).
    std::ifstream in(cgroup->path() + "/cgroup.controllers");
    std::string controllers;
    std::getline(in, controllers);
    benchmark::AddCustomContext("cgroup_placement.cgroup", cgroup->path());
    benchmark::AddCustomContext("cgroup_placement.controllers",
                                controllers.empty() ? "none" : controllers);
  } else {
    cgroup_error = made.status();
    benchmark::AddCustomContext("cgroup_placement.cgroup",
                                absl::StrCat("none: ", cgroup_error.message()));
  }
}

// Called once per round (BenchDefaults::rounds): the cgroup is made in the
// first, and every round registers every row once, in its shuffled order.
void Register(const BenchOptions& options) {
  const std::string child = RunfileOrExit("lib/children/minimal_child");
  if (options.round == 0) MakeCgroup();
  const struct {
    SpawnMethod method;
    Placement placement;
  } rows[] = {
      {SpawnMethod::kFork, Placement::kNone},   {SpawnMethod::kFork, Placement::kChildWritesProcs},
      {SpawnMethod::kVfork, Placement::kNone},  {SpawnMethod::kVfork, Placement::kChildWritesProcs},
      {SpawnMethod::kClone3, Placement::kNone}, {SpawnMethod::kClone3, Placement::kCloneIntoCgroup},
  };
  std::vector<RoundRow> round;
  for (const auto& r : rows) {
    round.push_back({absl::StrCat("spawn/method:", SpawnMethodName(r.method),
                                  "/placement:", PlacementName(r.placement), "/until:exit"),
                     [r, child](benchmark::State& state) {
                       BM_Place(state, r.method, r.placement, child);
                     }});
  }
  RegisterRound(options, std::move(round));
}

// The bench's declaration: its rounds, canary and key ratios (bench.h: BenchDefaults).
BenchDefaults Declare() {
  BenchDefaults defaults;
  // In rounds: each measures every row once, in a shuffled order, so that a
  // row's repetition k and its baseline's ran in the same round (README,
  // "Reproducibility").
  defaults.rounds = 25;
  // Drift: this row, once per round (README, "Noisy runs").
  defaults.canary_row = "spawn/method:vfork/placement:none/until:exit";
  // Key ratios, each row over its baseline in the same round (README, "Reproducibility").
  defaults.ratio_baselines = {{"placement", "none"}};
  return defaults;
}

}  // namespace
}  // namespace spawnlab

SPAWNLAB_BENCH_MAIN("cgroup_placement", spawnlab::Register, spawnlab::Declare)
