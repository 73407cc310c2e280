// headline.cc: see headline.h.

#include "results_model/headline.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "results_model/bench_name.h"
#include "results_model/stats.h"

namespace spawnlab {
namespace {

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

// The ratios of one declared HeadlineRatio, in the table's order of the
// dimension that varies; values the table leaves out stay out.
std::vector<LabelledRatio> RatiosOf(const ResultsFile& f, const HeadlineTable& t, const Headline& h,
                                    const HeadlineRatio& hr) {
  std::map<std::string, std::string> where = h.fixed;
  where.insert(hr.where.begin(), hr.where.end());
  const bool in_table = hr.by.dimension == h.row_dim || hr.by.dimension == h.col_dim;
  const std::vector<std::string>& order = hr.by.dimension == h.col_dim ? t.cols : t.rows;
  std::vector<std::pair<size_t, LabelledRatio>> kept;
  for (const PairedRatio& p : PairedRatios(f, hr.by)) {
    absl::StatusOr<BenchName> name = ParseBenchName(p.row);
    if (!name.ok() || !Matches(*name, where)) continue;
    const std::string& value = name->dims.at(hr.by.dimension);
    const auto at = std::find(order.begin(), order.end(), value);
    if (at == order.end() && in_table) continue;
    kept.push_back(
        {static_cast<size_t>(at - order.begin()), {absl::StrCat(value, " / ", hr.by.value), p}});
  }
  std::stable_sort(kept.begin(), kept.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<LabelledRatio> out;
  for (auto& [index, r] : kept) out.push_back(std::move(r));
  return out;
}

}  // namespace

nlohmann::json HeadlineToJson(const Headline& h) {
  nlohmann::json ratios = nlohmann::json::array();
  for (const HeadlineRatio& r : h.ratios) {
    ratios.push_back({{"dimension", r.by.dimension}, {"value", r.by.value}, {"where", r.where}});
  }
  return {{"title", h.title},     {"rows", h.row_dim}, {"cols", h.col_dim},
          {"col_values", h.cols}, {"fixed", h.fixed},  {"ratios", ratios}};
}

absl::StatusOr<Headline> ParseHeadline(const std::string& text) {
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return absl::InvalidArgumentError("headline: not a JSON object");
  Headline h;
  try {
    h.title = j.value("title", "");
    h.row_dim = j.at("rows").get<std::string>();
    h.col_dim = j.at("cols").get<std::string>();
    h.cols = j.value("col_values", std::vector<std::string>{});
    h.fixed = j.value("fixed", std::map<std::string, std::string>{});
    for (const nlohmann::json& r : j.value("ratios", nlohmann::json::array())) {
      h.ratios.push_back({{r.at("dimension").get<std::string>(), r.at("value").get<std::string>()},
                          r.value("where", std::map<std::string, std::string>{})});
    }
  } catch (const nlohmann::json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("headline: ", e.what()));
  }
  if (h.empty()) return absl::InvalidArgumentError("headline: no rows or columns");
  return h;
}

HeadlineTable ComputeHeadline(const ResultsFile& f, const Headline& h) {
  HeadlineTable t;
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
    HeadlineCell cell;
    cell.median = Median(s.samples_ns);
    std::tie(cell.low, cell.high) = MedianInterval(s.samples_ns);
    t.cells[{r->second, c->second}] = cell;
    t.largest = std::max(t.largest, cell.median);
  }
  if (t.cells.empty()) return t;
  for (const HeadlineRatio& hr : h.ratios) {
    std::vector<LabelledRatio> rs = RatiosOf(f, t, h, hr);
    if (!rs.empty()) {
      t.ratios.push_back({absl::StrCat("over ", hr.by.dimension, ":", hr.by.value), std::move(rs)});
    }
  }
  return t;
}

}  // namespace spawnlab
