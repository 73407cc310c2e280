// report_charts.cc: the per-experiment charts: each row's repetitions as an SVG strip, by the
// spec's x and split.

#include <algorithm>
#include <cmath>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "analysis/report_sections.h"
#include "results_model/stats.h"

namespace spawnlab {
namespace analysis {

double AxisTop(double max) {
  if (!(max > 0)) return 1;
  const double x = max * 1.1;
  const double p = std::pow(10.0, std::floor(std::log10(x)) - 1);
  return std::ceil(x / p) * p;
}

namespace {

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
    return std::max(0.0,
                    (std::log10(v) - std::log10(bottom)) / (std::log10(top) - std::log10(bottom)));
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
        absl::StrFormat(
            "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", kLeft - 6, y_of(v) + 4,
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

}  // namespace

// One Mermaid bar chart of medians per split value (ReportSpec::charts), each
// with an SVG beside it that shows every repetition. The SVGs go into `files`
// as `<stem>-<n>.svg`, n counting from `*next`.
std::string Charts(const ResultsFile& f, const ReportSpec& report, const std::string& stem,
                   const std::string& link_prefix, int* next,
                   std::map<std::string, std::string>* files) {
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
      double max = 0, min_positive = 0;
      for (const auto& [x, v] : scaled) {
        const double y = Median(v);
        xs.push_back(absl::StrCat("\"", x, "\""));
        ys.push_back(absl::StrFormat(y < 10 ? "%.2f" : "%.1f", y));
        max = std::max(max, y);
        if (y > 0 && (min_positive == 0 || y < min_positive)) min_positive = y;
      }
      // Each title says where and how the run was made: a chart copied out of
      // its page still names its kernel, host and statistic.
      const std::string where = absl::StrCat(f.kernel(), " on ", f.host(),
                                             NoisyMark(f) == "**noisy**" ? ", a noisy run" : "");
      const std::string title =
          absl::StrCat(split, spec.title, " (median, ", ascii, "; ", where, ")");
      const std::string svg = absl::StrCat(stem, "-", (*next)++, ".svg");
      (*files)[svg] = SpreadSvg(
          absl::StrCat(split, spec.title, " (each repetition, ", unit.name, "; ", where, ")"),
          scaled, unit.name);
      if (min_positive > 0 && max / min_positive > 20) {
        // Mermaid has no log scale: beside a bar 20 times its height, a bar
        // is a sliver. The SVG, on a log scale, is the chart then.
        absl::StrAppend(&out, "![", title, "](", link_prefix, svg, ")\n\n",
                        "On a log scale: its bars span more than 20x. Dots: each repetition.\n\n");
        continue;
      }
      // Mermaid spreads the labels under the bars; long ones collide, so
      // such a chart is drawn with its bars across and the labels beside.
      size_t label_chars = 0;
      for (const auto& [x, v] : bars[split]) label_chars += x.size() + 2;
      const char* orientation = label_chars > 60 ? " horizontal" : "";
      absl::StrAppend(&out, "```mermaid\nxychart-beta", orientation, "\n    title \"", title,
                      "\"\n", "    x-axis [", absl::StrJoin(xs, ", "), "]\n",
                      absl::StrFormat("    y-axis \"%s\" 0 --> %g\n", ascii, AxisTop(max)),
                      "    bar [", absl::StrJoin(ys, ", "), "]\n```\n\n",
                      "The spread behind it, every repetition: [", svg, "](", link_prefix, svg,
                      ")\n\n");
    }
  }
  return out;
}

}  // namespace analysis
}  // namespace spawnlab
