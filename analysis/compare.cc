// compare.cc: see compare.h.

#include "analysis/compare.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "analysis/claims.h"
#include "results_model/stats.h"
#include "results_model/context_keys.h"

namespace spawnlab {
namespace analysis {

Comparison CompareResults(const ResultsFile& old_file, const ResultsFile& new_file) {
  Comparison c;
  std::vector<double> ratios;
  for (const Series& o : old_file.series) {
    const Series* n = new_file.Find(o.name);
    if (n == nullptr) {
      c.only_old.push_back(o.name);
      continue;
    }
    if (!o.measured() || !n->measured()) {
      c.not_measured.push_back(o.name);
      continue;
    }
    CompareRow row{o.name,       o.Median(),      n->Median(),     0,
                   std::nan(""), o.Repetitions(), n->Repetitions()};
    row.change = (row.new_median_ns - row.old_median_ns) / std::fabs(row.old_median_ns);
    const std::vector<double> old_processes = o.ProcessMedians();
    const std::vector<double> new_processes = n->ProcessMedians();
    if (!old_processes.empty() && !new_processes.empty()) {
      row.by_process = true;
      row.old_n = static_cast<int>(old_processes.size());
      row.new_n = static_cast<int>(new_processes.size());
      row.p_value = MannWhitneyU(old_processes, new_processes);
    } else if (o.samples_ns.size() >= 2 && n->samples_ns.size() >= 2) {
      row.p_value = MannWhitneyU(o.samples_ns, n->samples_ns);
    }
    if (row.old_median_ns > 0 && row.new_median_ns > 0) {
      ratios.push_back(row.new_median_ns / row.old_median_ns);
    }
    c.rows.push_back(row);
  }
  for (const Series& n : new_file.series) {
    if (old_file.Find(n.name) == nullptr) c.only_new.push_back(n.name);
  }
  // Adjust over the rows with the repetitions compare.py asks for: the family
  // the table calls rows different in.
  std::vector<double> tested_p;
  for (const CompareRow& r : c.rows) {
    const bool enough = r.old_n >= kMinRepetitionsForUTest && r.new_n >= kMinRepetitionsForUTest;
    tested_p.push_back(enough ? r.p_value : std::nan(""));
  }
  const std::vector<double> q = BenjaminiHochberg(tested_p);
  for (size_t i = 0; i < c.rows.size(); ++i) c.rows[i].q_value = q[i];
  c.geomean_ratio = GeometricMean(ratios);
  return c;
}

absl::StatusOr<ResultsFile> NormaliseByCanary(const ResultsFile& f) {
  auto it = f.context.find(spawnlab::keys::kCanaryRow);
  if (it == f.context.end()) {
    return absl::FailedPreconditionError(
        absl::StrCat(f.path, ": the run names no canary row (spawnlab.canary.row)"));
  }
  const Series* canary = f.Find(it->second);
  if (canary == nullptr || !canary->measured() || canary->samples_ns.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat(f.path, ": its canary row ", it->second, " was not measured"));
  }
  ResultsFile out = f;
  const std::string canary_name = canary->name;
  // The canary over itself is 1 in every round: no row to compare, and none
  // of the family a comparison's p-values are adjusted over.
  out.series.erase(std::remove_if(out.series.begin(), out.series.end(),
                                  [&](const Series& s) { return s.name == canary_name; }),
                   out.series.end());
  for (Series& s : out.series) {
    if (!s.measured()) continue;
    std::vector<double> ratios;
    std::vector<int> processes;
    for (size_t k = 0; k < s.samples_ns.size() && k < canary->samples_ns.size(); ++k) {
      if (canary->samples_ns[k] > 0) {
        ratios.push_back(s.samples_ns[k] / canary->samples_ns[k]);
        processes.push_back(k < s.processes.size() ? s.processes[k] : 0);
      }
    }
    s.samples_ns = ratios;
    s.processes = processes;
    s.aggregate_ns.clear();  // from the ratios, not the times
    if (ratios.empty()) s.error = "no repetition to pair with the canary's";
  }
  return out;
}

namespace {

// What the U test made of a comparison's rows.
struct Calls {
  int tested = 0;     // with kMinRepetitionsForUTest repetitions a side
  int different = 0;  // q < kFalseDiscoveryRate
  int below_p05 = 0;  // p < 0.05 on its own, as compare.py marks a row
  int few = 0;        // too few repetitions on a side to be tested
  // Tested rows that could not be called different on their own even wholly
  // apart: their smallest possible p times the rows tested is at least the
  // false discovery rate.
  int out_of_reach = 0;
  int fewest_repetitions = 0;  // on a side, over the tested rows
  int by_process = 0;          // rows whose samples were the processes' medians
  double median_abs_change = std::nan("");
};

Calls CountCalls(const Comparison& c) {
  Calls calls;
  std::vector<double> changes;
  for (const CompareRow& row : c.rows) {
    changes.push_back(std::fabs(row.change));
    calls.by_process += row.by_process;
    calls.few += row.old_n < kMinRepetitionsForUTest || row.new_n < kMinRepetitionsForUTest;
    if (!row.Tested()) continue;
    ++calls.tested;
    calls.different += row.Different();
    calls.below_p05 += row.p_value < 0.05;
    const int fewest = std::min(row.old_n, row.new_n);
    if (calls.fewest_repetitions == 0 || fewest < calls.fewest_repetitions) {
      calls.fewest_repetitions = fewest;
    }
  }
  for (const CompareRow& row : c.rows) {
    if (!row.Tested()) continue;
    const double floor = SmallestPValue(row.old_n, row.new_n);
    calls.out_of_reach += floor * calls.tested >= kFalseDiscoveryRate;
  }
  if (!changes.empty()) calls.median_abs_change = spawnlab::Median(changes);
  return calls;
}

// The repetitions a side from which a lone row among `tested` can reach
// q < kFalseDiscoveryRate.
int RepetitionsToReach(int tested) {
  int n = kMinRepetitionsForUTest;
  while (n < 1000 && SmallestPValue(n, n) * tested >= kFalseDiscoveryRate) ++n;
  return n;
}

}  // namespace

std::string FormatComparison(const Comparison& c, const std::string& normalised_by) {
  const bool ratio = !normalised_by.empty();
  auto figure = [&](double v) { return ratio ? absl::StrFormat("%.4g", v) : FormatNanos(v); };
  std::string out = absl::StrCat(
      "| benchmark | old", ratio ? " (x canary)" : "", " | new", ratio ? " (x canary)" : "",
      " | change | U test p | q (over the table) | samples (old/new) |\n",
      "|---|---:|---:|---:|---:|---:|---|\n");
  const Calls calls = CountCalls(c);
  for (const CompareRow& r : c.rows) {
    const bool few = r.old_n < kMinRepetitionsForUTest || r.new_n < kMinRepetitionsForUTest;
    absl::StrAppend(&out, "| `", r.name, "` | ", figure(r.old_median_ns), " | ",
                    figure(r.new_median_ns), " | ", absl::StrFormat("%+.2f%%", r.change * 100),
                    " | ", FormatPValue(r.p_value), " | ",
                    r.Tested() ? FormatPValue(r.q_value) : std::string("—"),
                    r.Different() ? " (different)" : "", " | ", r.old_n, "/", r.new_n,
                    r.by_process ? " processes" : " reps", few ? " (fewer than 9)" : "", " |\n");
  }
  absl::StrAppend(
      &out, "\n", calls.different, " of ", calls.tested,
      " benchmarks with enough repetitions differ at a 5% false discovery rate (U test, its p "
      "adjusted for the ",
      calls.tested, " tested: q < 0.05); with p < 0.05 on its own, as compare.py would mark it, ",
      calls.below_p05, " (chance alone gives about 1 row in 20 of two runs of identical code); ",
      ratio ? absl::StrCat("on each row's time over the canary `", normalised_by,
                           "` of the same round, which the drift of the machine cancels in "
                           "(the raw times: without --canary).\n")
            : "on the raw times, which the machine's drift between the two runs moves "
              "(--canary compares each row over its run's canary; --ratios=DIM:VALUE over its "
              "paired baseline).\n");
  if (calls.by_process > 0) {
    absl::StrAppend(
        &out, "\nThe U test's samples",
        calls.by_process < static_cast<int>(c.rows.size())
            ? absl::StrCat(" for the ", calls.by_process, " rows measured in several processes")
            : std::string(),
        " are each process's median, not the repetitions: repetitions within one process share "
        "its luck (memory layout, page cache), so two processes of identical code differ by more "
        "than their repetitions' spread.\n");
  }
  absl::StrAppend(&out, "\nGeometric mean of new/old: ",
                  std::isnan(c.geomean_ratio) ? "n/a"
                                              : absl::StrFormat("%.4f (%+.2f%%)", c.geomean_ratio,
                                                                (c.geomean_ratio - 1) * 100),
                  " over ", c.rows.size(), " benchmarks.\n");
  if (calls.few > 0) {
    absl::StrAppend(&out, "\nwarning: ", calls.few, " benchmark(s) have fewer than ",
                    kMinRepetitionsForUTest,
                    calls.by_process > 0 ? " samples (processes or repetitions)" : " repetitions",
                    " on a side: the U test cannot be trusted for them (run with ",
                    calls.by_process > 0 ? "--processes=9 and " : "",
                    "--benchmark_repetitions=9 or more).\n");
  }
  if (calls.out_of_reach > 0) {
    absl::StrAppend(
        &out, "\nwarning: ", calls.out_of_reach, " of the ", calls.tested,
        " benchmarks tested could not be called different on their own however far apart: "
        "with ",
        calls.fewest_repetitions, calls.by_process > 0 ? " samples" : " repetitions",
        " a side the U test's smallest p is ",
        FormatPValue(SmallestPValue(calls.fewest_repetitions, calls.fewest_repetitions)),
        ", and adjusted over ", calls.tested,
        " rows that is q >= 0.05. A change confined to one row needs ",
        calls.by_process > 0 ? "--processes=" : "--benchmark_repetitions=",
        RepetitionsToReach(calls.tested), " or more (or fewer rows: --benchmark_filter).\n");
  }
  if (!c.only_old.empty() || !c.only_new.empty()) {
    absl::StrAppend(&out, "\n", c.only_old.size(), " benchmark(s) only in the old file, ",
                    c.only_new.size(), " only in the new.\n");
  }
  if (!c.not_measured.empty()) {
    absl::StrAppend(&out, c.not_measured.size(), " benchmark(s) skipped or failed on a side.\n");
  }
  return out;
}

std::string ContextDifferences(const ResultsFile& old_file, const ResultsFile& new_file) {
  std::string out;
  for (const auto& [key, old_value] : old_file.context) {
    const bool machine = absl::StartsWith(key, "kernel.") || absl::StartsWith(key, "cpu.") ||
                         absl::StartsWith(key, "thp.") || absl::StartsWith(key, "mitigation.") ||
                         key == "glibc" || key == "compiler" || key == "virtualization" ||
                         key == "aslr" || key == "host.id" || key == "sanitizer" ||
                         key == "damon";
    if (!machine) continue;
    auto it = new_file.context.find(key);
    const std::string new_value = it == new_file.context.end() ? "—" : it->second;
    if (new_value != old_value) {
      absl::StrAppend(&out, "| ", key, " | ", old_value, " | ", new_value, " |\n");
    }
  }
  if (out.empty()) return "";
  return absl::StrCat("The two runs' machines differ:\n\n| context | old | new |\n|---|---|---|\n",
                      out, "\n");
}

RatioComparison CompareRatios(const ResultsFile& old_file, const ResultsFile& new_file,
                              const spawnlab::RatioBaseline& by) {
  RatioComparison c;
  std::map<std::string, spawnlab::PairedRatio> new_ratios;
  for (const spawnlab::PairedRatio& r : spawnlab::PairedRatios(new_file, by)) new_ratios[r.row] = r;
  std::vector<double> abs_changes;
  for (const spawnlab::PairedRatio& o : spawnlab::PairedRatios(old_file, by)) {
    auto it = new_ratios.find(o.row);
    if (it == new_ratios.end() || !(o.median > 0)) continue;
    const spawnlab::PairedRatio& n = it->second;
    RatioChange r{o.row, o.baseline, o.median, n.median, n.median / o.median - 1,
                  o.low, o.high, n.low, n.high};
    abs_changes.push_back(std::fabs(r.change));
    c.over_5pct += std::fabs(r.change) > 0.05;
    c.over_10pct += std::fabs(r.change) > 0.10;
    c.rows.push_back(r);
  }
  c.median_abs_change = abs_changes.empty() ? std::nan("") : spawnlab::Median(abs_changes);
  return c;
}

std::string FormatRatioComparison(const RatioComparison& c, const spawnlab::RatioBaseline& by) {
  std::string out =
      absl::StrCat("Key ratios, each row over its row with ", by.dimension, ":", by.value,
                   " (median over rounds of the ratio taken within a round):\n\n",
                   "| row | old ratio | new ratio | change |\n|---|---:|---:|---:|\n");
  for (const RatioChange& r : c.rows) {
    absl::StrAppend(
        &out, "| `", r.row, "` | ",
        absl::StrFormat("%.3f | %.3f | %+.1f%%", r.old_ratio, r.new_ratio, r.change * 100), " |\n");
  }
  absl::StrAppend(&out, "\n", c.rows.size(), " ratios: median change ",
                  absl::StrFormat("%.1f%%", c.median_abs_change * 100), ", ", c.over_5pct,
                  " moved more than 5%, ", c.over_10pct, " more than 10%.\n");
  return out;
}

std::vector<spawnlab::RatioBaseline> DeclaredRatioBaselines(const ResultsFile& file) {
  std::vector<spawnlab::RatioBaseline> out;
  auto it = file.context.find(spawnlab::keys::kRatioBaseline);
  if (it == file.context.end()) return out;
  auto rows = file.context.find(spawnlab::keys::kKeyRows);
  for (absl::string_view one : absl::StrSplit(it->second, ',', absl::SkipEmpty())) {
    std::vector<std::string> dv = absl::StrSplit(one, absl::MaxSplits(':', 1));
    if (dv.size() == 2 && !dv[0].empty() && !dv[1].empty()) {
      out.push_back(
          spawnlab::RatioBaseline{dv[0], dv[1], rows == file.context.end() ? "" : rows->second});
    }
  }
  return out;
}

// The fewest rows of `n` that the U test, at p < 0.05, calls different in at
// most 1 pair of identical runs out of 20: what chance alone reaches.
int ChanceBound(int n) {
  // P(X >= k) for X ~ Binomial(n, 0.05), summed from the top.
  std::vector<double> pmf(static_cast<size_t>(n) + 1);
  for (int k = 0; k <= n; ++k) {
    pmf[k] = std::exp(std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0) +
                      k * std::log(0.05) + (n - k) * std::log(0.95));
  }
  double tail = 0;
  for (int k = n; k >= 0; --k) {
    if (tail + pmf[k] > 0.05 + 1e-12) return k + 1;
    tail += pmf[k];
  }
  return 0;
}

namespace {

// The key ratios of both runs over each baseline: how far they moved.
void CheckRatios(const ResultsFile& old_file, const ResultsFile& new_file,
                 const std::vector<spawnlab::RatioBaseline>& baselines, Reproducibility& r) {
  std::vector<double> ratio_changes;
  for (const spawnlab::RatioBaseline& b : baselines) {
    RatioComparison rc = CompareRatios(old_file, new_file, b);
    r.ratios += static_cast<int>(rc.rows.size());
    r.ratios_over_10pct += rc.over_10pct;
    for (const RatioChange& change : rc.rows) {
      ratio_changes.push_back(std::fabs(change.change));
      if (std::fabs(change.change) > 0.10) r.ratios_moved.push_back(change);
    }
  }
  if (!ratio_changes.empty()) r.median_ratio_change = spawnlab::Median(ratio_changes);
}

void Count(const Comparison& c, int* tested, int* different, int* below_p05,
           double* median_change, int* by_process) {
  const Calls calls = CountCalls(c);
  *by_process = calls.by_process;
  *tested = calls.tested;
  *different = calls.different;
  *below_p05 = calls.below_p05;
  *median_change = calls.median_abs_change;
}

// The U test on every row in both runs, raw and over the canary where both
// have the same one: how many it could test, how many it calls different
// (q < 0.05 over those), how many have p < 0.05 alone, and the median
// change. Returns the judged comparison: over the canary where there is one.
Comparison CheckRows(const ResultsFile& old_file, const ResultsFile& new_file,
                     Reproducibility& r) {
  int by_process = 0;
  const Comparison raw = CompareResults(old_file, new_file);
  Count(raw, &r.rows_tested, &r.rows_different, &r.rows_below_p05, &r.median_row_change,
        &by_process);
  std::optional<Comparison> over_canary;
  absl::StatusOr<ResultsFile> old_by_canary = NormaliseByCanary(old_file);
  absl::StatusOr<ResultsFile> new_by_canary = NormaliseByCanary(new_file);
  if (old_by_canary.ok() && new_by_canary.ok() &&
      old_file.context.at(spawnlab::keys::kCanaryRow) ==
          new_file.context.at(spawnlab::keys::kCanaryRow)) {
    r.canary_row = old_file.context.at(spawnlab::keys::kCanaryRow);
    over_canary = CompareResults(*old_by_canary, *new_by_canary);
    Count(*over_canary, &r.canary_rows_tested, &r.canary_rows_different,
          &r.canary_rows_below_p05, &r.canary_median_row_change, &by_process);
  }
  // The judged comparison's samples: each process's median where both runs
  // were made of several processes. For scale, the same test with the
  // repetitions as samples, as a run of one process is judged.
  r.by_process = by_process > 0;
  if (r.by_process) {
    auto one_process = [](ResultsFile f) {
      for (Series& s : f.series) s.processes.clear();
      return f;
    };
    const Comparison reps =
        r.canary_rows_tested > 0 ? CompareResults(one_process(*old_by_canary), one_process(*new_by_canary))
                                 : CompareResults(one_process(old_file), one_process(new_file));
    const Calls calls = CountCalls(reps);
    r.repetition_rows_tested = calls.tested;
    r.repetition_rows_different = calls.different;
  }
  return r.canary_rows_tested > 0 ? *over_canary : raw;
}

bool Noisy(const ResultsFile& f) {
  auto it = f.context.find("run.noisy");
  return it != f.context.end() && absl::StartsWith(it->second, "yes");
}

std::string Pct(double x) {
  return std::isnan(x) ? std::string("—") : absl::StrFormat("%.1f%%", x * 100);
}

std::string Of(int different, int tested) {
  return absl::StrCat(
      different, " of ", tested,
      tested > 0 ? absl::StrFormat(" (%.1f%%)", 100.0 * different / tested) : std::string());
}

// What the judged U test's samples are, in the table's words.
std::string JudgedOn(const Reproducibility& r) {
  return absl::StrCat(r.canary_rows_tested > 0
                          ? absl::StrCat("each over the canary, `", r.canary_row,
                                         "`, repetition by repetition")
                          : std::string("raw times"),
                      r.by_process ? "; samples: each process's median" : "");
}

std::string RatioLines(const Reproducibility& r,
                       const std::vector<spawnlab::RatioBaseline>& baselines) {
  if (r.ratios == 0) return "| key ratios | none declared (no ratio baseline) | — |\n";
  const std::string over =
      absl::StrJoin(baselines, ", ", [](std::string* out, const spawnlab::RatioBaseline& b) {
        absl::StrAppend(out, "over ", b.dimension, ":", b.value);
      });
  // A bench with an answer judges its answer's ratios; its other rows had the
  // fewest processes, and the U test line below is theirs too.
  const bool answer = !baselines.empty() && !baselines[0].rows.empty();
  return absl::StrCat("| median change of the ", r.ratios,
                      answer ? " key ratios of the answer's rows (" : " key ratios (", over,
                      ", paired within rounds) | ", Pct(r.median_ratio_change), " | ≤ 2% |\n",
                      "| key ratios that moved more than 10% | ", r.ratios_over_10pct, " of ",
                      r.ratios, " | none unless noisy |\n");
}

std::string RowLines(const Reproducibility& r) {
  const bool by_canary = r.canary_rows_tested > 0;
  const int judged = by_canary ? r.canary_rows_tested : r.rows_tested;
  const int judged_below_p05 = by_canary ? r.canary_rows_below_p05 : r.rows_below_p05;
  const std::string judged_on = JudgedOn(r);
  // No row with kMinRepetitionsForUTest samples a side: the test was not
  // applied, which is not a pass; the table says so and why.
  const std::string untested =
      absl::StrCat("untested: fewer than ", kMinRepetitionsForUTest,
                   r.by_process ? " processes" : " repetitions", " a side");
  std::string t = absl::StrCat("| rows the U test calls different at a 5% false discovery rate (",
                               judged_on, ") | ",
                               judged == 0 ? untested
                               : by_canary ? Of(r.canary_rows_different, r.canary_rows_tested)
                                           : Of(r.rows_different, r.rows_tested),
                               " | ≤ 5% |\n");
  if (judged > 0) {
    absl::StrAppend(&t, "| for scale: rows with p < 0.05 on their own (", judged_on,
                    "), as compare.py marks them; chance alone reaches ", ChanceBound(judged),
                    " of ", judged, " in 1 pair of identical runs out of 20 | ",
                    Of(judged_below_p05, judged), " | — |\n");
  }
  if (r.by_process) {
    absl::StrAppend(&t,
                    "| for scale: the same test with the repetitions as samples, as if each run "
                    "were one process (which overstates how sure it is: repetitions within a "
                    "process share its luck) | ",
                    Of(r.repetition_rows_different, r.repetition_rows_tested), " | — |\n");
  }
  if (by_canary) {
    absl::StrAppend(&t, "| median change of the rows' medians (over the canary) | ",
                    Pct(r.canary_median_row_change), " | — |\n",
                    "| rows the U test calls different at a 5% false discovery rate (raw times) | ",
                    Of(r.rows_different, r.rows_tested),
                    " | — (the machine's drift moves them all) |\n");
  }
  absl::StrAppend(&t, "| median change of the rows' medians (raw) | ", Pct(r.median_row_change),
                  " | — |\n", "| either run marked noisy | ", r.noisy ? "yes" : "no", " | — |\n");
  return t;
}

// What missed, or came near, so the reader knows which figures the verdict
// is about.
std::string Misses(const Reproducibility& r) {
  std::string out;
  if (!r.ratios_moved.empty()) {
    absl::StrAppend(&out, "\nKey ratios that moved more than 10% (old, new; each run's ~95% "
                          "interval for its median ratio):\n\n");
    for (const RatioChange& c : r.ratios_moved) {
      const bool overlap = c.old_low <= c.new_high && c.new_low <= c.old_high;
      absl::StrAppend(
          &out, "- `", c.row, "` over `", c.baseline, "`: ",
          absl::StrFormat("%.4g [%.4g, %.4g] and %.4g [%.4g, %.4g], %+.1f%%", c.old_ratio,
                          c.old_low, c.old_high, c.new_ratio, c.new_low, c.new_high,
                          c.change * 100),
          overlap ? " (the intervals overlap: the ratio's spread within each run covers the move)"
                  : "",
          "\n");
    }
  }
  if (!r.rows_called_different.empty()) {
    absl::StrAppend(&out, "\nRows the U test calls different (", JudgedOn(r), "):\n\n");
    for (const CompareRow& row : r.rows_called_different) {
      absl::StrAppend(&out, "- `", row.name, "`: ",
                      absl::StrFormat("%+.2f%%, p = %.2g, q = %.2g", row.change * 100,
                                      row.p_value, row.q_value),
                      "\n");
    }
  }
  return out;
}

}  // namespace

Reproducibility CheckReproducibility(const ResultsFile& old_file, const ResultsFile& new_file,
                                     std::optional<spawnlab::RatioBaseline> by) {
  Reproducibility r;
  const std::vector<spawnlab::RatioBaseline> baselines =
      by.has_value() ? std::vector<spawnlab::RatioBaseline>{*by} : DeclaredRatioBaselines(old_file);
  CheckRatios(old_file, new_file, baselines, r);
  const Comparison judged = CheckRows(old_file, new_file, r);
  r.noisy = Noisy(old_file) || Noisy(new_file);
  for (const CompareRow& row : judged.rows) {
    if (row.Tested() && row.Different()) r.rows_called_different.push_back(row);
  }
  const bool ratios_ok =
      r.ratios == 0 || (r.median_ratio_change <= 0.02 && (r.ratios_over_10pct == 0 || r.noisy));
  // Where no row could be tested (a run that stopped after fewer than
  // kMinRepetitionsForUTest processes), the key ratios decide alone, and the
  // verdict says so; with no key ratios either, nothing was shown.
  r.rows_untested = r.canary_rows_tested <= 0 && r.rows_tested == 0;
  const bool rows_ok = r.canary_rows_tested > 0
                           ? r.canary_rows_different <= 0.05 * r.canary_rows_tested
                       : r.rows_untested ? r.ratios > 0
                                         : r.rows_different <= 0.05 * r.rows_tested;
  r.meets_targets = ratios_ok && rows_ok;
  std::string verdict =
      !r.meets_targets  ? "Not reproducible within the targets on this machine now: run again at "
                          "a quieter moment, or believe only what both runs say."
      : r.rows_untested ? absl::StrCat(
                              "Reproducible in the key ratios: the two runs agree within their "
                              "targets. The rows' U test was not applied: it needs ",
                              kMinRepetitionsForUTest,
                              " processes a side (--processes=9, or a longer --max_seconds).")
                        : "Reproducible: the two runs agree within the targets.";
  r.table = absl::StrCat("| figure | measured | target |\n|---|---:|---:|\n",
                         RatioLines(r, baselines), RowLines(r), "\n", verdict, "\n", Misses(r));
  return r;
}

}  // namespace analysis
}  // namespace spawnlab
