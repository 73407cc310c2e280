// report_spec.cc: see report_spec.h.

#include "analysis/report_spec.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nlohmann/json.hpp"
#include "results_model/bench_name.h"

namespace spawnlab {
namespace analysis {
namespace {

using Json = nlohmann::json;

// Reads one spec object, refusing keys it does not know (a typo in a spec
// would otherwise drop a chart without a word).
class Reader {
 public:
  Reader(const Json& j, std::string where) : j_(j), where_(std::move(where)) {}

  absl::Status CheckKeys(std::initializer_list<const char*> allowed) const {
    if (!j_.is_object()) return Error("must be an object");
    std::set<std::string> ok(allowed.begin(), allowed.end());
    for (const auto& [key, value] : j_.items()) {
      if (!ok.count(key)) {
        return Error(
            absl::StrCat("unknown key '", key, "' (known: ", absl::StrJoin(ok, ", "), ")"));
      }
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::string> String(const char* key, bool required = true) const {
    if (!j_.contains(key)) {
      if (required) return Error(absl::StrCat("needs a string '", key, "'"));
      return std::string();
    }
    if (!j_[key].is_string() || j_[key].get<std::string>().empty()) {
      return Error(absl::StrCat("'", key, "' must be a non-empty string"));
    }
    return j_[key].get<std::string>();
  }

  // A canonical row name.
  absl::StatusOr<std::string> Row(const Json& value, const std::string& what) const {
    if (!value.is_string()) return Error(absl::StrCat(what, " must be a row name"));
    absl::StatusOr<spawnlab::BenchName> name = spawnlab::ParseBenchName(value.get<std::string>());
    if (!name.ok()) return Error(absl::StrCat(what, ": ", name.status().message()));
    return name->canonical;
  }

  absl::StatusOr<RowSelector> Selector() const {
    RowSelector s;
    absl::StatusOr<std::string> family = String("family");
    if (!family.ok()) return family.status();
    s.family = *family;
    if (j_.contains("fixed")) {
      if (!j_["fixed"].is_object()) return Error("'fixed' must be an object of dimension: value");
      for (const auto& [dim, value] : j_["fixed"].items()) {
        if (!value.is_string()) return Error(absl::StrCat("'fixed.", dim, "' must be a string"));
        s.fixed[dim] = value.get<std::string>();
      }
    }
    return s;
  }

  absl::Status Error(absl::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat(where_, ": ", what));
  }

  const Json& json() const { return j_; }

 private:
  const Json& j_;
  std::string where_;
};

absl::StatusOr<const Json*> Array(const Json& spec, const char* key, const std::string& where) {
  if (!spec.contains(key)) return nullptr;
  if (!spec[key].is_array()) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": '", key, "' must be an array"));
  }
  return &spec[key];
}

#define SPEC_ASSIGN(lhs, expr)                          \
  do {                                                  \
    auto spec_value_ = (expr);                          \
    if (!spec_value_.ok()) return spec_value_.status(); \
    lhs = *std::move(spec_value_);                      \
  } while (0)

#define SPEC_RETURN_IF_ERROR(expr)               \
  do {                                           \
    absl::Status spec_status_ = (expr);          \
    if (!spec_status_.ok()) return spec_status_; \
  } while (0)

absl::Status ParseCharts(const Json& j, const std::string& where, ReportSpec& spec) {
  const Json* charts;
  SPEC_ASSIGN(charts, Array(j, "charts", where));
  for (size_t i = 0; charts != nullptr && i < charts->size(); ++i) {
    Reader r((*charts)[i], absl::StrCat(where, ": charts[", i, "]"));
    SPEC_RETURN_IF_ERROR(r.CheckKeys({"family", "fixed", "x", "split", "title"}));
    ChartSpec c;
    SPEC_ASSIGN(c.rows, r.Selector());
    SPEC_ASSIGN(c.x, r.String("x"));
    SPEC_ASSIGN(c.split, r.String("split", /*required=*/false));
    SPEC_ASSIGN(c.title, r.String("title"));
    spec.charts.push_back(std::move(c));
  }
  return absl::OkStatus();
}

// `key_ratios` (each judged against its "bound") or `uml_ratios` (never
// judged: no "bound").
absl::Status ParseRatios(const Json& j, const std::string& where, const char* key, bool judged,
                         std::vector<KeyRatioSpec>& out) {
  const Json* ratios;
  SPEC_ASSIGN(ratios, Array(j, key, where));
  for (size_t i = 0; ratios != nullptr && i < ratios->size(); ++i) {
    Reader r((*ratios)[i], absl::StrCat(where, ": ", key, "[", i, "]"));
    if (judged) {
      SPEC_RETURN_IF_ERROR(r.CheckKeys({"what", "numerator", "denominators", "bound"}));
    } else {
      SPEC_RETURN_IF_ERROR(r.CheckKeys({"what", "numerator", "denominators"}));
    }
    KeyRatioSpec k;
    SPEC_ASSIGN(k.what, r.String("what"));
    if (!r.json().contains("numerator")) return r.Error("needs a row 'numerator'");
    SPEC_ASSIGN(k.numerator, r.Row(r.json()["numerator"], "'numerator'"));
    const Json& dens = r.json().value("denominators", Json());
    if (!dens.is_array() || dens.empty()) return r.Error("needs an array of rows 'denominators'");
    for (const Json& d : dens) {
      std::string row;
      SPEC_ASSIGN(row, r.Row(d, "a denominator"));
      k.denominators.push_back(row);
    }
    if (judged) {
      const Json& bound = r.json().value("bound", Json());
      if (!bound.is_number() || !(bound.get<double>() > 0)) {
        return r.Error("needs a positive number 'bound'");
      }
      k.bound = bound.get<double>();
    }
    out.push_back(std::move(k));
  }
  return absl::OkStatus();
}

absl::Status ParseCounters(const Json& j, const std::string& where, ReportSpec& spec) {
  const Json* counters;
  SPEC_ASSIGN(counters, Array(j, "counters", where));
  for (size_t i = 0; counters != nullptr && i < counters->size(); ++i) {
    Reader r((*counters)[i], absl::StrCat(where, ": counters[", i, "]"));
    SPEC_RETURN_IF_ERROR(r.CheckKeys({"title", "family", "fixed", "names", "prefix"}));
    CounterTableSpec t;
    SPEC_ASSIGN(t.title, r.String("title"));
    SPEC_ASSIGN(t.rows, r.Selector());
    SPEC_ASSIGN(t.prefix, r.String("prefix", /*required=*/false));
    const Json& names = r.json().value("names", Json());
    if (!names.is_array() || (names.empty() && t.prefix.empty())) {
      return r.Error("needs an array of counter 'names' (or a 'prefix')");
    }
    for (const Json& n : names) {
      if (!n.is_string() || n.get<std::string>().empty()) {
        return r.Error("'names' must hold counter names");
      }
      t.names.push_back(n.get<std::string>());
    }
    spec.counters.push_back(std::move(t));
  }
  return absl::OkStatus();
}

absl::Status ParseKeyRows(const Json& j, const std::string& where, ReportSpec& spec) {
  Reader top(j, where);
  if (j.contains("key_rows")) {
    const Json* rows;
    SPEC_ASSIGN(rows, Array(j, "key_rows", where));
    for (size_t i = 0; i < rows->size(); ++i) {
      std::string row;
      SPEC_ASSIGN(row, top.Row((*rows)[i], absl::StrCat("'key_rows'[", i, "]")));
      spec.key_rows.push_back(std::move(row));
    }
  }
  return absl::OkStatus();
}

// One pair of cross_check.pairs: the bench's ratio beside the original tool's.
absl::Status ParsePair(const Json& j, const std::string& where, CrossCheckPair& pair) {
  Reader p(j, where);
  SPEC_RETURN_IF_ERROR(p.CheckKeys({"what", "bench", "cross_check", "own_statistic", "minimum"}));
  SPEC_ASSIGN(pair.what, p.String("what"));
  SPEC_ASSIGN(pair.own_statistic, p.String("own_statistic"));
  if (pair.own_statistic != "mean" && pair.own_statistic != "min") {
    return p.Error("'own_statistic' must be \"mean\" or \"min\"");
  }
  if (p.json().contains("minimum")) {
    SPEC_ASSIGN(pair.minimum, p.String("minimum"));
    if (pair.minimum != "time" &&
        (!absl::StartsWith(pair.minimum, "counter:") || pair.minimum.size() == 8)) {
      return p.Error("'minimum' must be \"time\" or \"counter:NAME\"");
    }
  }
  for (const char* side : {"bench", "cross_check"}) {
    const Json& rows = p.json().value(side, Json());
    if (!rows.is_array() || rows.size() != 2) {
      return p.Error(absl::StrCat("'", side, "' must be [numerator, denominator]"));
    }
    std::string num, den;
    SPEC_ASSIGN(num, p.Row(rows[0], absl::StrCat("'", side, "' numerator")));
    SPEC_ASSIGN(den, p.Row(rows[1], absl::StrCat("'", side, "' denominator")));
    if (std::string(side) == "bench") {
      pair.bench_numerator = num;
      pair.bench_denominator = den;
    } else {
      pair.cross_numerator = num;
      pair.cross_denominator = den;
    }
  }
  return absl::OkStatus();
}

absl::Status ParseCrossCheck(const Json& j, const std::string& where, ReportSpec& spec) {
  if (j.contains("cross_check")) {
    Reader r(j["cross_check"], absl::StrCat(where, ": cross_check"));
    SPEC_RETURN_IF_ERROR(
        r.CheckKeys({"experiment", "command", "description", "tolerance", "pairs"}));
    CrossCheckSpec& x = spec.cross_check;
    SPEC_ASSIGN(x.experiment, r.String("experiment"));
    SPEC_ASSIGN(x.command, r.String("command"));
    SPEC_ASSIGN(x.description, r.String("description"));
    const Json& tol = r.json().value("tolerance", Json());
    if (!tol.is_number() || !(tol.get<double>() > 0) || !(tol.get<double>() < 1)) {
      return r.Error("needs a number 'tolerance' between 0 and 1");
    }
    x.tolerance = tol.get<double>();
    const Json& pairs = r.json().value("pairs", Json());
    if (!pairs.is_array() || pairs.empty()) return r.Error("needs an array 'pairs'");
    for (size_t i = 0; i < pairs.size(); ++i) {
      CrossCheckPair pair;
      SPEC_RETURN_IF_ERROR(
          ParsePair(pairs[i], absl::StrCat(where, ": cross_check.pairs[", i, "]"), pair));
      x.pairs.push_back(std::move(pair));
    }
    spec.has_cross_check = true;
  }
  return absl::OkStatus();
}

absl::StatusOr<ReportSpec> Parse(const Json& j, const std::string& experiment,
                                 const std::string& where) {
  ReportSpec spec;
  spec.experiment = experiment;
  Reader top(j, where);
  SPEC_RETURN_IF_ERROR(top.CheckKeys({"charts", "key_ratios", "counters", "harness_overhead",
                                      "key_rows", "cross_check", "headline", "uml_ratios"}));
  SPEC_RETURN_IF_ERROR(ParseCharts(j, where, spec));
  if (j.contains("headline")) {
    absl::StatusOr<Headline> h = ParseHeadline(j["headline"].dump());
    if (!h.ok()) return absl::InvalidArgumentError(absl::StrCat(where, ": ", h.status().message()));
    spec.headline = *std::move(h);
  }
  SPEC_RETURN_IF_ERROR(ParseRatios(j, where, "key_ratios", true, spec.key_ratios));
  SPEC_RETURN_IF_ERROR(ParseRatios(j, where, "uml_ratios", false, spec.uml_ratios));
  SPEC_RETURN_IF_ERROR(ParseCounters(j, where, spec));
  if (j.contains("harness_overhead")) {
    SPEC_ASSIGN(spec.harness_overhead, top.Row(j["harness_overhead"], "'harness_overhead'"));
  }
  SPEC_RETURN_IF_ERROR(ParseKeyRows(j, where, spec));
  SPEC_RETURN_IF_ERROR(ParseCrossCheck(j, where, spec));
  return spec;
}

#undef SPEC_ASSIGN
#undef SPEC_RETURN_IF_ERROR

}  // namespace

absl::StatusOr<ReportSpec> ParseReportSpec(absl::string_view text, absl::string_view experiment,
                                           absl::string_view path) {
  Json j = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": not valid JSON"));
  }
  return Parse(j, std::string(experiment), std::string(path));
}

absl::StatusOr<std::map<std::string, ReportSpec>> LoadReportSpecs(const std::string& dir) {
  namespace fs = std::filesystem;
  std::map<std::string, ReportSpec> specs;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return absl::NotFoundError(absl::StrCat(dir, ": not a folder"));
  }
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    const fs::path spec = e.path() / "report.json";
    if (!e.is_directory(ec) || !fs::exists(spec, ec)) continue;
    std::ifstream in(spec, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    if (!in) return absl::InternalError(absl::StrCat(spec.string(), ": cannot read"));
    const std::string experiment = e.path().filename().string();
    absl::StatusOr<ReportSpec> parsed = ParseReportSpec(
        text.str(), experiment, absl::StrCat("experiments/", experiment, "/report.json"));
    if (!parsed.ok()) return parsed.status();
    std::ifstream readme(e.path() / "README.md");
    std::string title;
    if (std::getline(readme, title) && absl::StartsWith(title, "# ")) {
      const size_t colon = title.find(": ");
      parsed->question = colon == std::string::npos ? "" : title.substr(colon + 2);
    }
    specs[experiment] = *std::move(parsed);
  }
  if (ec) return absl::InternalError(absl::StrCat(dir, ": ", ec.message()));
  return specs;
}

bool Selects(const RowSelector& selector, const spawnlab::BenchName& row) {
  if (row.family != selector.family) return false;
  for (const auto& [dim, value] : selector.fixed) {
    auto it = row.dims.find(dim);
    if (it == row.dims.end() || it->second != value) return false;
  }
  return true;
}

bool Selects(const RowSelector& selector, absl::string_view row) {
  absl::StatusOr<spawnlab::BenchName> name = spawnlab::ParseBenchName(row);
  return name.ok() && Selects(selector, *name);
}

std::vector<std::string> CheckSpecRows(const ReportSpec& spec,
                                       const std::vector<std::string>& bench_rows,
                                       const std::vector<std::string>& cross_rows) {
  // Rows by canonical name, each parsed once.
  auto parse = [](const std::vector<std::string>& rows) {
    std::map<std::string, spawnlab::BenchName> out;
    for (const std::string& r : rows) {
      absl::StatusOr<spawnlab::BenchName> n = spawnlab::ParseBenchName(r);
      if (n.ok()) out.emplace(n->canonical, *std::move(n));
    }
    return out;
  };
  const std::map<std::string, spawnlab::BenchName> bench = parse(bench_rows);
  const std::map<std::string, spawnlab::BenchName> cross = parse(cross_rows);
  std::vector<std::string> problems;
  auto need = [&](const std::map<std::string, spawnlab::BenchName>& rows, const std::string& row,
                  const std::string& where) {
    if (!rows.count(row)) problems.push_back(absl::StrCat(where, ": no row '", row, "'"));
  };
  auto selected = [&](const RowSelector& s, const std::string& with_dim) {
    int n = 0;
    for (const auto& [name, row] : bench) {
      n += Selects(s, row) && (with_dim.empty() || row.dims.count(with_dim));
    }
    return n;
  };
  for (size_t i = 0; i < spec.charts.size(); ++i) {
    const ChartSpec& c = spec.charts[i];
    if (selected(c.rows, c.x) == 0) {
      problems.push_back(absl::StrCat("charts[", i, "] (", c.title, "): no row of family '",
                                      c.rows.family, "' with dimension '", c.x,
                                      "' and the fixed values"));
    } else if (!c.split.empty() && selected(c.rows, c.split) == 0) {
      problems.push_back(absl::StrCat("charts[", i, "] (", c.title, "): no selected row has '",
                                      c.split, "' to split by"));
    }
  }
  if (!spec.headline.empty()) {
    // Every declared column and every ratio's baseline is a value some row of
    // the table has.
    std::set<std::pair<std::string, std::string>> values;
    for (const auto& [name, row] : bench) {
      if (!HeadlineSelects(spec.headline, row)) continue;
      for (const auto& [dim, value] : row.dims) values.insert({dim, value});
    }
    const Headline& h = spec.headline;
    if (values.empty()) {
      problems.push_back(absl::StrCat("headline: no row has only '", h.row_dim, "', '", h.col_dim,
                                      "' and the fixed dimensions, at the fixed values"));
    }
    for (const std::string& c : h.cols) {
      if (!values.empty() && !values.count({h.col_dim, c})) {
        problems.push_back(absl::StrCat("headline: no row of the table has ", h.col_dim, ":", c));
      }
    }
    for (const HeadlineRatio& r : h.ratios) {
      if (!values.empty() && !values.count({r.by.dimension, r.by.value})) {
        problems.push_back(absl::StrCat("headline: no row of the table has ", r.by.dimension, ":",
                                        r.by.value, " to divide by"));
      }
    }
  }
  for (const auto& [key, ratios] : {std::pair{"key_ratios", &spec.key_ratios},
                                     std::pair{"uml_ratios", &spec.uml_ratios}}) {
    for (size_t i = 0; i < ratios->size(); ++i) {
      const KeyRatioSpec& k = (*ratios)[i];
      const std::string where = absl::StrCat(key, "[", i, "] (", k.what, ")");
      need(bench, k.numerator, where);
      for (const std::string& d : k.denominators) need(bench, d, where);
    }
  }
  for (size_t i = 0; i < spec.counters.size(); ++i) {
    if (selected(spec.counters[i].rows, "") == 0) {
      problems.push_back(absl::StrCat("counters[", i, "] (", spec.counters[i].title,
                                      "): no row of family '", spec.counters[i].rows.family,
                                      "' with the fixed values"));
    }
  }
  if (!spec.harness_overhead.empty()) need(bench, spec.harness_overhead, "harness_overhead");
  for (size_t i = 0; i < spec.key_rows.size(); ++i) {
    need(bench, spec.key_rows[i], absl::StrCat("key_rows[", i, "]"));
  }
  if (spec.has_cross_check) {
    for (size_t i = 0; i < spec.cross_check.pairs.size(); ++i) {
      const CrossCheckPair& p = spec.cross_check.pairs[i];
      const std::string where = absl::StrCat("cross_check.pairs[", i, "] (", p.what, ")");
      need(bench, p.bench_numerator, where);
      need(bench, p.bench_denominator, where);
      need(cross, p.cross_numerator, where);
      need(cross, p.cross_denominator, where);
    }
  }
  return problems;
}

}  // namespace analysis
}  // namespace spawnlab
