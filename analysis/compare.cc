// compare.cc: see compare.h.

#include "analysis/compare.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "analysis/claims.h"
#include "analysis/stats.h"

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
    CompareRow row{o.name, o.Median(), n->Median(), 0, std::nan(""), o.Repetitions(),
                   n->Repetitions()};
    row.change = (row.new_median_ns - row.old_median_ns) / std::fabs(row.old_median_ns);
    if (o.samples_ns.size() >= 2 && n->samples_ns.size() >= 2) {
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
  c.geomean_ratio = GeometricMean(ratios);
  return c;
}

std::string FormatComparison(const Comparison& c) {
  std::string out =
      "| benchmark | old | new | change | U test p | reps (old/new) |\n"
      "|---|---:|---:|---:|---:|---|\n";
  int weak = 0;
  for (const CompareRow& r : c.rows) {
    const bool few = r.old_n < kMinRepetitionsForUTest || r.new_n < kMinRepetitionsForUTest;
    weak += few;
    std::string p = std::isnan(r.p_value) ? "n/a" : absl::StrFormat("%.4f", r.p_value);
    if (!std::isnan(r.p_value) && r.p_value < 0.05 && !few) p += " (significant)";
    absl::StrAppend(&out, "| `", r.name, "` | ", FormatNanos(r.old_median_ns), " | ",
                    FormatNanos(r.new_median_ns), " | ", absl::StrFormat("%+.2f%%", r.change * 100),
                    " | ", p, " | ", r.old_n, "/", r.new_n, few ? " (fewer than 9)" : "", " |\n");
  }
  absl::StrAppend(&out, "\nGeometric mean of new/old: ",
                  std::isnan(c.geomean_ratio)
                      ? "n/a"
                      : absl::StrFormat("%.4f (%+.2f%%)", c.geomean_ratio,
                                        (c.geomean_ratio - 1) * 100),
                  " over ", c.rows.size(), " benchmarks.\n");
  if (weak > 0) {
    absl::StrAppend(&out, "\nwarning: ", weak, " benchmark(s) have fewer than ",
                    kMinRepetitionsForUTest,
                    " repetitions on a side: the U test cannot be trusted for them "
                    "(run with --benchmark_repetitions=9 or more).\n");
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

}  // namespace analysis
