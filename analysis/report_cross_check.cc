// report_cross_check.cc: the clone3 cross-check section: the bench's ratios beside the original
// tools' method.

#include "analysis/report_sections.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "results_model/stats.h"

namespace spawnlab {
namespace analysis {

namespace {

// One side's ratio on minima: the smallest `metric` of the numerator's
// repetitions over the denominator's. A counter that either row lacks (results
// written before it existed) falls back to the time, and says so in *fell_back.
double MinimumRatio(const Series& num, const Series& den, const std::string& metric,
                    bool* fell_back) {
  if (metric != "time") {
    const std::vector<double> a = num.Samples(metric), b = den.Samples(metric);
    if (!a.empty() && !b.empty()) return Min(a) / Min(b);
    *fell_back = true;
  }
  return num.Min() / den.Min();
}

// One side's ratio on medians: paired within rounds (the median over rounds of
// the ratio in each), or the ratio of the medians where under 2 rounds pair.
double MedianRatio(const Series& num, const Series& den) {
  const std::vector<double> paired = spawnlab::RoundRatios(num.samples_ns, den.samples_ns);
  return paired.size() >= 2 ? spawnlab::Median(paired) : num.Median() / den.Median();
}

// The pairs of one bench run and one cross-check run: each ratio on minima
// and medians, whether they agree, and a line counting agreements.
std::string CrossCheckTable(const ResultsFile& bench, const ResultsFile& cross,
                            const CrossCheckSpec& spec) {
  std::string out =
      "| ratio | bench (min) | crosscheck (min) | agree | bench (median) | crosscheck (median) "
      "| agree | crosscheck, its own statistic | n | ballast in consecutive frames "
      "| page faults per child |\n"
      "|---|---:|---:|---|---:|---:|---|---:|---:|---:|---:|\n";
  // Where a numerator's ballast lay (lib/ballast.h), bench / cross-check:
  // the median over its repetitions of the counter both write.
  auto placement = [](const Series& s) -> std::string {
    std::vector<double> v = s.Samples("counter:ballast_adjacent");
    return v.empty() ? "—" : absl::StrFormat("%.1f%%", Median(v) * 100);
  };
  // The page faults each side's children took, numerator's and denominator's
  // (the median over repetitions of the counter both write): a forked child
  // faults in the pages its path to exec touches, which the parent binary's
  // layout decides.
  auto faults = [](const Series& num, const Series& den) -> std::string {
    std::vector<double> a = num.Samples("counter:child_faults");
    std::vector<double> b = den.Samples("counter:child_faults");
    if (a.empty() || b.empty()) return "—";
    return absl::StrFormat("%.3g, %.3g", Median(a), Median(b));
  };
  int agree = 0, pairs = 0;
  bool any_fell_back = false;
  for (const CrossCheckPair& r : spec.pairs) {
    const Series* bn = bench.Find(r.bench_numerator);
    const Series* bd = bench.Find(r.bench_denominator);
    const Series* cn = cross.Find(r.cross_numerator);
    const Series* cd = cross.Find(r.cross_denominator);
    if (!bn || !bd || !cn || !cd || !bn->measured() || !bd->measured() || !cn->measured() ||
        !cd->measured()) {
      absl::StrAppend(&out, "| ", r.what, " | rows missing | | | | | | | | | |\n");
      continue;
    }
    bool fell_back = false;
    const double min_b = MinimumRatio(*bn, *bd, r.minimum, &fell_back);
    const double min_c = MinimumRatio(*cn, *cd, r.minimum, &fell_back);
    any_fell_back |= fell_back;
    const double med_b = MedianRatio(*bn, *bd), med_c = MedianRatio(*cn, *cd);
    const bool min_ok = CrossCheckAgrees(min_b, min_c, spec.tolerance);
    const bool med_ok = CrossCheckAgrees(med_b, med_c, spec.tolerance);
    const bool mean = r.own_statistic == "mean";
    const double own = mean ? cn->Mean() / cd->Mean() : min_c;
    pairs += 2;
    agree += min_ok + med_ok;
    const char* mark = fell_back ? "\\*" : "";
    absl::StrAppend(
        &out, "| ", r.what, absl::StrFormat(" | %.3g%s | %.3g%s | ", min_b, mark, min_c, mark),
        min_ok ? "yes" : "**no**", absl::StrFormat(" | %.3g | %.3g | ", med_b, med_c),
        med_ok ? "yes" : "**no**", " | ",
        std::isfinite(own) ? absl::StrFormat("%.3g (%s)", own, mean ? "average" : "minimum") : "—",
        absl::StrFormat(" | %d / %d | ", std::min(bn->Repetitions(), bd->Repetitions()),
                        std::min(cn->Repetitions(), cd->Repetitions())));
    const std::string pb = placement(*bn), pc = placement(*cn);
    const std::string fb = faults(*bn, *bd), fc = faults(*cn, *cd);
    absl::StrAppend(&out, pb == "—" && pc == "—" ? "—" : absl::StrCat(pb, " / ", pc), " | ",
                    fb == "—" && fc == "—" ? "—" : absl::StrCat(fb, " / ", fc), " |\n");
  }
  absl::StrAppend(&out, "\n", agree, " of ", pairs, " comparisons agree within ±",
                  spec.tolerance * 100, "%.");
  if (any_fell_back) {
    absl::StrAppend(&out,
                    " \\* Minima of the repetitions' times: a row of these results lacks "
                    "the per-spawn counter the pair's minimum is of.");
  }
  // The parent both sides divide by, as each recorded it: a difference in its
  // size moves every ratio over it.
  auto size = [](const Series* s) -> std::string {
    if (s == nullptr) return "not recorded";
    std::vector<double> rss = s->Samples("counter:parent_rss_kib");
    std::vector<double> pte = s->Samples("counter:parent_pte_kib");
    std::vector<double> maps = s->Samples("counter:parent_mappings");
    if (rss.empty() || pte.empty() || maps.empty()) return "not recorded";
    return absl::StrFormat("%.0f KiB resident, %.0f KiB of page tables, %.0f mappings", Median(rss),
                           Median(pte), Median(maps));
  };
  if (!spec.pairs.empty()) {
    const CrossCheckPair& first = spec.pairs.front();
    absl::StrAppend(&out, " The denominators' parent (median over repetitions): bench ",
                    size(bench.Find(first.bench_denominator)), "; cross-check ",
                    size(cross.Find(first.cross_denominator)), ".");
  }
  absl::StrAppend(&out, "\n\n");
  return out;
}

}  // namespace

std::string CrossCheck(const ResultsFile& bench, const CrossCheckSpec& spec,
                       const std::vector<const ResultsFile*>& all,
                       const std::vector<ResultsFile>& reruns) {
  const ResultsFile* cross = nullptr;
  for (const ResultsFile* f : all) {
    if (f->experiment() == spec.experiment && f->kernel() == bench.kernel() &&
        f->host() == bench.host() && f->quick() == bench.quick()) {
      cross = f;
    }
  }
  std::string out = "### Cross-check\n\n";
  if (cross == nullptr) {
    absl::StrAppend(&out, "No ", spec.experiment, " results for this kernel and host: run `",
                    spec.command, "` right after the bench.\n\n");
    return out;
  }
  absl::StrAppend(
      &out, "The same ratios from `", cross->path.substr(cross->path.rfind('/') + 1),
      "`: ", spec.description, ". They agree when the two ratios are within ±",
      spec.tolerance * 100,
      "% of each other, on the minima and on the medians. Each minimum is the tool's own: ",
      "spawnbench's is its fastest single spawn (each side's fastest, `fastest_us`), ",
      "lat_proc's its fastest repetition (one bulk-timed loop). Each median is paired: the ",
      "median over rounds of the ratio within each round, so that the machine's drift between ",
      "rounds cancels. The cross-check's own statistic ",
      "is shown too (the average over its spawns, or the minimum over its repetitions, as the ",
      "tool reports). *n*: repetitions behind each bench figure / cross-check figure. ",
      "*Ballast in consecutive frames*: for a parent with touched ballast, the share of its ",
      "pages whose page frame follows the previous page's, bench / cross-check (median over ",
      "repetitions; — where unknown). Both place their ballast that way on purpose: on a VM, a ",
      "1 GiB fork from scattered pages took twice as long (`lib/ballast.h`). *Page faults per ",
      "child*: the numerator's children's and the denominator's, bench / cross-check (median ",
      "over repetitions of `child_faults`, each child's whole life, from getrusage outside the ",
      "interval; — where unrecorded). fork copies no page table entries of a mapping without ",
      "anonymous pages, so a forked child faults in the text and data its path to exec touches, ",
      "inside the interval to its first instruction; how many pages that is depends on the ",
      "parent binary's layout, not on the method.\n\n", CrossCheckTable(bench, *cross, spec));
  // The two runs made right after (the suite's --self_check): the same
  // comparison, so that agreement is shown twice, not once by luck.
  std::string why;
  const ResultsFile* bench_rerun = RerunOf(bench, reruns, &why);
  const ResultsFile* cross_rerun = RerunOf(*cross, reruns, &why);
  if (bench_rerun != nullptr && cross_rerun != nullptr) {
    absl::StrAppend(&out, "The same comparison for the two runs made right after these (`",
                    bench_rerun->path.substr(bench_rerun->path.rfind('/') + 1), "` against `",
                    cross_rerun->path.substr(cross_rerun->path.rfind('/') + 1), "`):\n\n",
                    CrossCheckTable(*bench_rerun, *cross_rerun, spec));
  }
  return out;
}

std::string HarnessOverhead(const ResultsFile& f, const std::string& row) {
  if (row.empty()) return "";
  const Series* empty = f.Find(row);
  if (empty == nullptr || !empty->measured()) return "";
  const Series* fastest = nullptr;
  for (const Series& s : f.series) {
    if (s.parsed.family == "spawn" && s.measured() &&
        (fastest == nullptr || s.Median() < fastest->Median())) {
      fastest = &s;
    }
  }
  if (fastest == nullptr) return "";
  return absl::StrCat("**Harness overhead.** The clock reads that bracket every measurement cost ",
                      FormatNanos(empty->Median()), " (median of `", row,
                      "`): ", absl::StrFormat("%.3f%%", empty->Median() / fastest->Median() * 100),
                      " of the fastest spawn row (`", fastest->name, "`, ",
                      FormatNanos(fastest->Median()), ").\n\n");
}

}  // namespace analysis
}  // namespace spawnlab
