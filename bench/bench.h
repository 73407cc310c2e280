// bench.h: the main() every spawnlab bench shares (SPAWNLAB_BENCH_MAIN).
//
// BenchMain runs a bench in rounds (every row once per round, shuffled), in
// fresh processes, under the machine's bench lock; it writes one results file
// whole or not at all, with the run's conditions in its context, and ends with
// the rows and the key ratios. Exit codes: 2 for usage, 1 for a failed row; a
// row the machine cannot run is skipped (SkipRow). Flags: --help.
//
//   void BM_Nothing(benchmark::State& state) { for (auto _ : state) benchmark::DoNotOptimize(0); }
//   void Register(const spawnlab::BenchOptions& options) {  // once per round
//     spawnlab::RegisterRound(options, {{"nothing/op:none", BM_Nothing, spawnlab::Clock::kLibrary}});
//   }
//   BenchDefaults Declare() { BenchDefaults d; d.canary_row = "nothing/op:none"; return d; }
//   SPAWNLAB_BENCH_MAIN("foo", spawnlab::Register, spawnlab::Declare)

#ifndef SPAWNLAB_BENCH_BENCH_H_
#define SPAWNLAB_BENCH_BENCH_H_

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "benchmark/benchmark.h"
#include "bench/bench_processes.h"
#include "bench/headline.h"  // RunProcesses
#include "results_model/bench_results.h"  // kSkippedPrefix
#include "lib/clock.h"          // MonotonicNanos
#include "lib/runfiles.h"       // RunfileOrExit, for registration functions
#include "nlohmann/json.hpp"

namespace spawnlab {

struct BenchOptions {
  bool quick = false;
  // The run's minimum time per repetition, in seconds (--benchmark_min_time,
  // else the bench's default): for a row that needs a multiple of it.
  double min_time = 0;
  // For benches that run in rounds (BenchDefaults::rounds): the round being
  // registered (0-based) and how many there are. Register every row once per
  // call, in an order shuffled by `round` (ShuffleForRound), and, in round 0,
  // name the rows in their natural order in `*row_order`, the order reports
  // list them in.
  int round = 0;
  int rounds = 1;
  std::vector<std::string>* row_order = nullptr;
  // In a run made of several processes (--processes), the rounds the earlier
  // processes ran: RegisterRound shuffles round `round` as round
  // `round + shuffle_offset`, so that no two processes repeat one order.
  int shuffle_offset = 0;
  // A run of the answer's rows only (BenchDefaults::default_rows): the
  // pattern RegisterRound registers rows by; empty, every row.
  std::string row_filter;
  // The bench's command line as main() received it, for a row that measures
  // reading it.
  int argc = 0;
  char** argv = nullptr;
};

// `items` in the order round `round` measures them: shuffled, the same order
// for the same round on every run (seeded by the round).
template <typename T>
void ShuffleForRound(std::vector<T>& items, int round) {
  std::mt19937 g(static_cast<uint32_t>(round) * 2654435761u + 1);
  std::shuffle(items.begin(), items.end(), g);
}

// Who times a row: the bench, per iteration (state.SetIterationTime), or
// Google Benchmark, around its whole loop (for operations of a microsecond or
// less, where two clock reads per iteration would be part of what is measured).
enum class Clock { kManual, kLibrary };

// Applies the project's row settings: the `min` statistic beside Google
// Benchmark's mean/median/stddev/cv, and `clock`. The rounds, the minimum time
// per repetition and aggregates-only display are set once for the whole run
// by BenchMain, through Google Benchmark's own flags, so that they stay out
// of the row names; --benchmark_min_time=S given on the command line wins.
benchmark::internal::Benchmark* Configure(benchmark::internal::Benchmark* b,
                                          const BenchOptions& options,
                                          Clock clock = Clock::kManual);

// One row of a bench that runs in rounds: its name, what measures it, and
// any settings of its own (Unit, Iterations, MinTime), applied if the row is
// registered: a process that measures only some rows (options.row_filter)
// registers no other.
//
//   rows.push_back({"syscall/op:close/fs:tmpfs", BM_Close, Clock::kManual,
//                   [](benchmark::internal::Benchmark* b) { b->Iterations(2000); }});
struct RoundRow {
  std::string name;
  std::function<void(benchmark::State&)> run;
  Clock clock = Clock::kManual;
  std::function<void(benchmark::internal::Benchmark*)> configure = nullptr;
};

// A round's registration (BenchDefaults::rounds), all of it: names `rows` in
// their given order in *options.row_order (round 0 only), then registers each
// once, through Configure and then its own `configure`, in this round's
// shuffled order (ShuffleForRound); with options.row_filter, only the rows it
// matches (partially, as Google Benchmark's --benchmark_filter does).
// Returns the benchmarks it registered, for a setting of every row's.
std::vector<benchmark::internal::Benchmark*> RegisterRound(const BenchOptions& options,
                                                           std::vector<RoundRow> rows);

// Marks the row skipped, with the reason.
void SkipRow(benchmark::State& state, const absl::Status& why);
// Marks the row failed.
void FailRow(benchmark::State& state, const absl::Status& error);

// results/<kernel-release>/<host>/<experiment><suffix>.json under `root`
// (suffix "" for a full run, ".quick" or ".filtered").
std::string DefaultResultsPath(absl::string_view root, absl::string_view experiment,
                               absl::string_view suffix = "");

// `path` as the user meant it: a relative path is taken from the directory
// `bazel run` was started in ($BUILD_WORKING_DIRECTORY), else left as it is.
std::string FromWorkingDirectory(const std::string& path);

// A bench's defaults for Google Benchmark's own flags (the command line wins).
struct BenchDefaults {
  // How long each repetition of a row runs at least, in seconds.
  double min_time = 0.05;
  double quick_min_time = 0.001;
  // A run is made of rounds: the bench's Register is called once per round
  // and registers every row, each measured once, in a shuffled order
  // (BenchOptions). Repetition k of every row then runs in round k, so a ratio
  // of two rows taken within a round cancels the machine's drift between
  // rounds (PairedRatios). 2 with --quick; --benchmark_repetitions=N (1 to
  // 1000) sets it. The JSON is merged into Google Benchmark's repetitions
  // layout (bench_results.h: MergeRounds).
  int rounds = 25;
  // Key ratios printed after the rows: for each baseline, each row over the
  // row that differs only in that dimension, which the baseline has at that
  // value (e.g. {"method", "vfork"}), paired by round. Empty: none.
  std::vector<RatioBaseline> ratio_baselines;
  // The bench's answer, printed as its last screen (headline.h); every row
  // and key ratio then only with --rows. Empty: the rows, as before.
  Headline headline;
  // A fixed reference row (canonical name) whose repetitions, in round order,
  // show how far the machine drifted during the run; recorded in the context
  // as spawnlab.canary.* and part of run.noisy. Empty: none.
  std::string canary_row;
  // Checks the bench's own flags before anything is locked or measured; an
  // error (InvalidArgument) is a usage error, exit 2. Empty: none.
  std::function<absl::Status()> check_flags;
  // Called after the last row, before the run's conditions are read: stop
  // helper processes here, so that their CPU time is counted as the bench's.
  std::function<void()> after_run;
  // A full run is made of this many processes (--processes=N, 1 to 100),
  // one after another, each a fresh exec of the bench measuring every row in
  // its share of the rounds, merged into one results file whose iteration
  // rows name their process (bench_results.h: kProcessField). Two processes
  // of one binary differ by more than the rounds inside one show (memory
  // layout, page cache, ASLR), so //analysis:compare tests the processes'
  // medians. Ten: compare.py's nine a side and one more, so that the U test's
  // smallest p lets a lone row of a large bench reach q < 0.05. A --quick
  // run is one process.
  int processes = 10;
  // The default run (no --full, no --benchmark_filter) measures only the rows
  // this regular expression (Google Benchmark's filter syntax) matches: the
  // headline's and its key ratios'. Written as <experiment>.headline.json;
  // --full (the suite) runs every row. Empty: every row, always.
  std::string default_rows;
  // A run that stops by itself (no --processes): processes of
  // ceil(rounds / processes) rounds each, until every key ratio's 95% interval
  // over the processes is within ±target of its estimate (--target), at least
  // kMinProcesses (results_model/stopping.h), and no new process once the
  // next would end after max_seconds (--max_seconds) or past
  // kMaxAdaptiveProcesses (the rule: stop_rule.h). --processes=N is the fixed
  // plan of N.
  double target = 0.01;
  double max_seconds = 60;
  // The cap of a run of every row (--full) of a bench with an answer
  // (default_rows): enough for the fewest processes of every row and then
  // the answer's key ratios, which are the key ratios of such a run too.
  // 0: max_seconds.
  double full_max_seconds = 0;
};

// Runs a bench; see the top of this file. `register_benchmarks` is called after
// the flags are parsed, so that it can size the rows by `options`.
int BenchMain(int argc, char** argv, absl::string_view experiment,
              const std::function<void(const BenchOptions&)>& register_benchmarks,
              BenchDefaults defaults = {});

}  // namespace spawnlab

// A bench's main(): the experiment's name, its Register (called once per
// round) and its declaration, a function that returns its BenchDefaults.
//
//   SPAWNLAB_BENCH_MAIN("syscalls", spawnlab::Register, spawnlab::Declare)
#define SPAWNLAB_BENCH_MAIN(experiment, register_fn, declare_fn)                      \
  int main(int argc, char** argv) {                                                  \
    return ::spawnlab::BenchMain(argc, argv, experiment, register_fn, declare_fn()); \
  }

#endif  // SPAWNLAB_BENCH_BENCH_H_
