// results.cc: see results.h. Reads with nlohmann-json without exceptions and
// checks every field's type before use, so that no input can crash it.

#include "analysis/results.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "analysis/stats.h"
#include "lib/bench.h"
#include "nlohmann/json.hpp"

namespace analysis {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

absl::Status Bad(absl::string_view path, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": ", what));
}

// Nanoseconds per `unit`; 0 for an unknown unit.
double NanosPer(const std::string& unit) {
  if (unit == "ns") return 1;
  if (unit == "us") return 1e3;
  if (unit == "ms") return 1e6;
  if (unit == "s") return 1e9;
  return 0;
}

double AggregateOr(const Series& s, const char* name) {
  auto it = s.aggregate_ns.find(name);
  return it == s.aggregate_ns.end() ? kNaN : it->second;
}

}  // namespace

double Series::Median() const {
  return samples_ns.empty() ? AggregateOr(*this, "median") : analysis::Median(samples_ns);
}
double Series::Min() const {
  return samples_ns.empty() ? AggregateOr(*this, "min") : analysis::Min(samples_ns);
}
double Series::Mean() const {
  return samples_ns.empty() ? AggregateOr(*this, "mean") : analysis::Mean(samples_ns);
}
double Series::Stddev() const {
  return samples_ns.size() < 2 ? AggregateOr(*this, "stddev") : analysis::Stddev(samples_ns);
}
int Series::Repetitions() const { return static_cast<int>(samples_ns.size()); }

std::string ResultsFile::experiment() const {
  auto it = context.find("spawnlab.experiment");
  if (it != context.end()) return it->second;
  std::string stem = path.substr(path.rfind('/') + 1);
  return stem.substr(0, stem.rfind('.'));
}

std::string ResultsFile::kernel() const {
  auto it = context.find("kernel.release");
  if (it != context.end()) return it->second;
  size_t slash = path.rfind('/');
  if (slash == std::string::npos || slash == 0) return "unknown";
  size_t prev = path.rfind('/', slash - 1);
  return path.substr(prev == std::string::npos ? 0 : prev + 1,
                     slash - (prev == std::string::npos ? 0 : prev + 1));
}

std::string ResultsFile::host() const {
  for (const char* key : {"host.name", "host_name"}) {
    auto it = context.find(key);
    if (it != context.end()) return it->second;
  }
  return "unknown";
}

const Series* ResultsFile::Find(absl::string_view name) const {
  for (const Series& s : series) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

absl::StatusOr<ResultsFile> ParseResults(absl::string_view text, absl::string_view path) {
  nlohmann::json doc = nlohmann::json::parse(text.begin(), text.end(), nullptr,
                                             /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    return Bad(path, text.empty() ? "empty file" : "not valid JSON (truncated or corrupt?)");
  }
  if (!doc.is_object()) return Bad(path, "not a JSON object");
  if (!doc.contains("benchmarks") || !doc["benchmarks"].is_array()) {
    return Bad(path, "no 'benchmarks' array: not a Google Benchmark results file");
  }
  ResultsFile out;
  out.path = std::string(path);
  if (doc.contains("context")) {
    if (!doc["context"].is_object()) return Bad(path, "'context' is not an object");
    for (auto& [key, value] : doc["context"].items()) {
      out.context[key] = value.is_string() ? value.get<std::string>() : value.dump();
    }
  }
  std::map<std::string, size_t> index;
  size_t row_number = 0;
  for (const nlohmann::json& row : doc["benchmarks"]) {
    ++row_number;
    const std::string where = absl::StrCat("row ", row_number);
    if (!row.is_object()) return Bad(path, absl::StrCat(where, " is not an object"));
    auto string_field = [&](const char* key) -> std::optional<std::string> {
      if (!row.contains(key)) return std::string();
      if (!row[key].is_string()) return std::nullopt;
      return row[key].get<std::string>();
    };
    std::optional<std::string> name = string_field("name");
    std::optional<std::string> run_name = string_field("run_name");
    std::optional<std::string> run_type = string_field("run_type");
    std::optional<std::string> aggregate = string_field("aggregate_name");
    std::optional<std::string> message = string_field("error_message");
    std::optional<std::string> unit = string_field("time_unit");
    if (!name || !run_name || !run_type || !aggregate || !message || !unit) {
      return Bad(path, absl::StrCat(where, ": a name, type, unit or message is not a string"));
    }
    if (name->empty()) return Bad(path, absl::StrCat(where, " has no name"));
    const std::string& label = run_name->empty() ? *name : *run_name;
    absl::StatusOr<spawnlab::BenchName> parsed = spawnlab::ParseBenchName(label);
    if (!parsed.ok()) return Bad(path, absl::StrCat(where, ": ", parsed.status().message()));
    auto [it, inserted] = index.emplace(parsed->canonical, out.series.size());
    if (inserted) {
      Series s;
      s.name = parsed->canonical;
      s.parsed = *parsed;
      out.series.push_back(std::move(s));
    }
    Series& series = out.series[it->second];
    if (row.contains("error_occurred") && !row["error_occurred"].is_boolean()) {
      return Bad(path, absl::StrCat(where, ": error_occurred is not a boolean"));
    }
    if (row.value("error_occurred", false)) {
      if (absl::StartsWith(*message, spawnlab::kSkippedPrefix)) {
        series.skipped = message->substr(spawnlab::kSkippedPrefix.size());
      } else {
        series.error = message->empty() ? "failed (no message)" : *message;
      }
      continue;
    }
    if (*aggregate == "cv" || row.value("aggregate_unit", "time") == "percentage") continue;
    if (!row.contains("real_time") || !row["real_time"].is_number()) {
      return Bad(path, absl::StrCat(where, " (", label, ") has no numeric real_time"));
    }
    const double per = NanosPer(unit->empty() ? "ns" : *unit);
    if (per == 0) return Bad(path, absl::StrCat(where, ": unknown time_unit '", *unit, "'"));
    const double ns = row["real_time"].get<double>() * per;
    if (!std::isfinite(ns) || ns < 0) {
      return Bad(path, absl::StrCat(where, " (", label, ") has a negative or infinite time"));
    }
    if (*run_type == "aggregate") {
      series.aggregate_ns[*aggregate] = ns;
    } else {
      series.samples_ns.push_back(ns);
    }
  }
  return out;
}

absl::StatusOr<ResultsFile> LoadResultsFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot be opened"));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return ParseResults(buffer.str(), path);
}

namespace {

void FindJson(const std::string& dir, std::vector<std::string>* out) {
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return;
  while (struct dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    std::string path = absl::StrCat(dir, "/", name);
    struct stat st;
    if (stat(path.c_str(), &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      FindJson(path, out);
    } else if (absl::EndsWith(name, ".json")) {
      out->push_back(path);
    }
  }
  closedir(d);
}

}  // namespace

ResultsSet LoadResultsDir(const std::string& dir) {
  std::vector<std::string> paths;
  FindJson(dir, &paths);
  std::sort(paths.begin(), paths.end());
  ResultsSet set;
  for (const std::string& p : paths) {
    absl::StatusOr<ResultsFile> f = LoadResultsFile(p);
    if (f.ok()) {
      set.files.push_back(*std::move(f));
    } else {
      set.errors.push_back(f.status());
    }
  }
  return set;
}

}  // namespace analysis
