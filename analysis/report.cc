// report.cc: see report.h.

#include "analysis/report.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/time/time.h"
#include "analysis/compare.h"
#include "results_model/stats.h"
#include "results_model/bench_results.h"
#include "results_model/context_keys.h"

namespace spawnlab {
namespace analysis {
namespace {

// Markdown table cells: no pipes or newlines.
std::string Cell(absl::string_view s) {
  return absl::StrReplaceAll(s, {{"|", "\\|"}, {"\n", " "}});
}

// The revision, marked when the run's checkout differed from it.
std::string ShortRevision(const ResultsFile& f) {
  auto it = f.context.find("git.revision");
  if (it == f.context.end()) return "unknown";
  auto tree = f.context.find("git.tree");
  const bool dirty = tree != f.context.end() && absl::StartsWith(tree->second, "dirty");
  return Cell(absl::StrCat(it->second.substr(0, 12), dirty ? " (dirty)" : ""));
}

// A context value, made safe for a table cell (a '|' or a newline in a CPU
// model or a process name would break the table).
std::string Ctx(const ResultsFile& f, const char* key) {
  auto it = f.context.find(key);
  return it == f.context.end() ? "—" : Cell(it->second);
}

// "noisy", "quiet" or "not recorded" (results from before the run record).
std::string NoisyMark(const ResultsFile& f) {
  const std::string n = Ctx(f, "run.noisy");
  if (n == "—") return "not recorded";
  return absl::StartsWith(n, "yes") ? "**noisy**" : "quiet";
}

// The conditions the run was measured under (bench/run_record.h).
std::string RunConditions(const ResultsFile& f) {
  if (Ctx(f, "run.start") == "—") {
    return "The run's conditions were not recorded (results from before the run record).\n\n";
  }
  std::string out = absl::StrCat(
      "| run | |\n|---|---|\n", "| window | ", Ctx(f, "run.start"), " to ", Ctx(f, "run.end"), " (",
      Ctx(f, "run.seconds"), " s) |\n", "| load average before, after | ",
      Ctx(f, "run.loadavg_before"), "; ", Ctx(f, "run.loadavg_after"), " |\n",
      "| CPU used by other processes | ", Ctx(f, "run.other_cpu_cores"), " cores |\n",
      "| busiest other processes | ", Ctx(f, "run.busiest_others"), " |\n", "| steal, iowait | ",
      Ctx(f, "run.steal_pct"), "%, ", Ctx(f, "run.iowait_pct"), "% |\n",
      "| the bench's involuntary context switches | ", Ctx(f, "run.involuntary_switches"), " |\n",
      "| bench lock | ", Ctx(f, "run.lock"), " |\n");
  if (Ctx(f, spawnlab::keys::kCanaryRow) != "—") {
    const std::string drift = Ctx(f, spawnlab::keys::kCanaryDriftPct);
    absl::StrAppend(
        &out, "| drift canary | `", Ctx(f, spawnlab::keys::kCanaryRow), "` ",
        absl::StartsWith(drift, "unknown")
            ? drift
            : absl::StrCat("moved ", drift, "% (last half against first half of ", "its rounds)"),
        " |\n");
    const std::string spread = Ctx(f, spawnlab::keys::kCanarySpreadPct);
    if (spread != "—" && !absl::StartsWith(spread, "unknown")) {
      absl::StrAppend(&out, "| canary spread | its slowest quarter of rounds ", spread,
                      "% above its fastest |\n");
    }
  }
  absl::StrAppend(&out, "| noisy | ", Ctx(f, "run.noisy"),
                  " (thresholds: README, \"Noisy runs\") |\n\n");
  return out;
}

std::string Percent(double x) { return std::isnan(x) ? "n/a" : absl::StrFormat("%.1f%%", x * 100); }

// (kernel, host) pairs in release order (NaturalLess), then by host.
struct KernelHostLess {
  bool operator()(const std::pair<std::string, std::string>& a,
                  const std::pair<std::string, std::string>& b) const {
    if (a.first != b.first) return NaturalLess(a.first, b.first);
    return NaturalLess(a.second, b.second);
  }
};

// Files ordered by experiment, kernel (in release order), host, path: the
// order of every listing.
std::vector<const ResultsFile*> Sorted(const ResultsSet& set) {
  std::vector<const ResultsFile*> files;
  for (const ResultsFile& f : set.files) files.push_back(&f);
  std::sort(files.begin(), files.end(), [](const ResultsFile* a, const ResultsFile* b) {
    if (a->experiment() != b->experiment()) return a->experiment() < b->experiment();
    if (a->kernel() != b->kernel()) return NaturalLess(a->kernel(), b->kernel());
    if (a->host() != b->host()) return NaturalLess(a->host(), b->host());
    return NaturalLess(a->path, b->path);
  });
  return files;
}

// ---- Charts ---------------------------------------------------------------

// The top of a time axis: 10% above the largest bar, rounded up to two
// significant figures. Every axis starts at zero: Mermaid's xychart would
// otherwise scale from the smallest bar to the largest, and draw 358 against
// 365 µs as a steep step.
double AxisTop(double max) {
  if (!(max > 0)) return 1;
  const double x = max * 1.1;
  const double p = std::pow(10.0, std::floor(std::log10(x)) - 1);
  return std::ceil(x / p) * p;
}

std::string Xml(absl::string_view s) {
  return absl::StrReplaceAll(s, {{"&", "&amp;"}, {"<", "&lt;"}, {">", "&gt;"}, {"\"", "&quot;"}});
}

// A chart's vertical axis: linear from zero, or, where the values span more
// than 20x (a 4 GiB fork beside a minimal one), logarithmic over whole powers
// of ten, so that every bar can be read.
struct Axis {
  bool log = false;
  double bottom = 0, top = 1;  // log: powers of ten
  std::vector<double> ticks;
  // Where `v` sits, from 0 (the bottom) to 1 (the top).
  double Fraction(double v) const {
    if (!log) return v / top;
    if (!(v > 0)) return 0;
    return std::max(0.0, (std::log10(v) - std::log10(bottom)) /
                             (std::log10(top) - std::log10(bottom)));
  }
};

Axis MakeAxis(double max, double min_positive) {
  Axis a;
  if (max > 0 && min_positive > 0 && max / min_positive > 20) {
    a.log = true;
    a.bottom = std::pow(10.0, std::floor(std::log10(min_positive)));
    a.top = std::pow(10.0, std::ceil(std::log10(max * 1.05)));
    for (double v = a.bottom; v <= a.top * 1.001; v *= 10) a.ticks.push_back(v);
    return a;
  }
  // Round ticks: a step of 1, 2, 2.5 or 5 times a power of ten, about five of
  // them, the top one above the highest dot.
  const double raw = (max > 0 ? max * 1.05 : 1) / 5;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = 10 * mag;
  for (double m : {1.0, 2.0, 2.5, 5.0}) {
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  }
  const int ticks = static_cast<int>(std::ceil((max > 0 ? max * 1.05 : 1) / step));
  a.top = step * ticks;
  for (int i = 0; i <= ticks; ++i) a.ticks.push_back(step * i);
  return a;
}

// One bar per x value with every repetition drawn as a dot on it: the spread
// that a Mermaid bar chart cannot show. `bars`: (x value, samples in µs).
// Deterministic: the same input gives the same bytes.
std::string SpreadSvg(const std::string& title,
                      const std::vector<std::pair<std::string, std::vector<double>>>& bars,
                      const std::string& unit) {
  constexpr int kHeight = 380, kLeft = 70, kRight = 20, kTop = 40, kBottom = 60;
  // 720 wide, or wider where the labels (12 px, about 7 px a character) or
  // the title (14 px) would not fit.
  size_t longest = 0;
  for (const auto& [x, v] : bars) longest = std::max(longest, x.size());
  const int kWidth =
      std::max({720, kLeft + kRight + static_cast<int>(bars.size() * (longest * 7 + 16)),
                kLeft + kRight + static_cast<int>(title.size() * 8)});
  const int plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  double max = 0, min_positive = 0;
  for (const auto& [x, v] : bars) {
    for (double y : v) {
      max = std::max(max, y);
      if (y > 0 && (min_positive == 0 || y < min_positive)) min_positive = y;
    }
  }
  const Axis axis = MakeAxis(max, min_positive);
  auto y_of = [&](double v) { return kTop + plot_h - axis.Fraction(v) * plot_h; };
  std::string out = absl::StrCat(
      kGeneratedMarker, "\n",
      absl::StrFormat("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                      "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n",
                      kWidth, kHeight, kWidth, kHeight),
      absl::StrFormat("<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", kWidth, kHeight),
      absl::StrFormat("<text x=\"%d\" y=\"22\" font-size=\"14\">", kLeft), Xml(title), "</text>\n");
  // The axis: from zero, or in powers of ten on a log scale.
  for (const double v : axis.ticks) {
    absl::StrAppend(
        &out,
        absl::StrFormat("<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
                        kLeft, kWidth - kRight, y_of(v), y_of(v)),
        absl::StrFormat("<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", kLeft - 6,
                        y_of(v) + 4,
                        v == std::floor(v) ? absl::StrFormat("%.0f", v) : absl::StrFormat("%g", v)));
  }
  absl::StrAppend(&out, absl::StrFormat("<text x=\"16\" y=\"%d\" transform=\"rotate(-90 16 %d)\" "
                                        "text-anchor=\"middle\">%s</text>\n",
                                        kTop + plot_h / 2, kTop + plot_h / 2,
                                        Xml(axis.log ? unit + ", log scale" : unit)));
  const double slot = bars.empty() ? plot_w : static_cast<double>(plot_w) / bars.size();
  for (size_t i = 0; i < bars.size(); ++i) {
    const auto& [x, v] = bars[i];
    const double left = kLeft + slot * i + slot * 0.15, width = slot * 0.7;
    const double median = Median(v);
    absl::StrAppend(
        &out,
        absl::StrFormat("<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                        "fill=\"#c9d4f0\"><title>%s: median %.4g %s, n = %d</title></rect>\n",
                        left, y_of(median), width, kTop + plot_h - y_of(median), Xml(x), median,
                        Xml(unit), static_cast<int>(v.size())),
        absl::StrFormat("<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
                        "stroke=\"#1f3d99\" stroke-width=\"2\"/>\n",
                        left, left + width, y_of(median), y_of(median)));
    // The repetitions in the order they were measured, spread across the bar.
    for (size_t k = 0; k < v.size(); ++k) {
      const double cx = left + width * (k + 1) / (v.size() + 1);
      absl::StrAppend(&out, absl::StrFormat("<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" "
                                            "fill=\"#c0392b\"/>\n",
                                            cx, y_of(v[k])));
    }
    absl::StrAppend(&out,
                    absl::StrFormat("<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">",
                                    left + width / 2, kTop + plot_h + 18),
                    Xml(x), "</text>\n");
  }
  absl::StrAppend(
      &out,
      absl::StrFormat("<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", kLeft,
                      kWidth - kRight, kTop + plot_h, kTop + plot_h),
      absl::StrFormat("<text x=\"%d\" y=\"%d\" fill=\"#555\">bar and line: median; dots: each "
                      "repetition, in the order measured</text>\n",
                      kLeft, kHeight - 12),
      "</svg>\n");
  return out;
}

// The values of a row's dimensions that its chart neither fixes nor plots,
// in name order: "libc" for syscall/op:getpid/via:libc charted by op.
std::string OtherDims(const spawnlab::BenchName& name, const ChartSpec& spec) {
  std::vector<std::string> parts;
  for (const auto& [k, v] : name.dims) {
    if (k == spec.x || k == spec.split || spec.rows.fixed.count(k)) continue;
    parts.push_back(v);
  }
  return absl::StrJoin(parts, "/");
}

// One Mermaid bar chart of medians per split value (ReportSpec::charts), each
// with an SVG beside it that shows every repetition. The SVGs go into `files`
// as `<stem>-<n>.svg`, n counting from `*next`.
std::string Charts(const ResultsFile& f, const ReportSpec& report, const std::string& stem,
                   int* next, std::map<std::string, std::string>* files) {
  std::string out;
  for (const ChartSpec& spec : report.charts) {
    // split value -> [(x value, samples in ns)] in file order.
    std::vector<std::string> splits;
    std::map<std::string, std::vector<std::pair<std::string, std::vector<double>>>> bars;
    std::map<std::string, std::vector<std::string>> others;  // per bar: OtherDims
    for (const Series& s : f.series) {
      if (!s.measured() || !Selects(spec.rows, s.parsed) || !s.parsed.dims.count(spec.x)) continue;
      // A chart split by a dimension shows the rows that have it; the others
      // would make a chart of their own under the split chart's title.
      if (!spec.split.empty() && !s.parsed.dims.count(spec.split)) continue;
      std::string split = spec.split.empty()
                              ? ""
                              : absl::StrCat(spec.split, ": ", s.parsed.dims.at(spec.split), " — ");
      if (!bars.count(split)) splits.push_back(split);
      std::vector<double> ns = s.samples_ns;
      if (ns.empty()) ns.push_back(s.Median());
      bars[split].push_back({s.parsed.dims.at(spec.x), ns});
      others[split].push_back(OtherDims(s.parsed, spec));
    }
    // Two bars with the same x would be told apart by nothing: add the values
    // in which their rows differ ("getpid/libc"; the table names each row).
    for (const std::string& split : splits) {
      std::map<std::string, int> seen;
      for (const auto& [x, v] : bars[split]) ++seen[x];
      for (size_t i = 0; i < bars[split].size(); ++i) {
        if (seen[bars[split][i].first] > 1 && !others[split][i].empty()) {
          absl::StrAppend(&bars[split][i].first, "/", others[split][i]);
        }
      }
    }
    for (const std::string& split : splits) {
      // A unit per chart, the one that suits its bars (ns for a build of
      // tens of ns, ms for a fork of a large parent), in ASCII for Mermaid.
      std::vector<double> medians;
      for (const auto& [x, v] : bars[split]) medians.push_back(Median(v));
      const TimeUnit unit = UnitFor(medians);
      const std::string ascii = unit.name == std::string("µs") ? "us" : unit.name;
      std::vector<std::pair<std::string, std::vector<double>>> scaled = bars[split];
      for (auto& [x, v] : scaled) {
        for (double& y : v) y /= unit.ns;
      }
      std::vector<std::string> xs, ys;
      double max = 0;
      for (const auto& [x, v] : scaled) {
        const double y = Median(v);
        xs.push_back(absl::StrCat("\"", x, "\""));
        ys.push_back(absl::StrFormat(y < 10 ? "%.2f" : "%.1f", y));
        max = std::max(max, y);
      }
      const std::string title = absl::StrCat(split, spec.title, " (median, ", ascii, ")");
      const std::string svg = absl::StrCat(stem, "-", (*next)++, ".svg");
      (*files)[svg] =
          SpreadSvg(absl::StrCat(split, spec.title, " (each repetition, ", unit.name, ")"), scaled,
                    unit.name);
      // Mermaid spreads the labels under the bars; long ones collide, so
      // such a chart is drawn with its bars across and the labels beside.
      size_t label_chars = 0;
      for (const auto& [x, v] : bars[split]) label_chars += x.size() + 2;
      const char* orientation = label_chars > 60 ? " horizontal" : "";
      absl::StrAppend(&out, "```mermaid\nxychart-beta", orientation, "\n    title \"", title,
                      "\"\n", "    x-axis [", absl::StrJoin(xs, ", "), "]\n",
                      absl::StrFormat("    y-axis \"%s\" 0 --> %g\n", ascii, AxisTop(max)),
                      "    bar [", absl::StrJoin(ys, ", "), "]\n```\n\n",
                      "The spread behind it, every repetition: [", svg, "](", svg, ")\n\n");
    }
  }
  return out;
}

}  // namespace

// One unit for a whole table, so that its column reads by eye: the one that
// suits the median of its values (ns, µs, ms or s).
TimeUnit UnitFor(std::vector<double> ns) {
  if (ns.empty()) return {"µs", 1e3};
  std::sort(ns.begin(), ns.end());
  const double typical = ns[ns.size() / 2];
  if (typical >= 1e9) return {"s", 1e9};
  if (typical >= 1e6) return {"ms", 1e6};
  if (typical >= 1e3) return {"µs", 1e3};
  return {"ns", 1};
}

// `ns` in `unit` to three significant figures, without an exponent:
// 1234567 ns in ms is "1.23", 2.12 ns in µs "0.00212".
std::string InUnit(double ns, TimeUnit unit) {
  double v = ns / unit.ns;
  if (v == 0 || !std::isfinite(v)) return absl::StrFormat("%g", v);
  v = std::strtod(absl::StrFormat("%.3g", v).c_str(), nullptr);  // 0.9997 -> 1, not 1.000
  const int decimals = std::max(0, 2 - static_cast<int>(std::floor(std::log10(std::fabs(v)))));
  return absl::StrFormat("%.*f", decimals, v);
}

bool CrossCheckAgrees(double bench_ratio, double crosscheck_ratio, double tolerance) {
  return std::fabs(bench_ratio / crosscheck_ratio - 1) <= tolerance;
}

// ---- The clone3 cross-check ----------------------------------------------

namespace {

const ResultsFile* RerunOf(const ResultsFile& f, const std::vector<ResultsFile>& reruns,
                           std::string* why);

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

// ---- Key ratios -------------------------------------------------------------

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

// ---- Counters ----------------------------------------------------------------

// A counter's value to three significant figures, without an exponent; a
// whole number below 1000 (a count of mappings or threads) as it is, unless
// `sig` asks for figures throughout (a cell whose other values have them).
std::string Figure(double x, bool sig = false) {
  if (std::isnan(x)) return "n/a";
  if (x == 0) return "0";
  if (!sig && x == std::floor(x) && std::fabs(x) < 1000) return absl::StrFormat("%.0f", x);
  // Rounded first, so that 99.95 is "100", not "100.0".
  const double unit = std::pow(10.0, static_cast<int>(std::floor(std::log10(std::fabs(x)))) - 2);
  const double r = std::round(x / unit) * unit;
  const int e = static_cast<int>(std::floor(std::log10(std::fabs(r))));
  return e >= 2 ? absl::StrFormat("%.0f", r) : absl::StrFormat("%.*f", 2 - e, r);
}

// The time unit a counter's name declares (`p99_us`, `reap_ns_per_child`),
// in ns, or 0 when it is not a time.
double CounterTimeScale(absl::string_view name) {
  for (const auto& [tag, ns] :
       {std::pair<const char*, double>{"_ns", 1}, {"_us", 1e3}, {"_ms", 1e6}}) {
    if (absl::EndsWith(name, tag) || absl::StrContains(name, absl::StrCat(tag, "_"))) return ns;
  }
  return 0;
}

// One cell: the median, and the range when the repetitions differ, all three
// in one style (exact counts, or three significant figures).
std::string CounterCell(std::vector<double> v, std::function<std::string(double, bool)> format) {
  std::sort(v.begin(), v.end());
  const bool counts = std::all_of(
      v.begin(), v.end(), [](double x) { return x == std::floor(x) && std::fabs(x) < 1000; });
  const std::string median = format(Median(v), !counts);
  const std::string lo = format(v.front(), !counts), hi = format(v.back(), !counts);
  return lo == hi ? median : absl::StrCat(median, " (", lo, "–", hi, ")");
}

// The counters a spec names, one table each: the median over repetitions,
// and the range when the repetitions differ. A counter that is a time gets
// one unit for its column, the one that suits its values.
std::string CounterTables(const ResultsFile& f, const ReportSpec& spec) {
  std::string out;
  for (const CounterTableSpec& t : spec.counters) {
    std::vector<const Series*> selected;
    for (const Series& s : f.series) {
      if (s.measured() && Selects(t.rows, s.parsed)) selected.push_back(&s);
    }
    if (selected.empty()) continue;
    std::vector<std::optional<TimeUnit>> units;
    for (const std::string& name : t.names) {
      const double scale = CounterTimeScale(name);
      std::vector<double> medians;
      for (const Series* s : selected) {
        std::vector<double> v = s->Samples(absl::StrCat("counter:", name));
        if (!v.empty()) medians.push_back(Median(v) * scale);
      }
      units.push_back(scale > 0 && !medians.empty() ? std::optional(UnitFor(medians))
                                                    : std::nullopt);
    }
    std::string rows;
    for (const Series* s : selected) {
      absl::StrAppend(&rows, "| `", s->name, "` |");
      for (size_t i = 0; i < t.names.size(); ++i) {
        std::vector<double> v = s->Samples(absl::StrCat("counter:", t.names[i]));
        if (v.empty()) {
          absl::StrAppend(&rows, " — |");
          continue;
        }
        if (units[i]) {
          const double scale = CounterTimeScale(t.names[i]);
          const TimeUnit unit = *units[i];
          absl::StrAppend(&rows, " ",
                          CounterCell(v, [&](double x, bool) { return InUnit(x * scale, unit); }),
                          " |");
        } else {
          absl::StrAppend(&rows, " ",
                          CounterCell(v, [](double x, bool sig) { return Figure(x, sig); }), " |");
        }
      }
      absl::StrAppend(&rows, "\n");
    }
    // Say how to read a time only where a column is one: most tables count.
    const bool any_time = std::any_of(
        units.begin(), units.end(), [](const std::optional<TimeUnit>& u) { return u.has_value(); });
    absl::StrAppend(&out, "### ", t.title,
                    "\n\nMedian over the repetitions (range where they differ)",
                    any_time ? "; a time in the unit its column names" : "", ".\n\n| row |");
    std::string rule = "|---|";
    for (size_t i = 0; i < t.names.size(); ++i) {
      absl::StrAppend(&out, " `", t.names[i], "`",
                      units[i] ? absl::StrCat(" (", units[i]->name, ")") : "", " |");
      absl::StrAppend(&rule, "---:|");
    }
    absl::StrAppend(&out, "\n", rule, "\n", rows, "\n");
  }
  return out;
}

// ---- Per-experiment report ------------------------------------------------

std::string RowsTable(const ResultsFile& f) {
  std::vector<double> medians;
  for (const Series& s : f.series) {
    if (s.measured()) medians.push_back(s.Median());
  }
  const TimeUnit unit = UnitFor(medians);
  std::string out =
      absl::StrCat("| row | median (", unit.name, ") | min (", unit.name, ") | stddev (", unit.name,
                   ") | cv | n |\n|---|---:|---:|---:|---:|---:|\n");
  for (const Series& s : f.series) {
    if (!s.measured()) continue;
    const double med = s.Median(), sd = s.Stddev(), mean = s.Mean();
    absl::StrAppend(&out, "| `", s.name, "` | ", InUnit(med, unit), " | ", InUnit(s.Min(), unit),
                    " | ", InUnit(sd, unit), " | ", Percent(sd / mean), " | ", s.Repetitions(),
                    " |\n");
  }
  std::string skipped;
  for (const Series& s : f.series) {
    if (!s.skipped.empty()) {
      absl::StrAppend(&skipped, "| `", s.name, "` | skipped | ", Cell(s.skipped), " |\n");
    } else if (!s.error.empty()) {
      absl::StrAppend(&skipped, "| `", s.name, "` | **failed** | ", Cell(s.error), " |\n");
    }
  }
  if (!skipped.empty()) {
    absl::StrAppend(&out, "\nRows that did not run:\n\n| row | | why |\n|---|---|---|\n", skipped);
  }
  return out;
}

std::string Environment(const ResultsFile& f) {
  std::string out =
      "<details><summary>Environment (the results' context block)</summary>\n\n"
      "| key | value |\n|---|---|\n";
  for (const auto& [key, value] : f.context) {
    if (key == "caches" || key == "load_avg" || key == "executable") continue;
    absl::StrAppend(&out, "| `", key, "` | ", Cell(value), " |\n");
  }
  absl::StrAppend(&out, "\n</details>\n\n");
  return out;
}

// Medians side by side, and each file's change against the first with the
// U test's p-value (a change on a noisy run, or with p above 0.05, is not one
// to believe).
// The rows an experiment is summed up by across kernels: its spec's key rows,
// its key ratios' rows and its drift canary, each once, in that order.
std::vector<std::string> KeyRows(const ReportSpec& spec, const ResultsFile& f) {
  std::vector<std::string> rows = spec.key_rows;
  for (const KeyRatioSpec& k : spec.key_ratios) {
    rows.push_back(k.numerator);
    rows.insert(rows.end(), k.denominators.begin(), k.denominators.end());
  }
  if (std::string canary = Ctx(f, spawnlab::keys::kCanaryRow); !canary.empty() && canary != "—") {
    rows.push_back(canary);
  }
  std::vector<std::string> unique;
  std::set<std::string> seen;
  for (const std::string& r : rows) {
    if (seen.insert(r).second) unique.push_back(r);
  }
  return unique;
}

std::string AcrossKernels(const std::vector<const ResultsFile*>& all, const ReportSpec& spec) {
  std::vector<const ResultsFile*> files;  // UML's times compare with nothing
  for (const ResultsFile* f : all) {
    if (!f->uml()) files.push_back(f);
  }
  if (files.size() < 2) return "";
  const ResultsFile& base = *files[0];
  std::vector<double> medians;
  for (const ResultsFile* f : files) {
    for (const Series& s : f->series) {
      if (s.measured()) medians.push_back(s.Median());
    }
  }
  const TimeUnit unit = UnitFor(medians);
  // A change is shown only against a file that differs from the first in
  // exactly one of kernel and host: where both differ, neither explains it.
  auto comparable = [&base](const ResultsFile& f) {
    return (f.kernel() == base.kernel()) != (f.host() == base.host());
  };
  std::string out =
      absl::StrCat("## Across kernels and hosts\n\nMedians in ", unit.name,
                   "; each column is one results file. *change*: ", "against the first column (",
                   Cell(base.kernel()), " on ", Cell(base.host()), base.quick() ? ", quick" : "",
                   "), with the U test's p-value over the repetitions, only where exactly one "
                   "of kernel and host differs from it; where both differ the pair is *not "
                   "comparable* and the medians stand side by side.\n\n| row |");
  std::string rule = "|---|";
  for (size_t i = 0; i < files.size(); ++i) {
    const ResultsFile* f = files[i];
    absl::StrAppend(&out, " ", Cell(f->kernel()), " on ", Cell(f->host()),
                    f->quick() ? " (quick)" : "", NoisyMark(*f) == "**noisy**" ? " (noisy)" : "",
                    " |");
    absl::StrAppend(&rule, "---:|");
    if (i > 0) {
      absl::StrAppend(&out, comparable(*f) ? " change (p) |" : " not comparable |");
      absl::StrAppend(&rule, "---:|");
    }
  }
  absl::StrAppend(&out, "\n", rule, "\n");
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (const ResultsFile* f : files) {
    for (const Series& s : f->series) {
      if (seen.insert(s.name).second) names.push_back(s.name);
    }
  }
  for (const std::string& name : names) {
    absl::StrAppend(&out, "| `", name, "` |");
    const Series* first = base.Find(name);
    for (size_t i = 0; i < files.size(); ++i) {
      const Series* s = files[i]->Find(name);
      absl::StrAppend(&out, " ",
                      s == nullptr    ? "—"
                      : s->measured() ? InUnit(s->Median(), unit)
                                      : "skipped",
                      " |");
      if (i == 0) continue;
      if (s == nullptr || first == nullptr || !s->measured() || !first->measured() ||
          !comparable(*files[i])) {
        absl::StrAppend(&out, " — |");
        continue;
      }
      const double change = s->Median() / first->Median() - 1;
      const bool testable = s->samples_ns.size() >= 2 && first->samples_ns.size() >= 2;
      const double p = testable ? MannWhitneyU(first->samples_ns, s->samples_ns) : std::nan("");
      absl::StrAppend(
          &out, absl::StrFormat(" %+.1f%%", change * 100), " (",
          std::isnan(p) ? "n/a" : absl::StrCat("p ", p < 0.001 ? "" : "= ", FormatPValue(p)),
          ") |");
    }
    absl::StrAppend(&out, "\n");
  }
  // A chart per key row: its median on each kernel and host, from zero.
  absl::StrAppend(&out, "\n");
  for (const std::string& row : KeyRows(spec, base)) {
    std::vector<std::string> xs;
    std::vector<double> medians;
    for (const ResultsFile* f : files) {
      const Series* s = f->Find(row);
      if (s == nullptr || !s->measured()) continue;
      xs.push_back(absl::StrCat("\"", f->kernel(), " on ", f->host(), "\""));
      medians.push_back(s->Median());
    }
    if (xs.size() < 2) continue;
    const TimeUnit unit = UnitFor(medians);
    const std::string ascii = unit.name == std::string("µs") ? "us" : unit.name;
    std::vector<std::string> ys;
    double max = 0;
    for (double m : medians) {
      ys.push_back(absl::StrFormat(m / unit.ns < 10 ? "%.2f" : "%.1f", m / unit.ns));
      max = std::max(max, m / unit.ns);
    }
    // The row's name above the chart: as a Mermaid title it would be cut off.
    absl::StrAppend(&out, "`", row, "`:\n\n```mermaid\nxychart-beta horizontal\n",
                    "    title \"by kernel and host (median, ", ascii, ")\"\n    x-axis [",
                    absl::StrJoin(xs, ", "), "]\n",
                    absl::StrFormat("    y-axis \"%s\" 0 --> %g\n", ascii, AxisTop(max)),
                    "    bar [", absl::StrJoin(ys, ", "), "]\n```\n\n");
  }
  return absl::StrCat(out, "\n");
}

// ---- Reproducibility ---------------------------------------------------------

// The rerun of `f` (`<stem>.rerun.json` beside it) if it is the same bench run
// again right after f, at the same clean revision; else null, with the reason
// in *why (empty when there is no rerun at all).
const ResultsFile* RerunOf(const ResultsFile& f, const std::vector<ResultsFile>& reruns,
                           std::string* why) {
  why->clear();
  if (!absl::EndsWith(f.path, ".json")) return nullptr;
  const std::string want = absl::StrCat(f.path.substr(0, f.path.size() - 5), ".rerun.json");
  for (const ResultsFile& r : reruns) {
    if (r.path != want) continue;
    auto ctx = [](const ResultsFile& x, const char* key) {
      auto it = x.context.find(key);
      return it == x.context.end() ? std::string() : it->second;
    };
    absl::Time end, start;
    std::string err;
    if (ctx(f, "git.revision").empty() || ctx(f, "git.revision") != ctx(r, "git.revision") ||
        ctx(f, "git.tree") != "clean" || ctx(r, "git.tree") != "clean") {
      *why = absl::StrCat("`", r.path, "` is not from the same clean revision: not compared");
      return nullptr;
    }
    if (!absl::ParseTime(absl::RFC3339_full, ctx(f, "run.end"), &end, &err) ||
        !absl::ParseTime(absl::RFC3339_full, ctx(r, "run.start"), &start, &err) || start < end ||
        start - end > absl::Minutes(30)) {
      *why = absl::StrCat("`", r.path, "` was not run right after this run: not compared");
      return nullptr;
    }
    return &r;
  }
  return nullptr;
}

std::optional<Reproducibility> ReproducibilityOf(const ResultsFile& f, const ResultsFile& rerun) {
  return CheckReproducibility(f, rerun);
}

std::string ReproducibilitySection(const ResultsFile& f, const std::vector<ResultsFile>& reruns) {
  std::string why;
  const ResultsFile* rerun = RerunOf(f, reruns, &why);
  if (rerun == nullptr) {
    return why.empty() ? "" : absl::StrCat("### Reproducibility\n\n", why, ".\n\n");
  }
  std::optional<Reproducibility> r = ReproducibilityOf(f, *rerun);
  if (!r.has_value()) return "";
  return absl::StrCat(
      "### Reproducibility\n\nThe same bench, run again right after this run (`", rerun->path,
      "`), against the targets of `bazel run //analysis:compare -- --self_check`: key ratios "
      "paired within a round, and each row's repetitions over the run's canary, which the "
      "machine's drift between the two runs does not move.\n\n",
      r->table, "\n");
}

std::string ExperimentReport(const std::string& experiment, const ReportSpec& spec,
                             const std::vector<const ResultsFile*>& files_in,
                             const std::vector<const ResultsFile*>& all,
                             const std::vector<ResultsFile>& reruns,
                             std::map<std::string, std::string>* svgs) {
  int next_svg = 1;
  // Real machines first; runs under User-Mode Linux after them.
  std::vector<const ResultsFile*> files = files_in;
  std::stable_partition(files.begin(), files.end(), [](const ResultsFile* f) { return !f->uml(); });
  std::string out = absl::StrCat(kGeneratedMarker, "\n\n# ", experiment, "\n\n");
  if (experiment != "crosscheck") {
    absl::StrAppend(&out, "The question, the hypothesis and how to run it: [experiments/",
                    experiment, "/README.md](../experiments/", experiment, "/README.md).\n\n");
  }
  absl::StrAppend(&out, "Times are per operation. *median*, *min*, *stddev* and *cv* are over the ",
                  "*n* repetitions of each row; compare rows within one run.\n\n");
  for (const ResultsFile* f : files) {
    absl::StrAppend(&out, "## ", Cell(f->kernel()), " on ", Cell(f->host()),
                    f->quick() ? " (quick run)" : "", "\n\n", "From `", f->path, "`, git ",
                    ShortRevision(*f), ", ", Ctx(*f, "cpu.model"), ", ", Ctx(*f, "virtualization"),
                    ".\n\n");
    if (f->uml()) {
      absl::StrAppend(&out, "**Under User-Mode Linux** (`bazel run //suite:uml`): UML traps ",
                      "every system call of its programs, so these times are not a ",
                      Cell(f->kernel()), " machine's; the run shows which rows work and which ",
                      "skip on this kernel. No verdict or comparison uses it.\n\n");
    }
    if (f->quick()) {
      absl::StrAppend(&out, "This is a `--quick` smoke run: too few repetitions to conclude ",
                      "anything.\n\n");
    }
    if (f->uml()) {  // its times would only mislead: which rows ran, and why others did not
      absl::StrAppend(&out, RunConditions(*f), RowsTable(*f), "\n", Environment(*f));
      continue;
    }
    absl::StrAppend(&out, RunConditions(*f), HarnessOverhead(*f, spec.harness_overhead),
                    KeyRatioTable(*f, spec), Charts(*f, spec, experiment, &next_svg, svgs));
    if (spec.has_cross_check) absl::StrAppend(&out, CrossCheck(*f, spec.cross_check, all, reruns));
    if (!f->quick()) absl::StrAppend(&out, ReproducibilitySection(*f, reruns));
    absl::StrAppend(&out, CounterTables(*f, spec));
    absl::StrAppend(&out, RowsTable(*f), "\n", Environment(*f));
  }
  absl::StrAppend(&out, AcrossKernels(files, spec));
  return out;
}

// ---- Index and ledger -----------------------------------------------------

// Each kernel feature the probes tried (context `probe.NAME`, and the release
// that added it, `probe.NAME.since`), against each kernel and host (as its
// latest run found them): the matrix a new kernel release is checked against.
std::string FeatureMatrix(const std::vector<const ResultsFile*>& files) {
  std::vector<std::pair<std::string, std::string>> machines;  // kernel, host
  std::map<std::pair<std::string, std::string>, const ResultsFile*> latest;
  std::map<std::string, std::string> since;  // feature -> release
  for (const ResultsFile* f : files) {
    const std::pair<std::string, std::string> m{f->kernel(), f->host()};
    bool has_probes = false;
    for (const auto& [key, value] : f->context) {
      if (!absl::StartsWith(key, "probe.")) continue;
      has_probes = true;
      std::string name = key.substr(6);
      if (absl::EndsWith(name, ".since")) {
        since[name.substr(0, name.size() - 6)] = value;
      } else {
        since.emplace(name, "");
      }
    }
    if (!has_probes) continue;
    // The latest run speaks for the machine (a probe may have been fixed
    // since an older file); a file without run.end counts as the oldest.
    auto end = [](const ResultsFile& r) {
      auto it = r.context.find("run.end");
      return it == r.context.end() ? std::string() : it->second;
    };
    if (!latest.count(m)) {
      machines.push_back(m);
      latest[m] = f;
    } else if (end(*f) > end(*latest[m])) {
      latest[m] = f;
    }
  }
  if (since.empty()) return "";
  std::string out = absl::StrCat(
      "\n## Kernel features\n\nWhat the probes (`lib/probes.h`) found, by trying each feature: ",
      "*yes*, or *no* with the reason. A row measured with a missing feature is skipped, ",
      "not failed.\n\n| feature | added in |");
  std::string rule = "|---|---|";
  for (const auto& [kernel, host] : machines) {
    absl::StrAppend(&out, " ", Cell(kernel), " on ", Cell(host), " |");
    absl::StrAppend(&rule, "---|");
  }
  absl::StrAppend(&out, "\n", rule, "\n");
  for (const auto& [name, release] : since) {
    absl::StrAppend(&out, "| `", Cell(name), "` | ", release.empty() ? "—" : Cell(release), " |");
    for (const auto& m : machines) {
      auto it = latest[m]->context.find("probe." + name);
      absl::StrAppend(&out, " ",
                      it == latest[m]->context.end() ? "not probed"
                      : it->second == "ok"           ? "yes"
                                                     : absl::StrCat("no: ", Cell(it->second)),
                      " |");
    }
    absl::StrAppend(&out, "\n");
  }
  return out;
}

// Each full run with a rerun right after it: how far the two agree.
std::string ReproducibilityIndex(const std::vector<const ResultsFile*>& files,
                                 const std::vector<ResultsFile>& reruns) {
  std::string rows;
  auto pct = [](double x) {
    return std::isnan(x) ? std::string("—") : absl::StrFormat("%.1f%%", x * 100);
  };
  for (const ResultsFile* f : files) {
    if (f->quick() || f->uml()) continue;
    std::string why;
    const ResultsFile* rerun = RerunOf(*f, reruns, &why);
    if (rerun == nullptr) continue;
    std::optional<Reproducibility> r = ReproducibilityOf(*f, *rerun);
    if (!r.has_value()) continue;
    const bool by_canary = r->canary_rows_tested > 0;
    absl::StrAppend(
        &rows, "| [", Cell(f->experiment()), "](", Cell(f->experiment()), ".md) | ",
        Cell(f->kernel()), " | ", r->ratios > 0 ? pct(r->median_ratio_change) : "—", " | ",
        r->ratios > 0 ? absl::StrCat(r->ratios_over_10pct, " of ", r->ratios) : "—", " | ",
        by_canary ? absl::StrCat(r->canary_rows_different, " of ", r->canary_rows_tested) : "—",
        " | ",
        by_canary ? absl::StrCat(r->canary_rows_below_p05, " of ", r->canary_rows_tested)
                  : absl::StrCat(r->rows_below_p05, " of ", r->rows_tested),
        " | ", r->rows_different, " of ", r->rows_tested, " | ", r->noisy ? "yes" : "no", " | ",
        r->meets_targets ? "yes" : "**no**", " |\n");
  }
  if (rows.empty()) return "";
  return absl::StrCat(
      "\n## Reproducibility\n\nEach bench run twice, back to back, at the same revision ",
      "(`bazel run //:suite -- --self_check --keep_self_check`): the committed run and its ",
      "`.rerun.json`. Targets: the key ratios' median change at most 2%, none moving more than ",
      "10% unless a run is marked noisy, and at most 5% of the rows called different by the U ",
      "test at a 5% false discovery rate (each row's p adjusted for the rows tested, ",
      "Benjamini-Hochberg), judged over the canary where the bench has one (raw times move with ",
      "the machine). *p < 0.05 alone*: the rows compare.py would mark, for scale (chance alone ",
      "gives about 1 in 20).",
      "\n\n| experiment | kernel | key ratios: median change (≤ 2%) | moved > 10% | rows ",
      "different, over the canary (≤ 5%) | p < 0.05 alone | rows different, raw | noisy | ",
      "within the targets |\n", "|---|---|---:|---:|---:|---:|---:|---|---|\n", rows);
}

std::string Index(const std::vector<const ResultsFile*>& files, const ResultsSet& set,
                  const std::map<std::string, int>& verdict_counts) {
  std::string out =
      absl::StrCat(kGeneratedMarker, "\n\n# spawnlab reports\n\n",
                   "Generated from the results files under `results/`. The claims ledger is in ",
                   "[claims.md](claims.md).\n\n## Machines and kernels\n\n",
                   "| kernel | host | CPU | CPUs | virtualization | THP | ASLR | glibc | compiler "
                   "| revisions |\n",
                   "|---|---|---|---:|---|---|---|---|---|---|\n");
  // One row per kernel and host, with every git revision its results came from.
  std::map<std::pair<std::string, std::string>, std::pair<std::string, std::set<std::string>>,
           KernelHostLess>
      machines;
  for (const ResultsFile* f : files) {
    if (Ctx(*f, "cpu.model") == "—") continue;
    auto& m = machines[{f->kernel(), f->host()}];
    if (m.first.empty()) {
      m.first = absl::StrCat(
          "| ", Cell(f->kernel()), " | ", Cell(f->host()), " | ", Ctx(*f, "cpu.model"), " | ",
          Ctx(*f, "cpu.online"), " | ", Ctx(*f, "virtualization"), " | ", Ctx(*f, "thp.enabled"),
          " | ", Ctx(*f, "aslr"), " | ", Ctx(*f, "glibc"), " | ", Ctx(*f, "compiler"), " | ");
    }
    m.second.insert(ShortRevision(*f));
  }
  for (const auto& [key, m] : machines) {
    absl::StrAppend(&out, m.first, absl::StrJoin(m.second, ", "), " |\n");
  }
  absl::StrAppend(&out, FeatureMatrix(files));
  absl::StrAppend(&out, ReproducibilityIndex(files, set.reruns));
  absl::StrAppend(&out, "\n## Experiments\n\n",
                  "| experiment | kernel | host | run | started | ended | noisy | rows | measured "
                  "| skipped | failed | report |\n",
                  "|---|---|---|---|---|---|---|---:|---:|---:|---:|---|\n");
  std::string skipped;
  for (const ResultsFile* f : files) {
    int measured = 0, skip = 0, failed = 0;
    for (const Series& s : f->series) {
      if (s.measured()) ++measured;
      if (!s.skipped.empty()) {
        ++skip;
        absl::StrAppend(&skipped, "| ", Cell(f->experiment()), " | ", Cell(f->kernel()), " | `",
                        s.name, "` | ", Cell(s.skipped), " |\n");
      }
      if (!s.error.empty()) ++failed;
    }
    absl::StrAppend(&out, "| ", Cell(f->experiment()), " | ", Cell(f->kernel()), " | ",
                    Cell(f->host()), " | ", f->quick() ? "quick" : "full", " | ",
                    Ctx(*f, "run.start"), " | ", Ctx(*f, "run.end"), " | ", Cell(NoisyMark(*f)),
                    " | ", f->series.size(), " | ", measured, " | ", skip, " | ", failed, " | [",
                    Cell(f->experiment()), ".md](", Cell(f->experiment()), ".md) |\n");
  }
  absl::StrAppend(&out, "\n## Skipped rows\n\n");
  if (skipped.empty()) {
    absl::StrAppend(&out, "None: every row ran on every kernel here.\n");
  } else {
    absl::StrAppend(&out, "| experiment | kernel | row | why |\n|---|---|---|---|\n", skipped);
  }
  if (!set.errors.empty()) {
    absl::StrAppend(&out, "\n## Files that could not be read\n\n");
    for (const absl::Status& e : set.errors) {
      absl::StrAppend(&out, "- ", Cell(e.message()), "\n");
    }
  }
  absl::StrAppend(&out, "\n## Claims\n\n| verdict | claims |\n|---|---:|\n");
  for (const std::string& word : VerdictWords()) {
    auto it = verdict_counts.find(word);
    if (it != verdict_counts.end()) absl::StrAppend(&out, "| ", word, " | ", it->second, " |\n");
  }
  return out;
}

// Beside a measured verdict that is not `reproduced`: why the size may
// differ here, where the claim says, with this machine's own figures filled
// in (MachineFacts).
std::string SizeDiffers(const Claim& c, const Verdict& v, const std::vector<ResultsFile>& files) {
  if (c.size_differs.empty()) return "";
  if (v.word != "direction-only" && v.word != "contradicted" && v.word != "implausible" &&
      v.word != "inconclusive") {
    return "";
  }
  return absl::StrCat(". Why the size may differ: ",
                      MachineFacts(c.size_differs, v.machine_kernel, v.machine_host, files));
}

std::string Ledger(const std::vector<Claim>& claims, const std::vector<ResultsFile>& files,
                   std::map<std::string, int>* counts) {
  // Measured verdicts and those by reading in two tables; counted per claim
  // part (a claim may be tested in several), with the claims counted too.
  std::string measured, reading;
  std::set<std::string> ids, read_ids;
  std::map<std::string, std::string> shown;  // measurement -> the claim that showed it
  int parts = 0;
  for (const Claim& c : claims) {
    ids.insert(c.id);
    ++parts;
    const bool by_reading = c.rule["kind"] == "reading";
    if (by_reading) read_ids.insert(c.id);
    for (const Verdict& v : Evaluate(c, files)) {
      ++(*counts)[v.word];
      const std::string who =
          absl::StrCat("| ", c.id, c.part.empty() ? "" : absl::StrCat(" (", c.part, ")"), " | ",
                       Cell(c.source), " | ", Cell(c.claim), " | ", Cell(c.conditions), " | ");
      if (by_reading) {
        absl::StrAppend(&reading, who, "**", v.word, "** | ", Cell(v.reason), " |\n");
        continue;
      }
      // Two claims judged on the same measurement (the same rows, statistic
      // and run) show it once; the second points at the first.
      const std::string label =
          absl::StrCat(c.id, c.part.empty() ? "" : absl::StrCat(" (", c.part, ")"));
      const std::string key = absl::StrCat(v.rows, "\n", v.measured, "\n", v.kernel);
      auto [first, fresh] = shown.emplace(key, label);
      if (!v.rows.empty() && !fresh) {
        absl::StrAppend(&measured, who, "as ", Cell(first->second), " | the same measurement as ",
                        Cell(first->second), " | **", v.word, "** | ", Cell(v.reason),
                        Cell(SizeDiffers(c, v, files)), " |\n");
        continue;
      }
      absl::StrAppend(&measured, who, v.rows.empty() ? "—" : Cell(v.rows), " | ", Cell(v.measured),
                      v.kernel.empty() ? "" : absl::StrCat(" — ", v.kernel), " | **", v.word,
                      "** | ", Cell(v.reason), Cell(SizeDiffers(c, v, files)), " |\n");
    }
  }
  std::string out = absl::StrCat(
      kGeneratedMarker, "\n\n# The claims ledger\n\n",
      "Each published claim, cited by its source's title (rules in `analysis/claims.json`), ",
      "against what was measured here. Verdicts are computed from the results by the rule each ",
      "claim names (`analysis/claims.h`): a ratio or a difference is judged by its 95% interval ",
      "(Hodges-Lehmann, from each process's median where the run was made of several ",
      "processes, else from the repetitions) against the band that would reproduce the claim. ",
      "`inconclusive`: the interval straddles the band's edge, or is wider than the claimed ",
      "effect, so this run cannot tell. `pending`: no verdict yet, for the reason given (no ",
      "experiment or full-run results, rows missing, or fewer than 5 repetitions a side). In ",
      "*rows compared*, the first row is the claim's numerator (or minuend).\n\n", ids.size(),
      " claims, tested in ", parts, " parts (", read_ids.size(),
      " of the claims have a part judged by reading, not measured, listed apart).\n\n",
      "| verdict | parts |\n|---|---:|\n");
  for (const std::string& word : VerdictWords()) {
    auto it = counts->find(word);
    if (it != counts->end()) absl::StrAppend(&out, "| ", word, " | ", it->second, " |\n");
  }
  absl::StrAppend(&out,
                  "\n## Measured\n\n| id | source | claimed | conditions | rows compared | "
                  "measured here | verdict | why |\n",
                  "|---|---|---|---|---|---|---|---|\n", measured);
  if (!reading.empty()) {
    absl::StrAppend(&out,
                    "\n## By reading, not measured\n\n| id | source | claimed | conditions | "
                    "verdict | why |\n|---|---|---|---|---|---|\n",
                    reading);
  }
  return out;
}

}  // namespace

std::map<std::string, std::string> BuildReports(const ResultsSet& results,
                                                const std::vector<Claim>& claims,
                                                const std::map<std::string, ReportSpec>& specs) {
  std::map<std::string, std::string> out;
  const std::vector<const ResultsFile*> files = Sorted(results);
  std::map<std::string, int> counts;
  out["claims.md"] = Ledger(claims, results.files, &counts);
  out["README.md"] = Index(files, results, counts);
  std::map<std::string, std::vector<const ResultsFile*>> by_experiment;
  for (const ResultsFile* f : files) {
    // The name becomes a file name: keep it to [a-z0-9_-].
    std::string name = f->experiment();
    bool safe = !name.empty() && name.size() <= 64;
    for (char ch : name) {
      safe =
          safe && ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '-');
    }
    by_experiment[safe && name != "README" && name != "claims" ? name : "unnamed"].push_back(f);
  }
  for (const auto& [experiment, group] : by_experiment) {
    auto spec = specs.find(experiment);
    out[experiment + ".md"] =
        ExperimentReport(experiment, spec == specs.end() ? ReportSpec{} : spec->second, group,
                         files, results.reruns, &out);
  }
  return out;
}

}  // namespace analysis
}  // namespace spawnlab
