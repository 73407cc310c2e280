// bench.cc: what does it cost to create a process on this machine and kernel,
// by each primitive the kernel offers, as the parent grows?
//
//   bazel run //experiments/clone3:bench [-- --quick] [-- --benchmark_filter=parent:small]
//
// Rows: spawn/method:M/child:C/parent:P/until:U
//   M  fork, vfork, clone, clone3, clone3-cow, posix_spawn   (lib/spawn.h)
//   C  static, dynamic, minimal                              (lib/children)
//   P  small (no ballast), 1g (1 GiB mapped, untouched), 1g-touched, 4g-touched
//   U  start: from just before the spawn call to the child's own clock reading
//             (at _start for minimal, at main for the others): the spawnbench way;
//      exit:  from the same instant to the child reaped (lmbench's lat_proc).
// and harness/op:empty: the two clock reads that bracket every measurement,
// with nothing between them: the harness's own cost.
//
// Each iteration spawns one child and reaps it; the first spawn of a row is a
// warm-up and not timed. Times are manual (UseManualTime), per spawn.

#include <cstdint>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "lib/ballast.h"
#include "lib/bench.h"
#include "lib/bench_spawn.h"
#include "lib/probes.h"
#include "lib/runfiles.h"
#include "lib/spawn.h"
#include "lib/timed_spawn.h"

ABSL_FLAG(std::string, static_child, "", "Path of the static child (default: from runfiles).");
ABSL_FLAG(std::string, dynamic_child, "", "Path of the dynamic child (default: from runfiles).");
ABSL_FLAG(std::string, minimal_child, "", "Path of the minimal child (default: from runfiles).");

namespace spawnlab {
namespace {

constexpr size_t kGiB = size_t{1} << 30;

struct ChildKind {
  const char* name;
  const char* runfile;
  absl::Flag<std::string>* flag;
};

const ChildKind kChildren[] = {
    {"static", "lib/children/static_child", &FLAGS_static_child},
    {"dynamic", "lib/children/dynamic_child", &FLAGS_dynamic_child},
    {"minimal", "lib/children/minimal_child", &FLAGS_minimal_child},
};

struct ParentSize {
  const char* name;
  size_t bytes;
  bool touch;
};

const ParentSize kParents[] = {
    {"small", 0, false},
    {"1g", 1 * kGiB, false},
    {"1g-touched", 1 * kGiB, true},
    {"4g-touched", 4 * kGiB, true},
};

// The parent's current ballast; rows are registered parent by parent, so it
// changes only three times in a full run.
Ballast& CurrentBallast() {
  static Ballast* const ballast = new Ballast;
  return *ballast;
}
const ParentSize* current_parent = &kParents[0];

int64_t MemAvailableBytes() {
  std::ifstream in("/proc/meminfo");
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> f = absl::StrSplit(line, ' ', absl::SkipEmpty());
    int64_t kib;
    if (f.size() >= 2 && f[0] == "MemAvailable:" && absl::SimpleAtoi(f[1], &kib)) {
      return kib * 1024;
    }
  }
  return -1;
}

// Grows (or shrinks) the parent to `parent`. Unavailable if the machine lacks
// the memory (the row is then skipped, not failed).
absl::Status EnsureParent(const ParentSize& parent) {
  if (current_parent == &parent) return absl::OkStatus();
  CurrentBallast() = Ballast();  // give the old ballast back first
  current_parent = &kParents[0];
  if (parent.bytes == 0) {
    current_parent = &parent;
    return absl::OkStatus();
  }
  const int64_t available = MemAvailableBytes();
  const int64_t needed = static_cast<int64_t>(parent.bytes) + static_cast<int64_t>(kGiB / 2);
  if (parent.touch && available >= 0 && available < needed) {
    return absl::UnavailableError(absl::StrCat("parent ", parent.name, " needs ", needed >> 20,
                                               " MiB free; MemAvailable is ", available >> 20,
                                               " MiB"));
  }
  std::cerr << "parent: " << parent.name << " (" << (parent.bytes >> 20) << " MiB"
            << (parent.touch ? ", touching every page" : ", untouched") << ")" << std::endl;
  absl::StatusOr<Ballast> b = Ballast::Create(parent.bytes, parent.touch);
  if (!b.ok()) return b.status();
  CurrentBallast() = *std::move(b);
  current_parent = &parent;
  return absl::OkStatus();
}

void BM_Spawn(benchmark::State& state, SpawnMethod method, std::string child_path,
              const ParentSize* parent, bool until_start) {
  if (method == SpawnMethod::kClone3 || method == SpawnMethod::kClone3Cow) {
    if (absl::Status s = ProbeClonePidfd(); !s.ok()) return SkipRow(state, s);
  }
  if (absl::Status s = EnsureParent(*parent); !s.ok()) {
    return absl::IsUnavailable(s) ? SkipRow(state, s) : FailRow(state, s);
  }
  absl::StatusOr<TimedSpawner> spawner = TimedSpawner::Create(child_path);
  if (!spawner.ok()) return FailRow(state, spawner.status());
  TimeSpawns(state, *spawner, method, until_start);
}

// The harness's own cost inside a measured interval: the two clock reads.
void BM_HarnessEmpty(benchmark::State& state) {
  for (auto _ : state) {
    const int64_t t0 = MonotonicNanos();
    const int64_t t1 = MonotonicNanos();
    state.SetIterationTime(static_cast<double>(t1 - t0) * 1e-9);
  }
}

void Register(const BenchOptions& options) {
  Configure(benchmark::RegisterBenchmark("harness/op:empty", BM_HarnessEmpty), options)
      ->Unit(benchmark::kNanosecond);
  std::vector<std::string> paths;
  for (const ChildKind& c : kChildren) {
    std::string path = absl::GetFlag(*c.flag);
    if (path.empty()) path = RunfileOrExit(c.runfile);
    paths.push_back(path);
  }
  for (const ParentSize& parent : kParents) {
    for (SpawnMethod method : AllSpawnMethods()) {
      for (size_t c = 0; c < std::size(kChildren); ++c) {
        for (bool until_start : {true, false}) {
          std::string name =
              absl::StrCat("spawn/method:", SpawnMethodName(method), "/child:", kChildren[c].name,
                           "/parent:", parent.name, "/until:", until_start ? "start" : "exit");
          Configure(benchmark::RegisterBenchmark(name.c_str(), BM_Spawn, method, paths[c],
                                                 &parent, until_start),
                    options);
        }
      }
    }
  }
}

}  // namespace
}  // namespace spawnlab

int main(int argc, char** argv) {
  return spawnlab::BenchMain(argc, argv, "clone3", spawnlab::Register);
}
