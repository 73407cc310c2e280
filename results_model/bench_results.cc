// bench_results.cc: see bench_results.h.

#include "results_model/bench_results.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "re2/re2.h"
#include "results_model/bench_name.h"
#include "results_model/context_keys.h"
#include "results_model/results_file.h"

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

ResultsFile ResultsOf(const nlohmann::json& doc) {
  absl::StatusOr<ResultsFile> f = ReadResults(doc, "(this run)");
  return f.ok() ? *std::move(f) : ResultsFile{};
}

RowCounts CountRows(const ResultsFile& f) {
  RowCounts counts;
  for (const Series& s : f.series) {
    (!s.error.empty() ? counts.failed : !s.skipped.empty() ? counts.skipped : counts.measured)++;
  }
  return counts;
}
RowCounts CountRows(const nlohmann::json& doc) { return CountRows(ResultsOf(doc)); }

std::map<std::string, std::vector<double>> RepetitionTimes(const ResultsFile& f) {
  std::map<std::string, std::vector<double>> times;
  for (const Series& s : f.series) {
    if (s.samples_ns.empty()) continue;
    std::vector<double>& v = times[s.name];
    for (size_t i = 0; i < s.samples_ns.size(); ++i) {
      const int k = s.repetitions[i];
      if (k < 0 || k > 100000) continue;
      if (static_cast<int>(v.size()) <= k) v.resize(k + 1, std::nan(""));
      v[k] = s.samples_ns[i];
    }
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

std::vector<PairedRatio> PairedRatios(const ResultsFile& f, const RatioBaseline& by) {
  std::vector<PairedRatio> out;
  const std::map<std::string, std::vector<double>> times = RepetitionTimes(f);
  // A pattern that does not compile limits nothing: every ratio is shown.
  std::optional<RE2> rows;
  if (!by.rows.empty()) rows.emplace(by.rows, RE2::Quiet);
  if (rows.has_value() && !rows->ok()) rows.reset();
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
    if (rows.has_value() && !(RE2::PartialMatch(name, *rows) && RE2::PartialMatch(base, *rows))) {
      continue;
    }
    auto b = times.find(base);
    if (b == times.end()) continue;
    const std::vector<double> ratios = RoundRatios(reps, b->second);
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
std::vector<PairedRatio> PairedRatios(const nlohmann::json& doc, const RatioBaseline& by) {
  return PairedRatios(ResultsOf(doc), by);
}

namespace {

// The canary row's repetition times that are numbers, in round order; empty if
// the row is missing.
std::vector<double> CanaryTimes(const ResultsFile& f, const std::string& canary_row) {
  const std::map<std::string, std::vector<double>> times = RepetitionTimes(f);
  auto it = times.find(canary_row);
  std::vector<double> v;
  if (it == times.end()) return v;
  for (double t : it->second) {
    if (std::isfinite(t) && t > 0) v.push_back(t);
  }
  return v;
}

}  // namespace

double CanaryDriftPct(const ResultsFile& f, const std::string& canary_row) {
  const std::vector<double> v = CanaryTimes(f, canary_row);
  if (v.size() < 4) return -1;
  const size_t half = v.size() / 2;
  const double first = Median({v.begin(), v.begin() + half});
  const double last = Median({v.end() - half, v.end()});
  return 100.0 * std::fabs(last / first - 1);
}

double CanarySpreadPct(const ResultsFile& f, const std::string& canary_row) {
  std::vector<double> v = CanaryTimes(f, canary_row);
  if (v.size() < 4) return -1;
  std::sort(v.begin(), v.end());
  // The nearest-rank 75th percentile: the 7th of 9, the 12th of 15, the 19th of 25.
  const size_t rank = (3 * v.size() + 3) / 4;  // ceil(0.75 n)
  return 100.0 * (v[rank - 1] / v.front() - 1);
}

void RecordNoise(nlohmann::json& doc, const std::string& canary_row) {
  nlohmann::json& context = doc["context"];
  double drift = -1, spread = -1;
  if (!canary_row.empty()) {
    const ResultsFile f = ResultsOf(doc);
    drift = CanaryDriftPct(f, canary_row);
    spread = CanarySpreadPct(f, canary_row);
    const std::map<std::string, std::vector<double>> times = RepetitionTimes(f);
    auto it = times.find(canary_row);
    const std::string unknown =
        it == times.end() ? "unknown: the canary row did not run (a filter left it out?)"
                          : "unknown: fewer than 4 rounds";
    context[keys::kCanaryRow] = canary_row;
    context[keys::kCanaryDriftPct] = drift >= 0 ? absl::StrFormat("%.2f", drift) : unknown;
    context[keys::kCanarySpreadPct] =
        spread >= 0 ? absl::StrFormat("%.2f", spread) : unknown;
    if (it != times.end()) {
      std::vector<std::string> series;
      for (double ns : it->second) series.push_back(absl::StrFormat("%.4g", ns / 1e3));
      context[keys::kCanarySeries] = absl::StrJoin(series, " ");
    }
  }
  auto number = [&context](const char* key) {
    double v = -1;
    if (context.contains(key) && context[key].is_string()) {
      (void)absl::SimpleAtod(context[key].get<std::string>(), &v);
    }
    return v;
  };
  context["run.noisy"] =
      NoisyVerdict(number("run.other_cpu_cores"), number("run.steal_pct"), drift, spread);
}

namespace {

struct Moments {
  double mean, median, stddev, cv, min;
};

Moments Describe(const std::vector<double>& v) {
  Moments m{};
  if (v.empty()) return m;
  m.mean = Mean(v);
  m.stddev = v.size() > 1 ? Stddev(v) : 0;
  m.cv = m.mean != 0 ? m.stddev / m.mean : 0;
  m.median = Median(v);
  m.min = Min(v);
  return m;
}

bool IsCounter(const std::string& key, const nlohmann::json& value) {
  static const std::set<std::string> kNotCounters = {"name",
                                                     "family_index",
                                                     "per_family_instance_index",
                                                     "run_name",
                                                     "run_type",
                                                     "repetitions",
                                                     "repetition_index",
                                                     "threads",
                                                     "iterations",
                                                     "real_time",
                                                     "cpu_time",
                                                     "time_unit",
                                                     "error_occurred",
                                                     "error_message",
                                                     "aggregate_name",
                                                     "aggregate_unit",
                                                     std::string(kProcessField)};
  return value.is_number() && !kNotCounters.count(key);
}

}  // namespace

void MergeRounds(nlohmann::json& doc, const std::vector<std::string>& canonical_order) {
  if (!doc.is_object() || !doc.contains("benchmarks") || !doc["benchmarks"].is_array()) return;
  std::map<std::string, int> rank;
  for (const std::string& name : canonical_order) rank.emplace(name, static_cast<int>(rank.size()));
  // Each row's runs in the order they ran, and its first error, if any.
  std::vector<std::string> names;
  std::map<std::string, std::vector<nlohmann::json>> runs;
  std::map<std::string, nlohmann::json> errors;
  for (nlohmann::json& b : doc["benchmarks"]) {
    if (!b.is_object() || b.value("run_type", "iteration") != "iteration") continue;
    const std::string name = Canonical(b);
    if (!runs.count(name) && !errors.count(name)) names.push_back(name);
    if (b.value("error_occurred", false)) {
      errors.emplace(name, b);
    } else {
      runs[name].push_back(b);
    }
  }
  std::stable_sort(names.begin(), names.end(), [&rank](const std::string& a, const std::string& b) {
    auto ra = rank.find(a), rb = rank.find(b);
    const int ia = ra == rank.end() ? INT32_MAX : ra->second;
    const int ib = rb == rank.end() ? INT32_MAX : rb->second;
    return ia < ib;
  });
  nlohmann::json out = nlohmann::json::array();
  for (size_t f = 0; f < names.size(); ++f) {
    const std::string& name = names[f];
    auto rank_it = rank.find(name);
    const int family = rank_it != rank.end() ? rank_it->second : static_cast<int>(rank.size() + f);
    if (errors.count(name)) {
      nlohmann::json e = errors[name];
      e["family_index"] = family;
      e["per_family_instance_index"] = 0;
      out.push_back(e);
      continue;
    }
    std::vector<nlohmann::json>& reps = runs[name];
    const int n = static_cast<int>(reps.size());
    std::vector<double> times;
    std::map<std::string, std::vector<double>> counters;
    for (int k = 0; k < n; ++k) {
      nlohmann::json& r = reps[k];
      r["family_index"] = family;
      r["per_family_instance_index"] = 0;
      r["repetitions"] = n;
      r["repetition_index"] = k;
      times.push_back(r.value("real_time", 0.0));
      for (auto it = r.begin(); it != r.end(); ++it) {
        if (IsCounter(it.key(), it.value())) counters[it.key()].push_back(it.value().get<double>());
      }
      out.push_back(r);
    }
    if (n == 0) continue;
    const nlohmann::json& first = reps[0];
    const Moments t = Describe(times);
    std::map<std::string, Moments> c;
    for (const auto& [key, values] : counters) c[key] = Describe(values);
    for (const char* agg : {"mean", "median", "stddev", "cv", "min"}) {
      auto pick = [agg](const Moments& m) {
        const std::string a = agg;
        return a == "mean"     ? m.mean
               : a == "median" ? m.median
               : a == "stddev" ? m.stddev
               : a == "cv"     ? m.cv
                               : m.min;
      };
      nlohmann::json a = {
          {"name", first.value("run_name", name) + "_" + agg},
          {"family_index", family},
          {"per_family_instance_index", 0},
          {"run_name", first.value("run_name", name)},
          {"run_type", "aggregate"},
          {"repetitions", n},
          {"threads", first.value("threads", 1)},
          {"aggregate_name", agg},
          {"aggregate_unit", std::string(agg) == "cv" ? "percentage" : "time"},
          {"iterations", n},
          {"real_time", pick(t)},
          {"cpu_time", 0.0},
          {"time_unit", first.value("time_unit", "ns")},
      };
      for (const auto& [key, m] : c) a[key] = pick(m);
      out.push_back(a);
    }
  }
  doc["benchmarks"] = out;
}

nlohmann::json MergeProcesses(const std::vector<nlohmann::json>& docs) {
  nlohmann::json out = nlohmann::json::object();
  if (docs.empty()) return out;
  out["context"] = docs[0].value("context", nlohmann::json::object());
  // The rows in the first process's order (family_index): the order the
  // bench registered them.
  std::vector<std::pair<std::pair<int, int>, std::string>> ordered;
  std::set<std::string> seen;
  nlohmann::json rows = nlohmann::json::array();
  for (size_t p = 0; p < docs.size(); ++p) {
    const nlohmann::json& doc = docs[p];
    if (!doc.is_object() || !doc.contains("benchmarks") || !doc["benchmarks"].is_array()) continue;
    std::vector<nlohmann::json> iterations;
    for (const nlohmann::json& b : doc["benchmarks"]) {
      if (!b.is_object() || b.value("run_type", "iteration") != "iteration") continue;
      const std::string name = Canonical(b);
      if (seen.insert(name).second) {
        ordered.push_back({{b.value("family_index", 0), b.value("per_family_instance_index", 0)},
                           name});
      }
      nlohmann::json row = b;
      row[std::string(kProcessField)] = static_cast<int>(p + 1);
      iterations.push_back(std::move(row));
    }
    // Each process's repetitions in the order they ran.
    std::stable_sort(iterations.begin(), iterations.end(),
                     [](const nlohmann::json& a, const nlohmann::json& b) {
                       return a.value("repetition_index", 0) < b.value("repetition_index", 0);
                     });
    for (nlohmann::json& row : iterations) rows.push_back(std::move(row));
  }
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> order;
  for (const auto& [rank, name] : ordered) order.push_back(name);
  out["benchmarks"] = std::move(rows);
  MergeRounds(out, order);
  return out;
}

std::string NoisyVerdict(double other_cpu_cores, double steal_pct, double canary_drift_pct,
                         double canary_spread_pct) {
  std::vector<std::string> why;
  if (other_cpu_cores > kNoisyOtherCpuCores) {
    why.push_back(absl::StrFormat("other processes used %.2f cores (threshold %.2f)",
                                  other_cpu_cores, kNoisyOtherCpuCores));
  }
  if (steal_pct > kNoisyStealPct) {
    why.push_back(absl::StrFormat("steal %.1f%% (threshold %.1f%%)", steal_pct, kNoisyStealPct));
  }
  if (canary_drift_pct > kNoisyCanaryDriftPct) {
    why.push_back(absl::StrFormat("the canary drifted %.1f%% (threshold %.1f%%)", canary_drift_pct,
                                  kNoisyCanaryDriftPct));
  }
  if (canary_spread_pct > kNoisyCanarySpreadPct) {
    why.push_back(absl::StrFormat(
        "the canary's slowest quarter of rounds ran %.1f%% above its fastest (threshold %.1f%%)",
        canary_spread_pct, kNoisyCanarySpreadPct));
  }
  return why.empty() ? "no" : absl::StrCat("yes: ", absl::StrJoin(why, "; "));
}

}  // namespace spawnlab
