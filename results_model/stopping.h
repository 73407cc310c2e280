// stopping.h: when a bench run made of processes knows its answer.
//
// Its key ratios are judged over processes: each process's median of a ratio
// paired within its rounds is one sample, and the run stops once every key
// ratio's 95% interval over those samples lies within ±target of its estimate
// (after at least kMinProcesses), or its time is up.
//
//   // after each process, on the processes merged so far:
//   spawnlab::Precision p = spawnlab::KeyRatioPrecision(merged, {{"method", "vfork"}});
//   if (p.processes >= spawnlab::kMinProcesses && p.worst_half_width <= 0.01) stop;
//   // p.worst names the ratio furthest from its target

#ifndef SPAWNLAB_RESULTS_MODEL_STOPPING_H_
#define SPAWNLAB_RESULTS_MODEL_STOPPING_H_

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "results_model/bench_results.h"

namespace spawnlab {

// The fewest processes a run that stops by itself measures: two cannot give a
// spread worth an interval, three can.
inline constexpr int kMinProcesses = 3;

// One key ratio over processes.
struct ProcessRatio {
  std::string row, baseline;
  int processes = 0;                 // processes where both rows measured
  double estimate = 0;               // geometric mean of the processes' medians
  double low = 0, high = 0;          // its 95% interval (Student's t on logs)
  double half_width = 0;             // max(high / estimate - 1, 1 - low / estimate)
};

// Every key ratio of the run, and the one furthest from a target.
struct Precision {
  std::vector<ProcessRatio> ratios;
  int processes = 0;              // the fewest processes any key ratio has
  double worst_half_width = 0;    // the widest relative half-interval; +inf below 2 processes
  std::string worst;              // "row / baseline" of that one
};

// Each key ratio of `merged` (a run merged from processes: bench_results.h,
// MergeProcesses, whose iteration rows carry kProcessField) for each baseline:
// per process the median over its rounds of row[k] / baseline[k], then over
// the processes the mean of their logarithms with Student's t interval,
// exponentiated. A run without key ratios has no ratios and a worst half
// width of 0: nothing to wait for.
Precision KeyRatioPrecision(const nlohmann::json& merged,
                            const std::vector<RatioBaseline>& baselines);

// The rows `p`'s key ratios are made of: each ratio's row and its baseline.
// The rest of a run's rows are in no key ratio, so no stopping rule waits
// for them: a run gives them kMinProcesses processes and no more.
std::set<std::string> KeyRatioRows(const Precision& p);

// Student's t quantile for a two-sided 95% interval with `df` degrees of
// freedom (df >= 1; the normal's 1.96 beyond 30, within 2%).
double StudentT975(int df);

// How a run made of processes was planned to stop and what stopped it: the
// context's spawnlab.stopping.* keys (context_keys.h), written alike by every
// program that runs processes (the benches' bench/stop_rule.h, the clone3
// cross-check) and read by the report and by ExpectedSeconds below.
struct StoppingRecord {
  std::string rule;        // the plan, in words
  std::string stopped_by;  // in words
  std::string reason;      // one of keys::stop_reason
  double max_seconds = 0;  // the cap the run had; 0: none
  // The program's own cap (0: none); where it differs from max_seconds,
  // --max_seconds (a suite's share) set the cap.
  double own_max_seconds = 0;
  // A rule that judges precision: its target, the widest key ratio at the
  // end, and how many rows (in no key ratio) had the fewest processes only.
  std::optional<double> target;
  std::optional<std::string> worst;
  std::optional<int> fixed_budget_rows;
};

// Writes `record` into a merged run's `context`; the optional parts only
// where they are set.
//
//   spawnlab::StoppingRecord r{"fixed: --processes=10", "the most processes (10)",
//                              spawnlab::keys::stop_reason::kMostProcesses};
//   spawnlab::WriteStopping(r, &doc["context"]);
void WriteStopping(const StoppingRecord& record, nlohmann::json* context);

// How long the next run like the one whose results' `context` this is can be
// expected to take, in seconds: its run.seconds, or half as much again where
// a cap other than the bench's own (a suite's share) ended it, so that a
// suite's shares grow until the run ends by itself (spawnlab.stopping.reason
// and the caps, context_keys.h). A run its own cap ended will end there again.
// nullopt where the context records no duration.
//
//   std::optional<double> s = spawnlab::ExpectedSeconds(doc["context"]);
std::optional<double> ExpectedSeconds(const nlohmann::json& context);

}  // namespace spawnlab

#endif  // SPAWNLAB_RESULTS_MODEL_STOPPING_H_
