// stopping.cc: see stopping.h.

#include "results_model/stopping.h"

#include <cmath>
#include <limits>
#include <map>
#include <utility>

#include "absl/strings/numbers.h"
#include "results_model/context_keys.h"
#include "results_model/stats.h"

namespace spawnlab {
namespace {

// `merged` split into one document per process (its iteration rows only),
// keyed by the process number.
std::map<int, nlohmann::json> ByProcess(const nlohmann::json& merged) {
  std::map<int, nlohmann::json> out;
  if (!merged.is_object() || !merged.contains("benchmarks") || !merged["benchmarks"].is_array()) {
    return out;
  }
  for (const nlohmann::json& row : merged["benchmarks"]) {
    if (!row.is_object() || row.value("run_type", "") != "iteration") continue;
    const auto field = row.find(std::string(kProcessField));
    const int process = field != row.end() && field->is_number_integer() ? field->get<int>() : 1;
    nlohmann::json& doc = out[process];
    if (!doc.contains("benchmarks")) doc["benchmarks"] = nlohmann::json::array();
    doc["benchmarks"].push_back(row);
  }
  return out;
}

}  // namespace

double StudentT975(int df) {
  static constexpr double kTable[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
                                      2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
                                      2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
                                      2.060,  2.056, 2.052, 2.048, 2.045, 2.042};
  if (df < 1) return std::numeric_limits<double>::infinity();
  if (df <= 30) return kTable[df - 1];
  return 1.96;
}

Precision KeyRatioPrecision(const nlohmann::json& merged,
                            const std::vector<RatioBaseline>& baselines) {
  // Per key ratio, each process's paired median.
  std::map<std::pair<std::string, std::string>, std::vector<double>> medians;
  for (const auto& [process, doc] : ByProcess(merged)) {
    for (const RatioBaseline& by : baselines) {
      for (const PairedRatio& r : PairedRatios(doc, by)) {
        if (r.rounds > 0 && std::isfinite(r.median) && r.median > 0) {
          medians[{r.row, r.baseline}].push_back(r.median);
        }
      }
    }
  }
  Precision p;
  p.processes = medians.empty() ? 0 : std::numeric_limits<int>::max();
  for (const auto& [key, values] : medians) {
    ProcessRatio r;
    r.row = key.first;
    r.baseline = key.second;
    r.processes = static_cast<int>(values.size());
    std::vector<double> logs;
    for (double v : values) logs.push_back(std::log(v));
    const double mean = Mean(logs);
    const double half = values.size() < 2 ? std::numeric_limits<double>::infinity()
                                          : StudentT975(r.processes - 1) * Stddev(logs) /
                                                std::sqrt(static_cast<double>(r.processes));
    r.estimate = std::exp(mean);
    r.low = std::exp(mean - half);
    r.high = std::exp(mean + half);
    r.half_width = std::max(r.high / r.estimate - 1, 1 - r.low / r.estimate);
    p.processes = std::min(p.processes, r.processes);
    if (p.worst.empty() || r.half_width > p.worst_half_width) {
      p.worst_half_width = r.half_width;
      p.worst = r.row + " / " + r.baseline;
    }
    p.ratios.push_back(std::move(r));
  }
  return p;
}

std::set<std::string> KeyRatioRows(const Precision& p) {
  std::set<std::string> rows;
  for (const ProcessRatio& r : p.ratios) {
    rows.insert(r.row);
    rows.insert(r.baseline);
  }
  return rows;
}

void WriteStopping(const StoppingRecord& record, nlohmann::json* context) {
  nlohmann::json& c = *context;
  c[keys::kStoppingRule] = record.rule;
  c[keys::kStoppedBy] = record.stopped_by;
  c[keys::kStoppingReason] = record.reason;
  c[keys::kStoppingMaxSeconds] = absl::StrCat(record.max_seconds);
  c[keys::kStoppingOwnMaxSeconds] = absl::StrCat(record.own_max_seconds);
  if (record.target) c[keys::kStoppingTarget] = absl::StrCat(*record.target);
  if (record.worst) c[keys::kStoppingWorst] = *record.worst;
  if (record.fixed_budget_rows) {
    c[keys::kStoppingFixedBudgetRows] = absl::StrCat(*record.fixed_budget_rows);
  }
}

std::optional<double> ExpectedSeconds(const nlohmann::json& context) {
  if (!context.is_object()) return std::nullopt;
  auto text = [&context](const char* key) {
    auto it = context.find(key);
    return it != context.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  auto number = [&text](const char* key) -> std::optional<double> {
    double v;
    if (!absl::SimpleAtod(text(key), &v)) return std::nullopt;
    return v;
  };
  const std::optional<double> seconds = number("run.seconds");
  if (!seconds) return std::nullopt;
  if (text(keys::kStoppingReason) != keys::stop_reason::kTimeCap) return *seconds;
  // The cap was the bench's own unless --max_seconds (a suite's share) gave
  // another, smaller or larger.
  const std::optional<double> cap = number(keys::kStoppingMaxSeconds);
  const bool own_cap = cap && number(keys::kStoppingOwnMaxSeconds) == cap;
  return own_cap ? *seconds : 1.5 * *seconds;
}

}  // namespace spawnlab
