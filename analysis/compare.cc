// compare.cc: see compare.h.

#include "analysis/compare.h"

#include <cmath>
#include <map>

#include "absl/strings/match.h"
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
  int tested = 0, differ = 0;
  for (const CompareRow& r : c.rows) {
    if (std::isnan(r.p_value) || r.old_n < kMinRepetitionsForUTest ||
        r.new_n < kMinRepetitionsForUTest) {
      continue;
    }
    ++tested;
    differ += r.p_value < 0.05;
  }
  absl::StrAppend(&out, "\n", differ, " of ", tested,
                  " benchmarks with enough repetitions differ (U test p < 0.05); on the raw "
                  "times, which the machine's drift between the two runs moves (--ratios=DIM:VALUE "
                  "compares drift-free ratios).\n");
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

std::string ContextDifferences(const ResultsFile& old_file, const ResultsFile& new_file) {
  std::string out;
  for (const auto& [key, old_value] : old_file.context) {
    const bool machine = absl::StartsWith(key, "kernel.") || absl::StartsWith(key, "cpu.") ||
                         absl::StartsWith(key, "thp.") || absl::StartsWith(key, "mitigation.") ||
                         key == "glibc" || key == "compiler" || key == "virtualization" ||
                         key == "aslr" || key == "host.id" || key == "sanitizer";
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

RatioComparison CompareRatios(const nlohmann::json& old_doc, const nlohmann::json& new_doc,
                              const spawnlab::RatioBaseline& by) {
  RatioComparison c;
  std::map<std::string, spawnlab::PairedRatio> new_ratios;
  for (const spawnlab::PairedRatio& r : spawnlab::PairedRatios(new_doc, by)) new_ratios[r.row] = r;
  std::vector<double> abs_changes;
  for (const spawnlab::PairedRatio& o : spawnlab::PairedRatios(old_doc, by)) {
    auto it = new_ratios.find(o.row);
    if (it == new_ratios.end() || !(o.median > 0)) continue;
    RatioChange r{o.row, o.baseline, o.median, it->second.median, it->second.median / o.median - 1};
    abs_changes.push_back(std::fabs(r.change));
    c.over_5pct += std::fabs(r.change) > 0.05;
    c.over_10pct += std::fabs(r.change) > 0.10;
    c.rows.push_back(r);
  }
  c.median_abs_change = abs_changes.empty() ? std::nan("") : spawnlab::Median(abs_changes);
  return c;
}

std::string FormatRatioComparison(const RatioComparison& c, const spawnlab::RatioBaseline& by) {
  std::string out = absl::StrCat(
      "Key ratios, each row over its row with ", by.dimension, ":", by.value,
      " (median over rounds of the ratio taken within a round):\n\n",
      "| row | old ratio | new ratio | change |\n|---|---:|---:|---:|\n");
  for (const RatioChange& r : c.rows) {
    absl::StrAppend(&out, "| `", r.row, "` | ", absl::StrFormat("%.3f | %.3f | %+.1f%%", r.old_ratio,
                                                                   r.new_ratio, r.change * 100),
                    " |\n");
  }
  absl::StrAppend(&out, "\n", c.rows.size(), " ratios: median change ",
                  absl::StrFormat("%.1f%%", c.median_abs_change * 100), ", ", c.over_5pct,
                  " moved more than 5%, ", c.over_10pct, " more than 10%.\n");
  return out;
}

}  // namespace analysis
