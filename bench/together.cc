#include "bench/together.h"

#include <numeric>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "bench/bench.h"

namespace spawnlab {

absl::StatusOr<std::vector<PartTime>> Alternate(
    const std::vector<std::function<absl::StatusOr<int64_t>()>>& parts, double min_seconds,
    int min_cycles) {
  if (parts.empty()) return absl::InvalidArgumentError("Alternate: no parts");
  std::vector<size_t> order(parts.size());
  std::vector<int64_t> total_ns(parts.size(), 0);
  std::vector<PartTime> times(parts.size());
  const int64_t min_ns = static_cast<int64_t>(min_seconds * 1e9);
  if (min_cycles < 1) min_cycles = 1;
  // Cycle 0 is the warm-up; its times are not kept.
  for (int cycle = 0;; ++cycle) {
    std::iota(order.begin(), order.end(), 0);
    ShuffleForRound(order, cycle);
    for (size_t i : order) {
      absl::StatusOr<int64_t> ns = parts[i]();
      if (!ns.ok()) return ns.status();
      if (*ns <= 0) {
        return absl::InternalError(
            absl::StrCat("part ", i, " of an alternating measurement took ", *ns, " ns"));
      }
      if (cycle == 0) continue;
      total_ns[i] += *ns;
      ++times[i].runs;
    }
    if (cycle < min_cycles) continue;
    bool enough = true;
    for (int64_t t : total_ns) enough = enough && t >= min_ns;
    if (enough) break;
  }
  for (size_t i = 0; i < parts.size(); ++i) {
    times[i].seconds_each = static_cast<double>(total_ns[i]) * 1e-9 / times[i].runs;
  }
  return times;
}

MeasuredTogether::MeasuredTogether(Measure measure) : measure_(std::move(measure)) {}

absl::StatusOr<PartTime> MeasuredTogether::Get(size_t i) {
  if (!result_.has_value()) result_ = measure_();
  if (!result_->ok()) return result_->status();
  if (i >= (*result_)->size()) {
    return absl::OutOfRangeError(absl::StrCat("part ", i, " of a measurement of ",
                                              (*result_)->size(), " parts"));
  }
  return (**result_)[i];
}

void MeasuredTogether::Report(benchmark::State& state, size_t i) {
  for (auto _ : state) {
    absl::StatusOr<PartTime> t = Get(i);
    if (!t.ok()) return FailRow(state, t.status());
    state.SetIterationTime(t->seconds_each);
  }
}

}  // namespace spawnlab
