// bench_results.cc: see bench_results.h.

#include "lib/bench_results.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "lib/bench_name.h"

namespace spawnlab {
namespace {

std::string Canonical(const nlohmann::json& row) {
  std::string name = row.value("run_name", row.value("name", ""));
  absl::StatusOr<BenchName> parsed = ParseBenchName(name);
  return parsed.ok() ? parsed->canonical : name;
}

double BinomialCdf(int k, int n) {  // P(X <= k), X ~ Binomial(n, 1/2)
  double sum = 0, c = 1;
  for (int i = 0; i <= k; ++i) {
    sum += c;
    c = c * (n - i) / (i + 1);
  }
  return sum / std::pow(2.0, n);
}

}  // namespace

double Median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

RowCounts CountRows(const nlohmann::json& doc) {
  RowCounts counts;
  if (!doc.is_object() || !doc.contains("benchmarks") || !doc["benchmarks"].is_array()) {
    return counts;
  }
  std::map<std::string, int> state;  // 1 measured, 2 skipped, 3 failed
  for (const nlohmann::json& row : doc["benchmarks"]) {
    if (!row.is_object()) continue;
    const std::string name = Canonical(row);
    int s = 1;
    if (row.value("error_occurred", false)) {
      s = absl::StartsWith(row.value("error_message", ""), kSkippedPrefix) ? 2 : 3;
    }
    state[name] = std::max(state[name], s);
  }
  for (const auto& [name, s] : state) {
    (s == 1 ? counts.measured : s == 2 ? counts.skipped : counts.failed)++;
  }
  return counts;
}

std::map<std::string, std::vector<double>> RepetitionTimes(const nlohmann::json& doc) {
  std::map<std::string, std::vector<double>> times;
  if (!doc.is_object() || !doc.contains("benchmarks") || !doc["benchmarks"].is_array()) {
    return times;
  }
  for (const nlohmann::json& row : doc["benchmarks"]) {
    if (!row.is_object() || row.value("run_type", "") != "iteration" ||
        row.value("error_occurred", false) || !row.contains("real_time") ||
        !row["real_time"].is_number()) {
      continue;
    }
    const int k = row.value("repetition_index", 0);
    std::vector<double>& v = times[Canonical(row)];
    if (k < 0 || k > 100000) continue;
    if (static_cast<int>(v.size()) <= k) v.resize(k + 1, std::nan(""));
    v[k] = row["real_time"].get<double>();
  }
  return times;
}

std::pair<double, double> MedianInterval(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const int n = static_cast<int>(v.size());
  if (n == 0) return {std::nan(""), std::nan("")};
  // The innermost order statistics j (1-based) with P(B <= j-1) <= 2.5%, B ~
  // Binomial(n, 1/2): [v(j), v(n+1-j)] covers the median with probability
  // 1 - 2 P(B <= j-1) >= 95%. Below n = 6 none qualifies: the whole range.
  int j = 1;
  while (j + 1 <= n / 2 && BinomialCdf(j, n) <= 0.025) ++j;
  return {v[j - 1], v[n - j]};
}

std::vector<PairedRatio> PairedRatios(const nlohmann::json& doc, const RatioBaseline& by) {
  std::vector<PairedRatio> out;
  const std::map<std::string, std::vector<double>> times = RepetitionTimes(doc);
  for (const auto& [name, reps] : times) {
    absl::StatusOr<BenchName> parsed = ParseBenchName(name);
    if (!parsed.ok()) continue;
    auto dim = parsed->dims.find(by.dimension);
    if (dim == parsed->dims.end() || dim->second == by.value) continue;
    // The baseline's name: the same with this one dimension's value replaced.
    const std::string from = by.dimension + ":" + dim->second;
    std::vector<std::string> segments = absl::StrSplit(name, '/');
    for (std::string& segment : segments) {
      if (segment == from) segment = by.dimension + ":" + by.value;
    }
    const std::string base = absl::StrJoin(segments, "/");
    auto b = times.find(base);
    if (b == times.end()) continue;
    std::vector<double> ratios;
    for (size_t k = 0; k < reps.size() && k < b->second.size(); ++k) {
      if (std::isfinite(reps[k]) && std::isfinite(b->second[k]) && b->second[k] > 0) {
        ratios.push_back(reps[k] / b->second[k]);
      }
    }
    if (ratios.empty()) continue;
    PairedRatio r;
    r.row = name;
    r.baseline = base;
    r.rounds = static_cast<int>(ratios.size());
    r.median = Median(ratios);
    std::tie(r.low, r.high) = MedianInterval(ratios);
    out.push_back(r);
  }
  return out;
}

double CanaryDriftPct(const nlohmann::json& doc, const std::string& canary_row) {
  const std::map<std::string, std::vector<double>> times = RepetitionTimes(doc);
  auto it = times.find(canary_row);
  if (it == times.end()) return -1;
  std::vector<double> v;
  for (double t : it->second) {
    if (std::isfinite(t)) v.push_back(t);
  }
  if (v.size() < 4) return -1;
  const size_t half = v.size() / 2;
  const double first = Median({v.begin(), v.begin() + half});
  const double last = Median({v.end() - half, v.end()});
  return first > 0 ? 100.0 * std::fabs(last / first - 1) : -1;
}

}  // namespace spawnlab
