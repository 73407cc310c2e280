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
  // One unit for the table, the smallest cell's, so that every figure is a
  // whole one: the largest cells run to more digits, no cell to a fraction
  // with leading zeros.
  const auto [scale, unit] = t.smallest >= 1e6   ? std::make_pair(1e-6, "ms")
                             : t.smallest >= 1e3 ? std::make_pair(1e-3, "us")
                                                 : std::make_pair(1.0, "ns");
  std::string fixed;
  for (const auto& [dim, value] : h.fixed) {
    absl::StrAppend(&fixed, fixed.empty() ? "" : ", ", dim, ":", value);
  }
  out << "\n"
      << (h.title.empty() ? "the answer" : h.title) << " (" << fixed << "; median ["
      << "95% interval], " << unit << ")\n";
  // Each cell a median and its interval; each column as wide as its widest
  // cell. A table wider than a 100-column terminal puts each interval on a
  // line of its own, under its median.
  std::vector<std::vector<std::pair<std::string, std::string>>> cells;
  std::vector<int> one_line, two_lines;
  for (const std::string& c : t.cols) {
    one_line.push_back(c.size());
    two_lines.push_back(c.size());
  }
  for (const std::string& r : t.rows) {
    cells.emplace_back();
    for (size_t i = 0; i < t.cols.size(); ++i) {
      auto it = t.cells.find({r, t.cols[i]});
      std::pair<std::string, std::string> cell = {"-", ""};
      if (it != t.cells.end()) {
        cell = {Figure(it->second.median * scale),
                absl::StrCat("[", Figure(it->second.low * scale), ", ",
                             Figure(it->second.high * scale), "]")};
      }
      one_line[i] = std::max<int>(one_line[i], cell.first.size() + 1 + cell.second.size());
      two_lines[i] = std::max<int>(two_lines[i], std::max(cell.first.size(), cell.second.size()));
      cells.back().push_back(std::move(cell));
    }
  }
  int label_width = absl::StrCat(h.row_dim, " \\ ", h.col_dim).size();
  for (const std::string& r : t.rows) label_width = std::max<int>(label_width, r.size());
  int total = label_width;
  for (int w : one_line) total += 2 + w;
  const bool split = total > 100;
  const std::vector<int>& widths = split ? two_lines : one_line;
  out << absl::StrFormat("%-*s", label_width, absl::StrCat(h.row_dim, " \\ ", h.col_dim));
  for (size_t i = 0; i < t.cols.size(); ++i) out << absl::StrFormat("  %*s", widths[i], t.cols[i]);
  out << "\n";
  for (size_t r = 0; r < t.rows.size(); ++r) {
    out << absl::StrFormat("%-*s", label_width, t.rows[r]);
    for (size_t i = 0; i < t.cols.size(); ++i) {
      const auto& [median, interval] = cells[r][i];
      out << absl::StrFormat("  %*s", widths[i],
                             split || interval.empty() ? median : median + " " + interval);
    }
    out << "\n";
    if (!split) continue;
    out << absl::StrFormat("%-*s", label_width, "");
    for (size_t i = 0; i < t.cols.size(); ++i) {
      out << absl::StrFormat("  %*s", widths[i], cells[r][i].second);
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
