// stop_rule.h: the stopping rule of a bench run made of processes, and what
// it records: after each process, is every key ratio's 95% interval within
// ±target (results_model/stopping.h), or would another process pass the time
// cap, or is the most processes reached? After the fewest processes, the
// later ones measure only the key ratios' rows and the canary, and the time
// cap is asked of such a process: the first estimated from the full ones by
// its share of the rows, the ones after it from those that ran.
//
// Example (bench.cc, a run that stops by itself):
//
//   const spawnlab::StopLimits limits{0.01, 30, 70};  // ±1%, 30 processes, 70 s
//   spawnlab::StopRecord record;
//   spawnlab::StopRule rule = spawnlab::MakeStopRule(limits, baselines, canary_row, &record);
//   absl::StatusOr<nlohmann::json> merged = spawnlab::RunProcesses(..., rule);
//   spawnlab::RecordStopping(limits, /*adaptive=*/true, record, *merged, baselines,
//                            &(*merged)["context"]);

#ifndef SPAWNLAB_BENCH_STOP_RULE_H_
#define SPAWNLAB_BENCH_STOP_RULE_H_

#include <string>
#include <vector>

#include "bench/bench_processes.h"
#include "nlohmann/json.hpp"
#include "results_model/bench_results.h"
#include "results_model/context_keys.h"
#include "results_model/stopping.h"

namespace spawnlab {

// What the rule stops at.
struct StopLimits {
  double target = 0.01;    // the widest key ratio interval, as a fraction
  int processes = 30;      // the most processes
  double max_seconds = 0;  // no process that would end after this
  // The bench's own cap (0: none), recorded beside max_seconds: where the two
  // differ, --max_seconds (a suite's share) set the cap.
  double own_max_seconds = 0;
};

// What the stopping rule of a run found, for its results' context.
struct StopRecord {
  std::string stopped_by = "a fixed plan (--processes)";
  std::string reason = keys::stop_reason::kFixed;  // stopped_by for programs
  std::string worst;  // the widest key ratio, in words
  // After kMinProcesses: the rows the later processes measure (an RE2
  // pattern for --spawnlab_rows), and how many rows they leave out, those in
  // no key ratio. Empty and 0: every row goes on.
  std::string later_rows;
  int fixed_budget_rows = 0;
};

// The widest key ratio interval, in words ("±2.50%: A / B").
std::string DescribeWorst(const Precision& p);

// The rule for RunProcesses (bench_processes.h), recording in *record why it
// stopped, the widest key ratio and the rows its later processes measure. It
// keeps the processes' times: ask it after each process, in order.
// `limits`, `baselines` and `record` must outlive the rule.
StopRule MakeStopRule(const StopLimits& limits, const std::vector<RatioBaseline>& baselines,
                      const std::string& canary_row, StopRecord* record);

// Writes the rule, its target and caps, what stopped the run (in words and
// as a stop_reason, results_model/context_keys.h) and the widest
// key ratio into a merged run's `context` (results_model/context_keys.h:
// spawnlab.stopping.*). A fixed plan (`adaptive` false) is described as one,
// and its widest key ratio is computed from `merged`.
void RecordStopping(const StopLimits& limits, bool adaptive, const StopRecord& record,
                    const nlohmann::json& merged, const std::vector<RatioBaseline>& baselines,
                    nlohmann::json* context);

}  // namespace spawnlab

#endif  // SPAWNLAB_BENCH_STOP_RULE_H_
