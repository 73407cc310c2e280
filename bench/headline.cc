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

}  // namespace

bool PrintHeadline(const nlohmann::json& doc, const Headline& h, std::ostream& out) {
  std::vector<std::string> rows, cols = h.cols;
  std::map<std::pair<std::string, std::string>, Cell> cells;
  std::string unit;
  double largest = 0;
  const std::map<std::string, std::vector<double>> all = RepetitionTimes(doc);
  for (const nlohmann::json& b : doc["benchmarks"]) {  // in the bench's order
    absl::StatusOr<BenchName> name = ParseBenchName(b.value("run_name", b.value("name", "")));
    if (!name.ok() || !Matches(*name, h.fixed) || false) continue;
    auto r = name->dims.find(h.row_dim), c = name->dims.find(h.col_dim);
    auto t = all.find(name->canonical);
    if (r == name->dims.end() || c == name->dims.end() || t == all.end() || t->second.empty()) {
      continue;
    }
    if (!h.cols.empty() && std::find(h.cols.begin(), h.cols.end(), c->second) == h.cols.end()) {
      continue;
    }
    if (cells.count({r->second, c->second})) continue;
    const std::vector<double>& times = t->second;
    AddOnce(rows, r->second);
    AddOnce(cols, c->second);
    std::vector<double> sorted = times;
    std::sort(sorted.begin(), sorted.end());
    Cell cell;
    cell.median = Median(sorted);
    std::tie(cell.low, cell.high) = MedianInterval(sorted);
    cells[{r->second, c->second}] = cell;
    largest = std::max(largest, cell.median);
  }
  if (cells.empty()) return false;
  for (const nlohmann::json& b : doc["benchmarks"]) {
    if (b.contains("time_unit") && b["time_unit"].is_string()) unit = b["time_unit"];
  }
  // One unit for the table: the file's, or a thousand times it for large cells.
  double scale = 1;
  if (largest >= 10000 && unit == "us") {
    scale = 1e-3;
    unit = "ms";
  } else if (largest >= 10000 && unit == "ns") {
    scale = 1e-3;
    unit = "us";
  }
  std::string fixed;
  for (const auto& [dim, value] : h.fixed) absl::StrAppend(&fixed, fixed.empty() ? "" : ", ", dim, ":", value);
  out << "\n" << (h.title.empty() ? "the answer" : h.title) << " (" << fixed << "; median ["
      << "95% interval], " << unit << ")\n";
  out << absl::StrFormat("%-13s", absl::StrCat(h.row_dim, " \\ ", h.col_dim));
  for (const std::string& c : cols) out << absl::StrFormat(" %19s", c);
  out << "\n";
  for (const std::string& r : rows) {
    out << absl::StrFormat("%-13s", r);
    for (const std::string& c : cols) {
      auto it = cells.find({r, c});
      const std::string text =
          it == cells.end() ? "—"
                            : absl::StrCat(Figure(it->second.median * scale), " [",
                                           Figure(it->second.low * scale), ", ",
                                           Figure(it->second.high * scale), "]");
      out << absl::StrFormat(" %19s", text);
    }
    out << "\n";
  }
  for (const HeadlineRatio& hr : h.ratios) {
    std::map<std::string, std::string> where = h.fixed;
    where.insert(hr.where.begin(), hr.where.end());
    // In the table's order of the dimension that varies; values the table
    // leaves out stay out.
    const std::vector<std::string>& order =
        hr.by.dimension == h.row_dim ? rows : hr.by.dimension == h.col_dim ? cols : rows;
    std::vector<std::pair<size_t, PairedRatio>> kept;
    for (const PairedRatio& p : PairedRatios(doc, hr.by)) {
      absl::StatusOr<BenchName> name = ParseBenchName(p.row);
      if (!name.ok() || !Matches(*name, where)) continue;
      const auto at = std::find(order.begin(), order.end(), name->dims.at(hr.by.dimension));
      if (at == order.end() && (hr.by.dimension == h.row_dim || hr.by.dimension == h.col_dim)) {
        continue;
      }
      kept.emplace_back(static_cast<size_t>(at - order.begin()), p);
    }
    std::stable_sort(kept.begin(), kept.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    bool said = false;
    for (const auto& [index, p] : kept) {
      absl::StatusOr<BenchName> name = ParseBenchName(p.row);
      if (!said) {
        out << "\nover " << hr.by.dimension << ":" << hr.by.value
            << " (paired within rounds; median [95% interval]):\n";
        said = true;
      }
      const std::string label = absl::StrCat(name->dims.at(hr.by.dimension), " / ", hr.by.value);
      out << absl::StrFormat("  %-24s %7.2fx  [%.2f, %.2f]  %d rounds\n", label, p.median, p.low,
                             p.high, p.rounds);
    }
  }
  return true;
}

}  // namespace spawnlab
