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

// Whether every dimension of `name` is the table's row or column or one the
// headline holds fixed: a row with a dimension more (a variant such as
// `clients:per-cpu`) is another question's and stays out of the table.
bool OnlyHeldDims(const BenchName& name, const Headline& h) {
  for (const auto& [dim, value] : name.dims) {
    if (dim != h.row_dim && dim != h.col_dim && !h.fixed.count(dim)) return false;
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
  const std::vector<std::string>& other_order = hr.by.dimension == h.col_dim ? t.rows : t.cols;
  std::vector<std::pair<std::pair<size_t, size_t>, LabelledRatio>> kept;
  for (const PairedRatio& p : PairedRatios(f, hr.by)) {
    absl::StatusOr<BenchName> name = ParseBenchName(p.row);
    if (!name.ok() || !Matches(*name, where) || !OnlyHeldDims(*name, h)) continue;
    const std::string& value = name->dims.at(hr.by.dimension);
    const auto at = std::find(order.begin(), order.end(), value);
    if (at == order.end() && in_table) continue;
    // The table's other dimension, where the ratio does not hold it, tells
    // apart two ratios of one value ("stripped / default, cache:cold").
    std::string label = absl::StrCat(value, " / ", hr.by.value);
    const std::string& other = hr.by.dimension == h.row_dim ? h.col_dim : h.row_dim;
    auto o = name->dims.find(other);
    if (in_table && !where.count(other) && o != name->dims.end() && other_order.size() > 1) {
      absl::StrAppend(&label, ", ", other, ":", o->second);
    }
    const size_t other_at =
        o == name->dims.end()
            ? 0
            : std::find(other_order.begin(), other_order.end(), o->second) - other_order.begin();
    kept.push_back({{static_cast<size_t>(at - order.begin()), other_at}, {std::move(label), p}});
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

bool HeadlineSelects(const Headline& h, const BenchName& name) {
  return Matches(name, h.fixed) && OnlyHeldDims(name, h) && name.dims.count(h.row_dim) &&
         name.dims.count(h.col_dim);
}

HeadlineTable ComputeHeadline(const ResultsFile& f, const Headline& h) {
  HeadlineTable t;
  t.cols = h.cols;
  for (const Series& s : f.series) {  // in the bench's order
    if (!Matches(s.parsed, h.fixed) || !OnlyHeldDims(s.parsed, h) || s.samples_ns.empty()) continue;
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
    t.smallest = t.smallest == 0 ? cell.median : std::min(t.smallest, cell.median);
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
