// bench_fixture.cc: the smallest spawnlab bench, for bench_test: one measured
// row, one skipped row, and (with --fail) one failed row, (with --hang) one
// that never ends, (with --key_ratio) a row in a key ratio with the first and
// a row in none.

#include <unistd.h>

#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "bench/bench.h"

ABSL_FLAG(bool, fail, false, "Add a row that fails.");
ABSL_FLAG(bool, hang, false, "Add a row that runs until the bench is killed.");
ABSL_FLAG(bool, key_ratio, false,
          "Add fixture/op:twice (a key ratio over fixture/op:clock) and fixture/lone:yes (in "
          "no key ratio).");
ABSL_FLAG(std::string, setting, "good", "A bench flag of the fixture's own: 'bad' is refused.");

namespace {

void BM_Clock(benchmark::State& state) {
  for (auto _ : state) {
    int64_t t0 = spawnlab::MonotonicNanos();
    benchmark::DoNotOptimize(t0);
    state.SetIterationTime(static_cast<double>(spawnlab::MonotonicNanos() - t0 + 1) * 1e-9);
  }
}

void BM_Missing(benchmark::State& state) {
  spawnlab::SkipRow(state, absl::UnimplementedError("frobnicate: the kernel lacks it"));
}

void BM_Broken(benchmark::State& state) {
  spawnlab::FailRow(state, absl::InternalError("it broke"));
}

void BM_Hang(benchmark::State& state) {
  for (auto _ : state) {
    for (;;) pause();  // until a signal ends the process
  }
}

void Register(const spawnlab::BenchOptions& options) {
  std::vector<spawnlab::RoundRow> rows = {{"fixture/op:clock", BM_Clock},
                                          {"fixture/op:missing", BM_Missing}};
  if (absl::GetFlag(FLAGS_hang)) rows.push_back({"fixture/op:hang", BM_Hang});
  if (absl::GetFlag(FLAGS_fail)) rows.push_back({"fixture/op:broken", BM_Broken});
  if (absl::GetFlag(FLAGS_key_ratio)) {
    rows.push_back({"fixture/op:twice", BM_Clock});
    rows.push_back({"fixture/lone:yes", BM_Clock});
    rows.push_back({"fixture/op:aside", BM_Clock});  // over op:clock, but not in the answer
  }
  spawnlab::RegisterRound(options, std::move(rows));
}

}  // namespace

spawnlab::BenchDefaults Declare() {
  spawnlab::BenchDefaults defaults;
  defaults.rounds = 9;
  defaults.canary_row = "fixture/op:clock";
  // Without --key_ratio nothing pairs with op:clock (op:missing is skipped).
  defaults.ratio_baselines = {{"op", "clock"}};
  // The answer's rows: the default run leaves out the skipped row, and the key
  // ratios are these rows' (op:twice over op:clock, with --key_ratio).
  defaults.default_rows = "^fixture/op:(clock|twice)";
  defaults.check_flags = [] {
    return absl::GetFlag(FLAGS_setting) == "bad"
               ? absl::InvalidArgumentError("--setting=bad: expected good")
               : absl::OkStatus();
  };
  return defaults;
}

SPAWNLAB_BENCH_MAIN("fixture", Register, Declare)
