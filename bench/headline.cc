// headline.cc: see headline.h.

#include "bench/headline.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace spawnlab {
namespace {

// "12.3", "123", "1.23": three significant figures, at most.
std::string Figure(double v) {
  if (!std::isfinite(v)) return "—";
  return absl::StrFormat("%.*f", v >= 100 ? 0 : v >= 10 ? 1 : 2, v);
}

void PrintTable(const HeadlineTable& t, const Headline& h, std::ostream& out) {
  // One unit for the table, so that its figures have three to five digits.
  const auto [scale, unit] = t.largest >= 1e7   ? std::make_pair(1e-6, "ms")
                             : t.largest >= 1e4 ? std::make_pair(1e-3, "us")
                                                : std::make_pair(1.0, "ns");
  std::string fixed;
  for (const auto& [dim, value] : h.fixed) {
    absl::StrAppend(&fixed, fixed.empty() ? "" : ", ", dim, ":", value);
  }
  out << "\n"
      << (h.title.empty() ? "the answer" : h.title) << " (" << fixed << "; median ["
      << "95% interval], " << unit << ")\n";
  std::vector<int> widths;
  for (const std::string& c : t.cols) widths.push_back(std::max<int>(19, c.size()));
  out << absl::StrFormat("%-13s", absl::StrCat(h.row_dim, " \\ ", h.col_dim));
  for (size_t i = 0; i < t.cols.size(); ++i) out << absl::StrFormat(" %*s", widths[i], t.cols[i]);
  out << "\n";
  for (const std::string& r : t.rows) {
    out << absl::StrFormat("%-13s", r);
    for (size_t i = 0; i < t.cols.size(); ++i) {
      auto it = t.cells.find({r, t.cols[i]});
      const std::string text = it == t.cells.end()
                                   ? "—"
                                   : absl::StrCat(Figure(it->second.median * scale), " [",
                                                  Figure(it->second.low * scale), ", ",
                                                  Figure(it->second.high * scale), "]");
      out << absl::StrFormat(" %*s", widths[i], text);
    }
    out << "\n";
  }
}

void PrintRatios(const std::string& heading, const std::vector<LabelledRatio>& ratios,
                 std::ostream& out) {
  out << "\n" << heading << " (paired within rounds; median [95% interval]):\n";
  size_t width = 24;  // one column for every label, however long
  for (const LabelledRatio& r : ratios) width = std::max(width, r.label.size());
  for (const LabelledRatio& r : ratios) {
    out << absl::StrFormat("  %-*s %7.2fx  [%.2f, %.2f]  %d rounds\n", static_cast<int>(width),
                           r.label, r.ratio.median, r.ratio.low, r.ratio.high, r.ratio.rounds);
  }
}

}  // namespace

bool PrintHeadline(const ResultsFile& f, const Headline& h, std::ostream& out) {
  const HeadlineTable t = ComputeHeadline(f, h);
  if (t.empty()) return false;
  PrintTable(t, h, out);
  for (const auto& [heading, ratios] : t.ratios) PrintRatios(heading, ratios, out);
  return true;
}

}  // namespace spawnlab
