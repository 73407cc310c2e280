// stop_rule.cc: when a run made of processes stops, and what it records.

#include "bench/stop_rule.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "re2/re2.h"
#include "results_model/context_keys.h"

namespace spawnlab {

namespace {

// After the fewest processes, the rows that go on: those in a key ratio of
// `p`, and the canary. Sets record->later_rows where that leaves a row out,
// and returns the share of the rows that go on (1: all of them).
double LimitLaterProcesses(const nlohmann::json& merged, const Precision& p,
                           const std::string& canary_row, StopRecord* record) {
  std::set<std::string> keep = KeyRatioRows(p);
  if (!canary_row.empty()) keep.insert(canary_row);
  int left_out = 0, all = 0;
  for (const auto& [row, times] : RepetitionTimes(ResultsOf(merged))) {
    left_out += !keep.count(row);
    ++all;
  }
  if (left_out == 0 || p.ratios.empty()) return 1;
  record->later_rows = absl::StrCat("^(?:",
                                    absl::StrJoin(keep, "|",
                                                  [](std::string* out, const std::string& row) {
                                                    absl::StrAppend(out, RE2::QuoteMeta(row));
                                                  }),
                                    ")$");
  record->fixed_budget_rows = left_out;
  return static_cast<double>(all - left_out) / all;
}

// How long the next process will take, from the processes so far: the
// first kMinProcesses measure every row, the later ones only the key
// ratios' rows. The first of those is estimated from the full ones by its
// share of the rows; the ones after it from those already run.
class NextProcess {
 public:
  // Called after process k ended, `elapsed` seconds from the first's start.
  void Ended(int k, double elapsed) {
    if (k <= kMinProcesses) {
      full_ = elapsed;
    } else {
      limited_ += elapsed - last_;
      ++limited_count_;
    }
    last_ = elapsed;
  }
  // The next process's seconds, given the share of the rows it measures.
  double Seconds(int k, double share) const {
    if (limited_count_ > 0) return limited_ / limited_count_;
    return full_ / std::min(k, kMinProcesses) * share;
  }

 private:
  double full_ = 0;     // the seconds of the first kMinProcesses processes
  double limited_ = 0;  // and of those after them, with their count
  int limited_count_ = 0;
  double last_ = 0;
};

}  // namespace

std::string DescribeWorst(const Precision& p) {
  if (p.ratios.empty()) return "no key ratios";
  if (!std::isfinite(p.worst_half_width)) return "no interval from one process";
  return absl::StrFormat("±%.2f%%: %s", 100 * p.worst_half_width, p.worst);
}

StopRule MakeStopRule(const StopLimits& limits, const std::vector<RatioBaseline>& baselines,
                      const std::string& canary_row, StopRecord* record) {
  auto next = std::make_shared<NextProcess>();
  return [&limits, &baselines, canary_row, record, next](const nlohmann::json& merged, int k,
                                                         double elapsed) -> StopVerdict {
    next->Ended(k, elapsed);
    const Precision p = KeyRatioPrecision(merged, baselines);
    record->worst = DescribeWorst(p);
    StopVerdict v;
    v.say = p.ratios.empty() ? "no key ratios"
                             : absl::StrFormat("widest key ratio interval %s (target ±%.2g%%)",
                                               record->worst, 100 * limits.target);
    if (k < kMinProcesses) return v;
    // Once the fewest have run, the later processes measure fewer rows: the
    // time cap asks how long such a process takes, not a full one.
    double share = 1;
    if (k == kMinProcesses && p.worst_half_width > limits.target) {
      share = LimitLaterProcesses(merged, p, canary_row, record);
    }
    v.stop = true;
    if (p.worst_half_width <= limits.target) {
      record->stopped_by = p.ratios.empty() ? "the fewest processes (no key ratios)"
                                            : "the target (every key ratio within it)";
      record->reason = p.ratios.empty() ? keys::stop_reason::kFewest : keys::stop_reason::kTarget;
    } else if (k >= limits.processes) {
      record->stopped_by = absl::StrCat("the most processes (", limits.processes, ")");
      record->reason = keys::stop_reason::kMostProcesses;
    } else if (elapsed + next->Seconds(k, share) > limits.max_seconds) {
      record->stopped_by = absl::StrFormat("the time cap (another process would end after %.0f s)",
                                           limits.max_seconds);
      record->reason = keys::stop_reason::kTimeCap;
    } else {
      v.stop = false;
    }
    if (v.stop) {
      v.say += "; stopped by " + record->stopped_by;
    } else if (k == kMinProcesses && record->fixed_budget_rows > 0) {
      v.say += absl::StrCat("; the ", record->fixed_budget_rows,
                            " rows in no key ratio are done, the key ratios' rows go on");
    }
    return v;
  };
}

void RecordStopping(const StopLimits& limits, bool adaptive, const StopRecord& record,
                    const nlohmann::json& merged, const std::vector<RatioBaseline>& baselines,
                    nlohmann::json* context) {
  StoppingRecord r;
  r.rule = adaptive ? absl::StrFormat(
                          "every key ratio's 95%% interval over processes within ±%g%%, at least "
                          "%d processes, at most %g s; rows in no key ratio: the first %d "
                          "processes only",
                          100 * limits.target, kMinProcesses, limits.max_seconds, kMinProcesses)
                    : absl::StrCat("fixed: --processes=", limits.processes);
  r.stopped_by = record.stopped_by;
  r.reason = record.reason;
  r.max_seconds = limits.max_seconds;
  r.own_max_seconds = limits.own_max_seconds;
  r.target = limits.target;
  r.fixed_budget_rows = record.fixed_budget_rows;
  // The stopping rule described the last process's merge; a fixed plan asks now.
  r.worst = adaptive ? record.worst : DescribeWorst(KeyRatioPrecision(merged, baselines));
  WriteStopping(r, context);
}

}  // namespace spawnlab
