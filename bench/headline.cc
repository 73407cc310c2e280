// headline.cc: see headline.h.

#include "bench/headline.h"

#include <algorithm>
#include <cmath>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "results_model/bench_name.h"
#include "results_model/stats.h"

namespace spawnlab {
namespace {

struct Cell {
  double median = NAN, low = NAN, high = NAN;
};

bool Matches(const BenchName& name, const std::map<std::string, std::string>& dims) {
  for (const auto& [dim, value] : dims) {
    auto it = name.dims.find(dim);
    if (it == name.dims.end() || it->second != value) return false;
  }
  return true;
}

void AddOnce(std::vector<std::string>& values, const std::string& v) {
  if (std::find(values.begin(), values.end(), v) == values.end()) values.push_back(v);
}

// "12.3", "1.23 k": three significant figures.
std::string Figure(double v) {
  if (!std::isfinite(v)) return "—";
  return absl::StrFormat("%.*f", v >= 100 ? 0 : v >= 10 ? 1 : 2, v);
}

// The table's cells: each (row value, column value) with its median and
// interval (ns), rows and columns in the order the bench registered them.
struct Table {
  std::vector<std::string> rows, cols;
  std::map<std::pair<std::string, std::string>, Cell> cells;
  double largest = 0;
};

Table CellsOf(const ResultsFile& f, const Headline& h) {
  Table t;
  t.cols = h.cols;
  for (const Series& s : f.series) {  // in the bench's order
    if (!Matches(s.parsed, h.fixed) || s.samples_ns.empty()) continue;
    auto r = s.parsed.dims.find(h.row_dim), c = s.parsed.dims.find(h.col_dim);
    if (r == s.parsed.dims.end() || c == s.parsed.dims.end()) continue;
    if (!h.cols.empty() && std::find(h.cols.begin(), h.cols.end(), c->second) == h.cols.end()) {
      continue;
    }
    if (t.cells.count({r->second, c->second})) continue;
    AddOnce(t.rows, r->second);
    AddOnce(t.cols, c->second);
    Cell cell;
    cell.median = Median(s.samples_ns);
    std::tie(cell.low, cell.high) = MedianInterval(s.samples_ns);
    t.cells[{r->second, c->second}] = cell;
    t.largest = std::max(t.largest, cell.median);
  }
  return t;
}

void PrintTable(const Table& t, const Headline& h, std::ostream& out) {
  // One unit for the table, so that its figures have three to five digits.
  const auto [scale, unit] = t.largest >= 1e7   ? std::make_pair(1e-6, "ms")
                             : t.largest >= 1e4 ? std::make_pair(1e-3, "us")
                                                : std::make_pair(1.0, "ns");
  std::string fixed;
  for (const auto& [dim, value] : h.fixed) absl::StrAppend(&fixed, fixed.empty() ? "" : ", ", dim, ":", value);
  out << "\n" << (h.title.empty() ? "the answer" : h.title) << " (" << fixed << "; median ["
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
      const std::string text =
          it == t.cells.end() ? "—"
                              : absl::StrCat(Figure(it->second.median * scale), " [",
                                             Figure(it->second.low * scale), ", ",
                                             Figure(it->second.high * scale), "]");
      out << absl::StrFormat(" %*s", widths[i], text);
    }
    out << "\n";
  }
}

void PrintRatios(const ResultsFile& f, const Table& t, const Headline& h,
                 const HeadlineRatio& hr, std::ostream& out) {
  std::map<std::string, std::string> where = h.fixed;
  where.insert(hr.where.begin(), hr.where.end());
  // In the table's order of the dimension that varies; values the table
  // leaves out stay out.
  const bool in_table = hr.by.dimension == h.row_dim || hr.by.dimension == h.col_dim;
  const std::vector<std::string>& order = hr.by.dimension == h.col_dim ? t.cols : t.rows;
  std::vector<std::pair<size_t, PairedRatio>> kept;
  for (const PairedRatio& p : PairedRatios(f, hr.by)) {
    absl::StatusOr<BenchName> name = ParseBenchName(p.row);
    if (!name.ok() || !Matches(*name, where)) continue;
    const auto at = std::find(order.begin(), order.end(), name->dims.at(hr.by.dimension));
    if (at == order.end() && in_table) continue;
    kept.emplace_back(static_cast<size_t>(at - order.begin()), p);
  }
  std::stable_sort(kept.begin(), kept.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  if (kept.empty()) return;
  out << "\nover " << hr.by.dimension << ":" << hr.by.value
      << " (paired within rounds; median [95% interval]):\n";
  std::vector<std::string> labels;
  size_t width = 24;  // one column for every label, however long
  for (const auto& [index, p] : kept) {
    absl::StatusOr<BenchName> name = ParseBenchName(p.row);
    labels.push_back(absl::StrCat(name->dims.at(hr.by.dimension), " / ", hr.by.value));
    width = std::max(width, labels.back().size());
  }
  for (size_t i = 0; i < kept.size(); ++i) {
    const PairedRatio& p = kept[i].second;
    out << absl::StrFormat("  %-*s %7.2fx  [%.2f, %.2f]  %d rounds\n", static_cast<int>(width),
                           labels[i], p.median, p.low, p.high, p.rounds);
  }
}

}  // namespace

bool PrintHeadline(const ResultsFile& f, const Headline& h, std::ostream& out) {
  const Table t = CellsOf(f, h);
  if (t.cells.empty()) return false;
  PrintTable(t, h, out);
  for (const HeadlineRatio& hr : h.ratios) PrintRatios(f, t, h, hr, out);
  return true;
}

}  // namespace spawnlab
