// report_key_ratios.cc: the key-ratios section: each spec'd ratio with its interval and bound.

#include <algorithm>
#include <cmath>
#include <map>
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

std::string UmlCaveat(const ResultsFile& f) {
  return absl::StrCat(
      "**Under User-Mode Linux** (`bazel run //suite:uml`), so these times are no ",
      Cell(f.kernel()), " machine's: UML traps every system call of its programs, which ",
      "makes each call cost many times what it costs on a machine. What they can show: which ",
      "rows run and which skip on this kernel, and, between rows that differ by how many ",
      "system calls they make, which costs more and how the cost grows (the size of the gap is ",
      "overstated). What they cannot: any absolute time, or a difference of other work. No ",
      "verdict or comparison uses them.");
}

std::string UmlRatioTable(const ResultsFile& f, const ReportSpec& spec) {
  std::string rows;
  for (const KeyRatioSpec& k : spec.uml_ratios) {
    const KeyRatioValue v = ComputeKeyRatio(f, k);
    if (!v.measured()) {
      absl::StrAppend(&rows, "| ", k.what, " | rows missing or skipped | | |\n");
      continue;
    }
    absl::StrAppend(
        &rows, "| ", k.what, " | `", v.denominator->name, "` | ",
        v.paired ? absl::StrFormat("%.1f [%.1f, %.1f], %d rounds", v.judged, v.low, v.high,
                                   std::min(v.numerator->samples_ns.size(),
                                            v.denominator->samples_ns.size()))
                 : "—",
        " | ", absl::StrFormat("%.1f", v.of_medians), " |\n");
  }
  if (rows.empty()) return "";
  return absl::StrCat("| ratio under UML | against | paired: median [95% interval] | of medians |\n",
                      "|---|---|---:|---:|\n", rows, "\n");
}

std::string UmlFindings(const std::vector<const ResultsFile*>& files, const ReportSpec& spec,
                        const std::map<const ResultsFile*, std::string>& pages) {
  if (spec.uml_ratios.empty()) return "";
  // The newest full run under UML, else its newest smoke.
  const ResultsFile* best = nullptr;
  for (const ResultsFile* f : files) {
    if (!f->uml()) continue;
    if (best == nullptr || (best->quick() && !f->quick()) ||
        (best->quick() == f->quick() && Ctx(*f, "run.start") > Ctx(*best, "run.start"))) {
      best = f;
    }
  }
  std::string out = "### Under User-Mode Linux: the rows this host cannot run\n\n";
  if (best == nullptr) {
    return absl::StrCat(out, "No run under User-Mode Linux in results/ yet: `bazel run ",
                        "//suite:uml -- --full --only=", spec.experiment,
                        " --processes=2 --rounds=6`.\n\n");
  }
  const auto page = pages.find(best);
  return absl::StrCat(out, UmlCaveat(*best), "\n\nFrom ", RunLine(*best),
                      page == pages.end() ? ""
                                          : absl::StrCat(" ([", page->second.substr(
                                                                     page->second.rfind('/') + 1),
                                                         "](", page->second, "))"),
                      ".\n\n", UmlRatioTable(*best, spec));
}

}  // namespace analysis
}  // namespace spawnlab
