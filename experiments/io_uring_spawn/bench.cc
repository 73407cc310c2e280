// bench.cc: spawn a batch of children, then reap them: which way of reaping
// costs least, and can io_uring spawn as well as reap?
//
//   bazel run //experiments/io_uring_spawn:bench [-- --quick]
//
// Its rows and how each is measured: README.md, "Rows and method".

#include "bench/bench.h"

#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "experiments/io_uring_spawn/reap.h"
#include "lib/probes.h"
#include "lib/runfiles.h"
#include "lib/spawn.h"

namespace spawnlab {
namespace {

std::string child;

absl::Status SpawnBatch(int n, SpawnMethod method, bool pidfds, Batch* batch) {
  ExecSpec spec(child, {child});
  SpawnOptions options;
  options.want_pidfd = pidfds;
  for (int i = 0; i < n; ++i) {
    absl::StatusOr<Child> c = Spawn(method, spec, options);
    if (!c.ok()) return c.status();
    UniqueFd pidfd = c->TakePidfd();
    batch->Add(c->Release(), std::move(pidfd));
  }
  return absl::OkStatus();
}

// How many of the batch's children are zombies now (state Z in
// /proc/PID/stat; a reaped child has no entry).
int Zombies(const Batch& batch) {
  int zombies = 0;
  for (size_t i = 0; i < batch.size(); ++i) {
    std::ifstream stat(absl::StrCat("/proc/", batch.pid(i), "/stat"));
    std::string line;
    if (!std::getline(stat, line)) continue;
    const size_t paren = line.rfind(')');  // the name may hold spaces and parentheses
    if (paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] == 'Z') ++zombies;
  }
  return zombies;
}

// Spawns the batch and waits until each child has exited, reaping none.
void BM_NoReap(benchmark::State& state, int n) {
  double zombies = 0;
  for (auto _ : state) {
    Batch batch;
    const int64_t t0 = MonotonicNanos();
    absl::Status s = SpawnBatch(n, SpawnMethod::kVfork, /*pidfds=*/false, &batch);
    for (size_t i = 0; s.ok() && i < batch.size(); ++i) {
      siginfo_t info;
      while (waitid(P_PID, batch.pid(i), &info, WEXITED | WNOWAIT) != 0) {
        if (errno != EINTR) {
          s = absl::ErrnoToStatus(errno, absl::StrCat("waitid(", batch.pid(i), ", WNOWAIT)"));
          break;
        }
      }
    }
    const int64_t t1 = MonotonicNanos();
    if (!s.ok()) return FailRow(state, s);
    zombies += Zombies(batch);
    for (size_t i = 0; i < batch.size(); ++i) {  // now reaped, outside the interval
      int status;
      if (waitpid(batch.pid(i), &status, 0) == batch.pid(i)) batch.MarkReaped(i);
    }
    state.SetIterationTime(static_cast<double>(t1 - t0) * 1e-9 / n);
  }
  const double children = static_cast<double>(state.iterations()) * n;
  if (children > 0) state.counters["zombies_per_child"] = zombies / children;
}

void BM_Reap(benchmark::State& state, ReapStrategy strategy, SpawnMethod method, int n) {
  absl::StatusOr<std::unique_ptr<Reaper>> reaper = Reaper::Create(strategy, n);
  if (!reaper.ok()) return SkipRow(state, reaper.status());
  const bool pidfds = NeedsPidfds(strategy);
  if (pidfds && method != SpawnMethod::kClone3) {
    return FailRow(state, absl::InvalidArgumentError("pidfds need clone3"));
  }
  if (method == SpawnMethod::kClone3) {
    if (absl::Status s = ProbeClonePidfd(); !s.ok()) return SkipRow(state, s);
  }
  {  // warm-up
    Batch warm;
    if (absl::Status s = SpawnBatch(1, method, pidfds, &warm); !s.ok()) return FailRow(state, s);
    if (absl::Status s = (*reaper)->ReapAll(warm); !s.ok()) return FailRow(state, s);
  }
  double reap_ns = 0, total_ns = 0, zombies = 0;
  for (auto _ : state) {
    Batch batch;
    const int64_t t0 = MonotonicNanos();
    absl::Status s = SpawnBatch(n, method, pidfds, &batch);
    const int64_t t1 = MonotonicNanos();
    if (s.ok()) s = (*reaper)->ReapAll(batch);
    const int64_t t2 = MonotonicNanos();
    if (!s.ok()) return FailRow(state, s);
    zombies += Zombies(batch);  // outside the interval
    reap_ns += static_cast<double>(t2 - t1);
    total_ns += static_cast<double>(t2 - t0);
    state.SetIterationTime(static_cast<double>(t2 - t0) * 1e-9 / n);
  }
  const double children = static_cast<double>(state.iterations()) * n;
  if (children > 0) {
    state.counters["reap_ns_per_child"] = reap_ns / children;
    state.counters["children_per_s"] = children / (total_ns * 1e-9);
    state.counters["zombies_per_child"] = zombies / children;
  }
}

// Spawning through io_uring needs opcodes mainline Linux does not have.
void BM_IoUringSpawn(benchmark::State& state) {
  if (absl::Status s = ProbeIoUring(); !s.ok()) return SkipRow(state, s);
  absl::Status beyond = ProbeIoUringOpcode(255);
  SkipRow(state, absl::UnimplementedError(absl::StrCat(
                     "IORING_OP_CLONE and IORING_OP_EXEC are not in mainline Linux (Triplett's "
                     "io_uring_spawn patches, LPC 2022), so there is no opcode to probe: ",
                     beyond.message())));
}

// Called once per round (BenchDefaults::rounds): every round registers
// every row once, in its shuffled order.
void Register(const BenchOptions& options) {
  child = RunfileOrExit("lib/children/minimal_child");
  // The row's time is per child, so a minimum time would mean a hundred
  // batches of 128 per repetition: a fixed number of batches instead, about
  // 256 children's worth (16 with --quick).
  auto batches = [&](int n) { return std::max(1, (options.quick ? 16 : 256) / n); };
  std::vector<RoundRow> rows;
  // n: the row's children per batch (0: it spawns none).
  auto add = [&](std::string name, int n, auto fn, auto... args) {
    RoundRow row{std::move(name), [fn, args...](benchmark::State& state) { fn(state, args...); }};
    if (n > 0) {
      row.configure = [iterations = batches(n)](benchmark::internal::Benchmark* b) {
        b->Iterations(iterations);
      };
    }
    rows.push_back(std::move(row));
  };
  for (ReapStrategy s : AllReapStrategies()) {
    for (int n : {1, 16, 128}) {
      add(absl::StrCat("reap/strategy:", ReapStrategyName(s), "/children:", n), n, BM_Reap, s,
          SpawnMethod::kClone3, n);
    }
  }
  add("reap/strategy:none/children:16", 16, BM_NoReap, 16);
  add("spawn/method:vfork/children:16", 16, BM_Reap, ReapStrategy::kWaitpid, SpawnMethod::kVfork,
      16);
  add("spawn/method:io_uring/children:16", 0, BM_IoUringSpawn);
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
  defaults.canary_row = "spawn/method:vfork/children:16";
  // Key ratios, each row over its baseline in the same round (README, "Reproducibility").
  defaults.ratio_baselines = {{"strategy", "waitpid"}, {"method", "vfork"}};
  return defaults;
}

}  // namespace
}  // namespace spawnlab

SPAWNLAB_BENCH_MAIN("io_uring_spawn", spawnlab::Register, spawnlab::Declare)
