// results_file.cc: see results_file.h. Reads with nlohmann-json without exceptions and
// checks every field's type before use, so that no input can crash it.

#include "results_model/results_file.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "nlohmann/json.hpp"
#include "results_model/benchmark_json.h"
#include "results_model/context_keys.h"
#include "results_model/host_id.h"
#include "results_model/stats.h"

namespace spawnlab {

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
  return samples_ns.empty() ? AggregateOr(*this, "median") : spawnlab::Median(samples_ns);
}
double Series::Min() const {
  return samples_ns.empty() ? AggregateOr(*this, "min") : spawnlab::Min(samples_ns);
}
double Series::Mean() const {
  return samples_ns.empty() ? AggregateOr(*this, "mean") : spawnlab::Mean(samples_ns);
}
double Series::Stddev() const {
  return samples_ns.size() < 2 ? AggregateOr(*this, "stddev") : spawnlab::Stddev(samples_ns);
}
int Series::Repetitions() const { return static_cast<int>(samples_ns.size()); }

std::vector<double> Series::ProcessMedians() const { return ProcessSamples("time"); }

double Series::Metric(absl::string_view metric) const {
  if (metric == "time") return Median();
  absl::string_view name = metric;
  if (!absl::ConsumePrefix(&name, "counter:")) return kNaN;
  auto it = counters.find(std::string(name));
  return it == counters.end() ? kNaN : spawnlab::Median(it->second);
}

std::vector<double> Series::Samples(absl::string_view metric) const {
  if (metric == "time") return samples_ns;
  absl::string_view name = metric;
  if (!absl::ConsumePrefix(&name, "counter:")) return {};
  auto it = counters.find(std::string(name));
  return it == counters.end() ? std::vector<double>{} : it->second;
}

std::vector<double> Series::ProcessSamples(absl::string_view metric) const {
  const std::vector<double> values = Samples(metric);
  if (values.size() != processes.size()) return {};
  std::map<int, std::vector<double>> by_process;
  for (size_t k = 0; k < values.size(); ++k) by_process[processes[k]].push_back(values[k]);
  if (by_process.size() < 2) return {};
  std::vector<double> medians;
  for (const auto& [process, samples] : by_process) medians.push_back(spawnlab::Median(samples));
  return medians;
}

std::vector<double> ProcessRatioMedians(const Series& num, const Series& den) {
  if (num.processes.size() != num.samples_ns.size() ||
      den.processes.size() != den.samples_ns.size()) {
    return {};
  }
  auto by_process = [](const Series& s) {
    std::map<int, std::vector<double>> out;
    for (size_t k = 0; k < s.samples_ns.size(); ++k) out[s.processes[k]].push_back(s.samples_ns[k]);
    return out;
  };
  const std::map<int, std::vector<double>> n = by_process(num), d = by_process(den);
  std::vector<double> medians;
  for (const auto& [process, times] : n) {
    auto other = d.find(process);
    if (process <= 0 || other == d.end()) continue;
    const std::vector<double> ratios = RoundRatios(times, other->second);
    if (!ratios.empty()) medians.push_back(spawnlab::Median(ratios));
  }
  if (medians.size() < 2) return {};
  return medians;
}

std::string ResultsFile::experiment() const {
  auto it = context.find(spawnlab::keys::kExperiment);
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
  // For a file with spawnlab's environment record (host.id, cpu.model): the
  // id its own context makes (results_model/host_id.h), which tells apart
  // machines an older host.id did not. Older files keep the machine's name.
  if (context.count("host.id") && context.count("cpu.model")) {
    return spawnlab::HostIdFrom(spawnlab::HostIdentityFromContext(context));
  }
  for (const char* key : {"host.id", "host.name", "host_name"}) {
    auto it = context.find(key);
    if (it != context.end()) return it->second;
  }
  return "unknown";
}

bool ResultsFile::quick() const {
  auto it = context.find(spawnlab::keys::kQuick);
  return it != context.end() && it->second == "true";
}

bool ResultsFile::uml() const {
  auto it = context.find("virtualization");
  return it != context.end() && it->second == "uml";
}

const Series* ResultsFile::Find(absl::string_view name) const {
  for (const Series& s : series) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

namespace {

// The Series a row belongs to, added in the file's order at its first row.
Series& SeriesFor(ResultsFile& out, std::map<std::string, size_t>& index,
                  const spawnlab::BenchName& parsed, const nlohmann::json& row) {
  auto [it, inserted] = index.emplace(parsed.canonical, out.series.size());
  if (inserted) {
    Series s;
    s.name = parsed.canonical;
    s.parsed = parsed;
    s.order = static_cast<double>(out.series.size());
    if (row.contains("family_index") && row["family_index"].is_number()) {
      const bool has_instance = row.contains("per_family_instance_index") &&
                                row["per_family_instance_index"].is_number();
      s.order = row["family_index"].get<double>() * 1e6 +
                (has_instance ? row["per_family_instance_index"].get<double>() : 0.0);
    }
    out.series.push_back(std::move(s));
  }
  return out.series[it->second];
}

// An iteration row's time, its process and its user counters.
void AddSample(Series& series, const nlohmann::json& row, double ns) {
  series.samples_ns.push_back(ns);
  series.repetitions.push_back(
      row.contains("repetition_index") && row["repetition_index"].is_number_integer()
          ? row["repetition_index"].get<int>()
          : static_cast<int>(series.samples_ns.size()) - 1);
  const std::string process_field(spawnlab::kProcessField);
  series.processes.push_back(row.contains(process_field) && row[process_field].is_number_integer()
                                 ? row[process_field].get<int>()
                                 : 0);
  // Every other number in an iteration row is a user counter.
  static const std::set<std::string>* const kFields = new std::set<std::string>{
      "family_index", "per_family_instance_index", "repetitions", "repetition_index",
      "threads",      "iterations",                "real_time",   "cpu_time",
      std::string(spawnlab::kProcessField)};
  for (auto& [key, value] : row.items()) {
    if (value.is_number() && kFields->count(key) == 0) {
      const double v = value.get<double>();
      if (std::isfinite(v)) series.counters[key].push_back(v);
    }
  }
}

// Reads row number `row_number` of the benchmarks array into `out`.
absl::Status ParseRow(const nlohmann::json& row, size_t row_number, absl::string_view path,
                      ResultsFile& out, std::map<std::string, size_t>& index) {
  const std::string where = absl::StrCat("row ", row_number);
  if (!row.is_object()) return Bad(path, absl::StrCat(where, " is not an object"));
  auto string_field = [&](const char* key) -> std::optional<std::string> {
    if (!row.contains(key)) return std::string();
    if (!row[key].is_string()) return std::nullopt;
    return row[key].get<std::string>();
  };
  std::optional<std::string> name = string_field("name"), run_name = string_field("run_name"),
                             run_type = string_field("run_type"),
                             aggregate = string_field("aggregate_name"),
                             message = string_field("error_message"),
                             unit = string_field("time_unit");
  if (!name || !run_name || !run_type || !aggregate || !message || !unit) {
    return Bad(path, absl::StrCat(where, ": a name, type, unit or message is not a string"));
  }
  if (name->empty()) return Bad(path, absl::StrCat(where, " has no name"));
  const std::string& label = run_name->empty() ? *name : *run_name;
  absl::StatusOr<spawnlab::BenchName> parsed = spawnlab::ParseBenchName(label);
  if (!parsed.ok()) return Bad(path, absl::StrCat(where, ": ", parsed.status().message()));
  Series& series = SeriesFor(out, index, *parsed, row);
  if (row.contains("error_occurred") && !row["error_occurred"].is_boolean()) {
    return Bad(path, absl::StrCat(where, ": error_occurred is not a boolean"));
  }
  if (row.value("error_occurred", false)) {
    if (absl::StartsWith(*message, spawnlab::kSkippedPrefix)) {
      series.skipped = message->substr(spawnlab::kSkippedPrefix.size());
    } else {
      series.error = message->empty() ? "failed (no message)" : *message;
    }
    return absl::OkStatus();
  }
  const bool percentage = row.contains("aggregate_unit") && row["aggregate_unit"].is_string() &&
                          row["aggregate_unit"].get<std::string>() == "percentage";
  if (*aggregate == "cv" || percentage) return absl::OkStatus();
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
    AddSample(series, row, ns);
  }
  return absl::OkStatus();
}

absl::StatusOr<ResultsFile> ReadUnguarded(const nlohmann::json& doc, absl::string_view path) {
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
    if (absl::Status s = ParseRow(row, ++row_number, path, out, index); !s.ok()) return s;
  }
  std::stable_sort(out.series.begin(), out.series.end(),
                   [](const Series& a, const Series& b) { return a.order < b.order; });
  return out;
}

}  // namespace

// The boundary: whatever the input, a Status, never an exception (nlohmann's
// accessors throw on a type they did not expect) and never a crash.
absl::StatusOr<ResultsFile> ReadResults(const nlohmann::json& doc, absl::string_view path) {
  try {
    return ReadUnguarded(doc, path);
  } catch (const std::exception& e) {
    return Bad(path, absl::StrCat("malformed: ", e.what()));
  }
}

absl::StatusOr<ResultsFile> ParseResults(absl::string_view text, absl::string_view path) {
  const nlohmann::json doc = spawnlab::ParseBenchmarkJson(text);  // bounds the depth itself
  if (doc.is_discarded()) {
    if (const int depth = spawnlab::JsonNestingDepth(text); depth > spawnlab::kMaxJsonDepth) {
      return Bad(path, absl::StrCat("nested ", depth, " levels deep (at most ",
                                    spawnlab::kMaxJsonDepth, "): not a results file"));
    }
    return Bad(path, text.empty() ? "empty file" : "not valid JSON (truncated or corrupt?)");
  }
  return ReadResults(doc, path);
}

absl::StatusOr<ResultsFile> LoadResultsFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFileText(path);
  if (!text.ok()) return text.status();
  return ParseResults(*text, path);
}

namespace {

// Full runs only: a --quick or filtered run (clone3.quick.json,
// clone3.filtered.json) and a bench's unfinished temporary file are no
// evidence, and a default run of the answer's rows (clone3.headline.json)
// is the bench's last screen, not a report's: the suite runs --full. (A rerun, clone3.rerun.json, is read, and kept apart.) Regular files only (a FIFO is
// passed over, not read); a link to a file is followed (Bazel's runfiles are links), a link to a
// folder is not, so a link loop cannot trap the walk.
bool IsResultsFile(const std::filesystem::directory_entry& e) {
  const std::string name = e.path().filename().string();
  std::error_code ec;
  return e.is_regular_file(ec) && absl::EndsWith(name, ".json") &&
         !absl::EndsWith(name, ".quick.json") && !absl::EndsWith(name, ".filtered.json") &&
         !absl::EndsWith(name, ".headline.json") &&
         !absl::StrContains(name, ".tmp-");
}

bool IsRerun(const std::string& path) { return absl::EndsWith(path, ".rerun.json"); }

void FindJson(const std::string& dir, std::vector<std::string>* out) {
  std::error_code ec;
  std::filesystem::recursive_directory_iterator it(
      dir, std::filesystem::directory_options::skip_permission_denied, ec);
  for (; !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (IsResultsFile(*it)) out->push_back(it->path().string());
  }
}

}  // namespace

bool NaturalLess(absl::string_view a, absl::string_view b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (absl::ascii_isdigit(a[i]) && absl::ascii_isdigit(b[j])) {
      // Two runs of digits: by value (leading zeros aside), then the shorter.
      size_t i_end = i, j_end = j;
      while (i_end < a.size() && absl::ascii_isdigit(a[i_end])) ++i_end;
      while (j_end < b.size() && absl::ascii_isdigit(b[j_end])) ++j_end;
      size_t i_first = i, j_first = j;
      while (i_first + 1 < i_end && a[i_first] == '0') ++i_first;
      while (j_first + 1 < j_end && b[j_first] == '0') ++j_first;
      const absl::string_view x = a.substr(i_first, i_end - i_first);
      const absl::string_view y = b.substr(j_first, j_end - j_first);
      if (x.size() != y.size()) return x.size() < y.size();
      if (x != y) return x < y;
      if (i_end - i != j_end - j) return i_end - i < j_end - j;
      i = i_end;
      j = j_end;
      continue;
    }
    if (a[i] != b[j]) {
      return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
    }
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

ResultsSet LoadResultsDir(const std::string& dir) {
  std::vector<std::string> paths;
  FindJson(dir, &paths);
  std::sort(paths.begin(), paths.end(),
            [](const std::string& x, const std::string& y) { return NaturalLess(x, y); });
  // Files are named from the results folder's own name down ("results/6.18/
  // clone3.json"), so that reports do not depend on where the checkout is.
  std::string root = dir;
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  const size_t cut = root.rfind('/') == std::string::npos ? 0 : root.rfind('/') + 1;
  ResultsSet set;
  for (const std::string& p : paths) {
    absl::StatusOr<std::string> text = ReadFileText(p);
    absl::StatusOr<ResultsFile> f =
        text.ok() ? ParseResults(*text, p.substr(cut)) : absl::StatusOr<ResultsFile>(text.status());
    if (f.ok()) {
      (IsRerun(p) ? set.reruns : set.files).push_back(*std::move(f));
    } else {
      set.errors.push_back(f.status());
    }
  }
  return set;
}


}  // namespace spawnlab
