// bench.cc: what does it cost to create a process on this machine and kernel,
// by each primitive the kernel offers, as the parent grows?
//
//   bazel run //experiments/clone3:bench [-- --quick] [-- --full]
//
// Rows: spawn/method:M/child:C/parent:P/until:U, measured in rounds inside
// spawner parents (bench/spawner) of each shape, with harness rows for the
// harness's own cost. Rows, parents, intervals and counters in full:
// README.md, "Rows and method".

#include "bench/bench.h"

#include <cstdint>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "lib/ballast.h"
#include "bench/bench_spawn.h"
#include "lib/probes.h"
#include "lib/spawn.h"
#include "bench/spawner/driver.h"
#include "results_model/context_keys.h"

namespace spawnlab {
namespace {

constexpr int64_t kGiBInMiB = 1024;

// The children's environment, as the spawners' --child_env takes it: none, as
// spawnbench's and lat_proc's children have (the caller's would add its own
// cost to every exec; spawner_main.cc).
constexpr char kChildEnvironment[] = "empty";

// How many times the run's minimum time per repetition the cross-checked
// 1 GiB fork rows run (Register): enough spawns per repetition of a fork that
// takes milliseconds for a median to mean something.
constexpr double kCrossCheckedMinTimeFactor = 12.5;

struct ChildKind {
  const char* name;
  const char* runfile;
};

const ChildKind kChildren[] = {
    {"static", "lib/children/static_child"},
    {"dynamic", "lib/children/dynamic_child"},
    {"dynamic-c", "lib/children/dynamic_c_child"},
    {"minimal", "lib/children/minimal_child"},
};

struct ParentKind {
  const char* name;
  const char* spawner;  // runfile
  std::vector<std::string> args;
  int64_t touched_mib;  // memory it needs to have free
};

const std::vector<ParentKind>& Parents() {
  static const auto* const parents = new std::vector<ParentKind>{
      {"minimal", "bench/spawner/spawner_minimal", {}, 0},
      {"cxx", "bench/spawner/spawner_cxx", {"--threads=1"}, 0},
      {"1g", "bench/spawner/spawner_minimal", {"--ballast_mib=1024"}, 0},
      {"1g-touched", "bench/spawner/spawner_minimal", {"--ballast_mib=1024", "--touch"}, kGiBInMiB},
      {"1g-touched-unplaced",
       "bench/spawner/spawner_minimal",
       {"--ballast_mib=1024", "--touch", "--unplaced"},
       kGiBInMiB},
      {"4g-touched",
       "bench/spawner/spawner_minimal",
       {"--ballast_mib=4096", "--touch"},
       4 * kGiBInMiB},
  };
  return *parents;
}

// The parents, each started on first use and kept to the end of the run.
struct LiveParent {
  absl::StatusOr<SpawnerDriver> driver = absl::UnknownError("not started");
  ParentShape shape{};
};
std::map<std::string, std::unique_ptr<LiveParent>>& LiveParents() {
  static auto* const live = new std::map<std::string, std::unique_ptr<LiveParent>>;
  return *live;
}

// The running spawner for `parent`, or why there is none (Unavailable if the
// machine lacks the memory: the row is then skipped, not failed).
absl::StatusOr<LiveParent*> GetParent(const ParentKind& parent) {
  std::unique_ptr<LiveParent>& live = LiveParents()[parent.name];
  if (live == nullptr) {
    live = std::make_unique<LiveParent>();
    const int64_t bytes = MemAvailableBytes();
    const int64_t available = bytes < 0 ? -1 : bytes >> 20;
    const int64_t needed = parent.touched_mib + 512;
    if (parent.touched_mib > 0 && available >= 0 && available < needed) {
      live->driver =
          absl::UnavailableError(absl::StrCat("parent ", parent.name, " needs ", needed,
                                              " MiB free; MemAvailable is ", available, " MiB"));
    } else {
      if (parent.touched_mib > 0) {
        std::cerr << "parent " << parent.name << ": touching " << parent.touched_mib << " MiB"
                  << std::endl;
      }
      std::vector<std::string> args = parent.args;
      args.push_back(absl::StrCat("--child_env=", kChildEnvironment));
      live->driver = SpawnerDriver::Start(RunfileOrExit(parent.spawner), std::move(args));
      if (live->driver.ok()) {
        absl::StatusOr<ParentShape> shape = live->driver->Shape();
        if (shape.ok()) {
          live->shape = *shape;
        } else {
          live->driver = shape.status();
        }
      }
    }
  }
  if (!live->driver.ok()) return live->driver.status();
  return live.get();
}

void BM_Spawn(benchmark::State& state, SpawnMethod method, std::string child,
              const ParentKind* parent, bool until_start) {
  if (method == SpawnMethod::kClone3 || method == SpawnMethod::kClone3Cow) {
    if (absl::Status s = ProbeClone3(); !s.ok()) return SkipRow(state, s);
  }
  absl::StatusOr<LiveParent*> p = GetParent(*parent);
  if (!p.ok())
    return absl::IsUnavailable(p.status()) ? SkipRow(state, p.status())
                                           : FailRow(state, p.status());
  if (TimeInSpawner(state, *(*p)->driver,
                    until_start ? SpawnInterval::kToStart : SpawnInterval::kToExit,
                    std::make_pair(method, child))
          .empty()) {
    return;
  }
  const ParentShape& shape = (*p)->shape;
  state.counters["parent_mappings"] = static_cast<double>(shape.mappings);
  state.counters["parent_rss_kib"] = static_cast<double>(shape.rss_kib);
  state.counters["parent_pte_kib"] = static_cast<double>(shape.pte_kib);
  state.counters["parent_threads"] = static_cast<double>(shape.threads);
  // Where a touched ballast lies in physical memory moves a fork
  // (lib/ballast.h): recorded where the frames can be read.
  if (shape.ballast_adjacent >= 0) state.counters["ballast_adjacent"] = shape.ballast_adjacent;
}

// The harness's own cost inside a measured interval: the two clock reads.
void BM_HarnessEmpty(benchmark::State& state) {
  for (auto _ : state) {
    const int64_t t0 = MonotonicNanos();
    const int64_t t1 = MonotonicNanos();
    state.SetIterationTime(static_cast<double>(t1 - t0) * 1e-9);
  }
}

// The protocol's cost: a request to the minimal parent and its answer. It is
// outside every measured interval (the parent times itself); shown so that a
// reader can see what a spawn row's wall time holds beyond the spawn.
void BM_SpawnerRoundtrip(benchmark::State& state) {
  absl::StatusOr<LiveParent*> p = GetParent(Parents()[0]);
  if (!p.ok()) return FailRow(state, p.status());
  for (auto _ : state) {
    const int64_t t0 = MonotonicNanos();
    absl::Status s = (*p)->driver->Nop();
    const int64_t t1 = MonotonicNanos();
    if (!s.ok()) {
      FailRow(state, s);
      break;
    }
    state.SetIterationTime(static_cast<double>(t1 - t0) * 1e-9);
  }
}

void Register(const BenchOptions& options) {
  if (options.round == 0) {  // Register runs once per round; the context is the run's
    benchmark::AddCustomContext(keys::kChildEnvironment, kChildEnvironment);
  }
  std::vector<std::string> paths;
  for (const ChildKind& c : kChildren) paths.push_back(RunfileOrExit(c.runfile));
  // The harness rows, then the spawn rows (each round measures them shuffled).
  std::vector<RoundRow> rows = {
      {"harness/op:empty", BM_HarnessEmpty, Clock::kManual,
       [](benchmark::internal::Benchmark* b) { b->Unit(benchmark::kNanosecond); }},
      {"harness/op:spawner-roundtrip", BM_SpawnerRoundtrip},
  };
  // The cross-check sets the fastest of 440 spawns per op beside the bench's
  // fastest, and at the run's minimum time a 1 GiB fork (tens of ms) gets one
  // spawn a repetition: 9 in all, whose fastest is no minimum. The copying
  // methods of the cross-checked parent and child run longer.
  auto cross_checked_min_time = [min_time = options.min_time * kCrossCheckedMinTimeFactor](
                                    benchmark::internal::Benchmark* b) { b->MinTime(min_time); };
  for (const ParentKind& parent : Parents()) {
    for (SpawnMethod method : AllSpawnMethods()) {
      for (size_t c = 0; c < std::size(kChildren); ++c) {
        for (bool until_start : {true, false}) {
          rows.push_back(
              {absl::StrCat("spawn/method:", SpawnMethodName(method), "/child:", kChildren[c].name,
                            "/parent:", parent.name, "/until:", until_start ? "start" : "exit"),
               [method, path = paths[c], parent = &parent, until_start](benchmark::State& state) {
                 BM_Spawn(state, method, path, parent, until_start);
               }});
          const absl::string_view m = SpawnMethodName(method);
          if ((m == "fork" || m == "clone3-cow") &&
              kChildren[c].name == absl::string_view("minimal") &&
              parent.name == absl::string_view("1g-touched")) {
            rows.back().configure = cross_checked_min_time;
          }
        }
      }
    }
  }
  RegisterRound(options, std::move(rows));
}

// The bench's declaration: its rounds, canary and key ratios (bench.h: BenchDefaults).
BenchDefaults Declare() {
  BenchDefaults defaults;
  // Many short rounds rather than few long ones, in the same time: more
  // rounds for each key ratio's median, and a round short enough that the
  // machine's bursts of slowness fall on fewer of its rows.
  defaults.rounds = 15;
  defaults.min_time = 0.01;
  defaults.ratio_baselines = {{"method", "vfork"}};
  defaults.canary_row = "spawn/method:vfork/child:minimal/parent:minimal/until:exit";
  // The spawners' CPU time is the bench's: stop them before the run's record.
  defaults.after_run = [] { LiveParents().clear(); };
  // The answer (report.json's "headline", compiled in): each primitive's cost
  // by the parent's size, to the child's first instruction (spawnbench's
  // interval), then the ratios a user asks for.
  // By default only the rows of that answer, and the canary; every child,
  // interval and parent with --full (the suite). Google Benchmark appends
  // "/manual_time" to the names it matches, hence no "$".
  defaults.default_rows =
      "^spawn/method:[a-z0-9_-]+/child:minimal/"
      "parent:(minimal|cxx|1g-touched|1g-touched-unplaced|4g-touched)/"
      "until:start|^spawn/method:vfork/child:minimal/parent:minimal/until:exit";
  defaults.max_seconds = 70;
  // --full: every row's fewest processes (each starts every parent), then
  // the answer's rows until their key ratios reach the target.
  defaults.full_max_seconds = 180;
  return defaults;
}

}  // namespace
}  // namespace spawnlab

SPAWNLAB_BENCH_MAIN("clone3", spawnlab::Register, spawnlab::Declare)
