// together.h: rows measured in one loop that alternates between them, so that
// a burst of a shared machine falls on all of them alike.
//
// Two rows measured one after the other, even within one round, are tens of
// milliseconds apart, longer than the bursts of a shared VM; measured in one
// loop that runs each once per cycle, in a shuffled order, they see the same
// bursts. Alternate is that loop; MeasuredTogether hands its parts to the rows
// of one round, each still a row of its own in the results.
//
//   auto warm = std::make_shared<MeasuredTogether>([] {  // in Register, per round
//     return Alternate({[] { return ExecByPath(); }, [] { return ExecByFd(); }},
//                      options.min_time);                // ns of one operation each
//   });
//   RegisterRound(options, {{"exec/source:path", [warm](benchmark::State& s) { warm->Report(s, 0); }},
//                           {"exec/source:fd", [warm](benchmark::State& s) { warm->Report(s, 1); }}});

#ifndef SPAWNLAB_BENCH_TOGETHER_H_
#define SPAWNLAB_BENCH_TOGETHER_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "benchmark/benchmark.h"

namespace spawnlab {

// One part's share of a measurement.
struct PartTime {
  double seconds_each = 0;  // mean seconds per run of the part
  int64_t runs = 0;         // how many timed runs the mean is over
};

// Runs `parts` (each call runs the part's operation once and returns the
// nanoseconds it took) in cycles: every cycle runs each part once, in an order
// shuffled by the cycle, the same order on every run. One untimed cycle warms
// up first. Stops when every part has run for `min_seconds` in all and at
// least `min_cycles` cycles were timed. The first error of any part ends the
// loop with that error; a part that says it took no time is an error too.
absl::StatusOr<std::vector<PartTime>> Alternate(
    const std::vector<std::function<absl::StatusOr<int64_t>()>>& parts, double min_seconds,
    int min_cycles = 2);

// One measurement shared by the rows of one round: the first of them to run
// measures (e.g. by Alternate), the others read their part of it.
class MeasuredTogether {
 public:
  using Measure = std::function<absl::StatusOr<std::vector<PartTime>>()>;
  explicit MeasuredTogether(Measure measure);

  // Part `i`, measuring all parts on the first call.
  absl::StatusOr<PartTime> Get(size_t i);

  // A row's whole body: its one iteration's time (register it with
  // Iterations(1)) is part `i`'s mean, or the row fails with the error.
  void Report(benchmark::State& state, size_t i);

 private:
  Measure measure_;
  std::optional<absl::StatusOr<std::vector<PartTime>>> result_;
};

}  // namespace spawnlab

#endif  // SPAWNLAB_BENCH_TOGETHER_H_
