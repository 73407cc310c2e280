// report_key_ratios.cc: the key-ratios section: each spec'd ratio with its interval and bound.

#include <cmath>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "analysis/report_sections.h"
#include "results_model/bench_results.h"
#include "results_model/stats.h"

namespace spawnlab {
namespace analysis {

KeyRatioValue ComputeKeyRatio(const ResultsFile& f, const KeyRatioSpec& k) {
  KeyRatioValue v;
  v.numerator = f.Find(k.numerator);
  for (const std::string& d : k.denominators) {
    const Series* s = f.Find(d);
    if (s != nullptr && s->measured() &&
        (v.denominator == nullptr || s->Median() < v.denominator->Median())) {
      v.denominator = s;
    }
  }
  if (v.numerator == nullptr || v.denominator == nullptr || !v.numerator->measured()) {
    v.numerator = v.denominator = nullptr;
    return v;
  }
  v.of_medians = v.numerator->Median() / v.denominator->Median();
  const std::vector<double> paired =
      spawnlab::RoundRatios(v.numerator->samples_ns, v.denominator->samples_ns);
  v.paired = paired.size() >= 2;
  v.judged = v.paired ? spawnlab::Median(paired) : v.of_medians;
  if (v.paired) std::tie(v.low, v.high) = spawnlab::MedianInterval(paired);
  return v;
}

std::string KeyRatioTable(const ResultsFile& f, const ReportSpec& spec) {
  std::string rows;
  for (const KeyRatioSpec& k : spec.key_ratios) {
    const KeyRatioValue v = ComputeKeyRatio(f, k);
    if (!v.measured()) {
      absl::StrAppend(&rows, "| ", k.what, " | rows missing | | | |\n");
      continue;
    }
    const Series* num = v.numerator;
    const Series* den = v.denominator;
    const double p = num->samples_ns.size() >= 2 && den->samples_ns.size() >= 2
                         ? MannWhitneyU(num->samples_ns, den->samples_ns)
                         : std::nan("");
    const std::string paired_cell =
        v.paired ? absl::StrFormat("%.3f [%.3f, %.3f]", v.judged, v.low, v.high) : "—";
    absl::StrAppend(
        &rows, "| ", k.what, " | `", den->name, "` | ", paired_cell, " | ",
        absl::StrFormat("%.3f (%+.1f%%)", v.of_medians, (v.of_medians - 1) * 100), " | ",
        FormatPValue(p), " | ",
        absl::StrFormat("%s %.2f", v.judged <= k.bound ? "met: at most" : "**missed**: at most",
                        k.bound),
        " |\n");
  }
  if (rows.empty()) return "";
  return absl::StrCat(
      "### Key ratios\n\n",
      "*paired*: the ratio within each round (repetition k of both rows ran in round k), its ",
      "median over rounds and a 95% interval; the bound is judged on it. *of medians*: the ",
      "ratio of the two rows' medians, for comparison.\n\n",
      "| ratio | against | paired: median [95% interval] | of medians | U test p | bound |\n",
      "|---|---|---:|---:|---:|---|\n", rows, "\n");
}

}  // namespace analysis
}  // namespace spawnlab
