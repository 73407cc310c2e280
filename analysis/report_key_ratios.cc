// report_key_ratios.cc: the key-ratios section: each spec'd ratio with its interval and bound.

#include "analysis/report_sections.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "results_model/stats.h"
#include "results_model/bench_results.h"

namespace spawnlab {
namespace analysis {

std::string KeyRatioTable(const ResultsFile& f, const ReportSpec& spec) {
  std::string rows;
  for (const KeyRatioSpec& k : spec.key_ratios) {
    const Series* num = f.Find(k.numerator);
    const Series* den = nullptr;
    for (const std::string& d : k.denominators) {
      const Series* s = f.Find(d);
      if (s != nullptr && s->measured() && (den == nullptr || s->Median() < den->Median())) den = s;
    }
    if (num == nullptr || den == nullptr || !num->measured()) {
      absl::StrAppend(&rows, "| ", k.what, " | rows missing | | | |\n");
      continue;
    }
    const double ratio = num->Median() / den->Median();
    const double p = num->samples_ns.size() >= 2 && den->samples_ns.size() >= 2
                         ? MannWhitneyU(num->samples_ns, den->samples_ns)
                         : std::nan("");
    const std::vector<double> paired = spawnlab::RoundRatios(num->samples_ns, den->samples_ns);
    const bool have_paired = paired.size() >= 2;
    const double judged = have_paired ? spawnlab::Median(paired) : ratio;
    std::string paired_cell = "—";
    if (have_paired) {
      const auto [low, high] = spawnlab::MedianInterval(paired);
      paired_cell = absl::StrFormat("%.3f [%.3f, %.3f]", judged, low, high);
    }
    absl::StrAppend(
        &rows, "| ", k.what, " | `", den->name, "` | ", paired_cell, " | ",
        absl::StrFormat("%.3f (%+.1f%%)", ratio, (ratio - 1) * 100), " | ", FormatPValue(p), " | ",
        absl::StrFormat("%s %.2f", judged <= k.bound ? "met: at most" : "**missed**: at most",
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
