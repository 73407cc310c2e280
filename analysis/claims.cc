// claims.cc: see claims.h.

#include "analysis/claims.h"

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "analysis/stats.h"
#include "re2/re2.h"

namespace analysis {
namespace {

constexpr double kSignificance = 0.05;

absl::Status Bad(absl::string_view path, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": ", what));
}

const char* const kReadingVerdicts[] = {"not-testable-here", "not-applicable", "inconsistent",
                                        "contradicted", "reproduced"};

// Checks that `rule[key]` is a string holding a valid regular expression.
absl::Status NeedRegex(const nlohmann::json& rule, const char* key, absl::string_view where) {
  if (!rule.contains(key) || !rule[key].is_string()) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": rule needs a string '", key, "'"));
  }
  RE2::Options quiet;
  quiet.set_log_errors(false);
  RE2 re(rule[key].get<std::string>(), quiet);
  if (!re.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": '", key, "' is not a valid regular expression: ", re.error()));
  }
  return absl::OkStatus();
}

absl::Status NeedNumber(const nlohmann::json& rule, const char* key, absl::string_view where) {
  if (!rule.contains(key) || !rule[key].is_number() || !(rule[key].get<double>() > 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": rule needs a positive number '", key, "'"));
  }
  return absl::OkStatus();
}

absl::Status CheckRule(const Claim& c, absl::string_view where) {
  const nlohmann::json& r = c.rule;
  if (!r.is_object() || !r.contains("kind") || !r["kind"].is_string()) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": rule needs a 'kind'"));
  }
  const std::string kind = r["kind"];
  std::vector<absl::Status> checks;
  if (kind == "ratio") {
    checks = {NeedRegex(r, "numerator", where), NeedRegex(r, "denominator", where),
              NeedNumber(r, "claimed", where), NeedNumber(r, "tolerance", where)};
    if (r.contains("metric") && (!r["metric"].is_string() ||
                                 (r["metric"] != "time" &&
                                  !absl::StartsWith(r["metric"].get<std::string>(), "counter:")))) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": 'metric' is \"time\" or \"counter:NAME\""));
    }
  } else if (kind == "absolute") {
    checks = {NeedRegex(r, "rows", where), NeedNumber(r, "claimed_low_ns", where),
              NeedNumber(r, "claimed_high_ns", where), NeedNumber(r, "factor", where),
              NeedNumber(r, "implausible_factor", where)};
  } else if (kind == "direction") {
    checks = {NeedRegex(r, "faster", where), NeedRegex(r, "slower", where)};
  } else if (kind == "difference") {
    checks = {NeedRegex(r, "minuend", where), NeedRegex(r, "subtrahend", where),
              NeedNumber(r, "claimed_ns", where), NeedNumber(r, "factor", where)};
  } else if (kind == "shape") {
    checks = {NeedRegex(r, "flat_numerator", where), NeedRegex(r, "flat_denominator", where),
              NeedRegex(r, "growing_numerator", where),
              NeedRegex(r, "growing_denominator", where), NeedNumber(r, "max_ratio", where),
              NeedNumber(r, "min_ratio", where)};
  } else if (kind == "reading") {
    if (!r.contains("verdict") || !r["verdict"].is_string() || !r.contains("reason") ||
        !r["reason"].is_string()) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": a reading needs verdict and reason"));
    }
    bool known = false;
    for (const char* v : kReadingVerdicts) known |= (r["verdict"] == v);
    if (!known) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": '", r["verdict"].get<std::string>(),
                       "' is not a verdict a reading may give"));
    }
  } else if (kind == "pending") {
    if (!r.contains("reason") || !r["reason"].is_string()) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": a pending rule needs a reason"));
    }
    return absl::OkStatus();
  } else {
    return absl::InvalidArgumentError(absl::StrCat(where, ": unknown rule kind '", kind, "'"));
  }
  for (const absl::Status& s : checks) {
    if (!s.ok()) return s;
  }
  if (kind != "reading" && kind != "pending" && c.experiment.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": a measured rule needs 'experiment'"));
  }
  return absl::OkStatus();
}

// The measured series of `file` whose names match `pattern`.
std::vector<const Series*> Match(const ResultsFile& file, const std::string& pattern) {
  RE2 re(pattern);
  std::vector<const Series*> out;
  for (const Series& s : file.series) {
    if (RE2::FullMatch(s.name, re)) out.push_back(&s);
  }
  return out;
}

// Finds exactly one series, or explains why not (as a pending/skipped verdict).
const Series* One(const ResultsFile& file, const std::string& pattern, Verdict* why) {
  std::vector<const Series*> found = Match(file, pattern);
  if (found.size() != 1) {
    why->word = "pending";
    why->reason = absl::StrCat(found.size(), " rows of ", file.path, " match '", pattern,
                               "' where the rule needs one");
    return nullptr;
  }
  if (!found[0]->skipped.empty()) {
    why->word = "skipped";
    why->reason = absl::StrCat(found[0]->name, ": ", found[0]->skipped);
    return nullptr;
  }
  if (!found[0]->error.empty()) {
    why->word = "pending";
    why->reason = absl::StrCat(found[0]->name, " failed: ", found[0]->error);
    return nullptr;
  }
  return found[0];
}

std::string Ratio(double r) { return absl::StrFormat("%.3gx", r); }

// p-value of the U test between two series, NaN without repetitions.
double PValue(const Series& a, const Series& b) {
  if (a.samples_ns.size() < 2 || b.samples_ns.size() < 2) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  return MannWhitneyU(a.samples_ns, b.samples_ns);
}

Verdict EvaluateRatio(const nlohmann::json& r, const ResultsFile& file) {
  Verdict v;
  const Series* num = One(file, r["numerator"], &v);
  if (num == nullptr) return v;
  const Series* den = One(file, r["denominator"], &v);
  if (den == nullptr) return v;
  const double claimed = r["claimed"], tolerance = r["tolerance"];
  // A ratio of times by default; "metric": "counter:NAME" compares a counter
  // (a file size, a syscall count), which has no repetitions to test.
  const std::string metric = r.value("metric", "time");
  const bool of_time = metric == "time";
  const double a = num->Metric(metric), b = den->Metric(metric);
  if (std::isnan(a) || std::isnan(b) || b == 0) {
    v.word = "pending";
    v.reason = absl::StrCat("the rows have no ", metric);
    return v;
  }
  const double measured = a / b;
  const double p = of_time ? PValue(*num, *den) : std::numeric_limits<double>::quiet_NaN();
  auto show = [&](double x) { return of_time ? FormatNanos(x) : absl::StrFormat("%.6g", x); };
  v.measured = absl::StrCat(Ratio(measured), " (", show(a), " / ", show(b),
                            of_time ? ", medians" : absl::StrCat(", ", metric.substr(8)),
                            std::isnan(p) ? "" : absl::StrFormat(", U test p=%.2g", p), ")");
  const bool claimed_up = claimed > 1, measured_up = measured > 1;
  if (!std::isnan(p) && p >= kSignificance && claimed != 1) {
    v.word = "contradicted";
    v.reason = absl::StrFormat("claimed %s but the repetitions show no significant difference "
                               "(p=%.2g >= %.2g)",
                               Ratio(claimed), p, kSignificance);
  } else if (claimed_up != measured_up) {
    v.word = "contradicted";
    v.reason = absl::StrCat("claimed ", Ratio(claimed), ", measured ", Ratio(measured),
                            ": the opposite direction");
  } else if (std::fabs(measured / claimed - 1) <= tolerance) {
    v.word = "reproduced";
    v.reason = absl::StrCat("measured ", Ratio(measured), " is within ",
                            absl::StrFormat("%.0f%%", tolerance * 100), " of the claimed ",
                            Ratio(claimed));
  } else {
    v.word = "direction-only";
    v.reason = absl::StrCat("same direction, but ", Ratio(measured), " against the claimed ",
                            Ratio(claimed), " (tolerance ",
                            absl::StrFormat("%.0f%%", tolerance * 100), ")");
  }
  if (std::isnan(p) && of_time) absl::StrAppend(&v.reason, "; no repetitions to test significance");
  return v;
}

Verdict EvaluateAbsolute(const nlohmann::json& r, const ResultsFile& file) {
  Verdict v;
  std::vector<const Series*> rows = Match(file, r["rows"]);
  double floor = std::numeric_limits<double>::infinity();
  std::string floor_row;
  std::vector<std::string> skipped;
  for (const Series* s : rows) {
    if (!s->measured()) {
      if (!s->skipped.empty()) skipped.push_back(absl::StrCat(s->name, ": ", s->skipped));
      continue;
    }
    if (s->Min() < floor) {
      floor = s->Min();
      floor_row = s->name;
    }
  }
  if (floor_row.empty()) {
    v.word = skipped.empty() ? "pending" : "skipped";
    v.reason = skipped.empty()
                   ? absl::StrCat("no measured row of ", file.path, " matches '",
                                  r["rows"].get<std::string>(), "'")
                   : skipped.front();
    return v;
  }
  const double lo = r["claimed_low_ns"], hi = r["claimed_high_ns"];
  const double factor = r["factor"], implausible = r["implausible_factor"];
  v.measured = absl::StrCat("floor ", FormatNanos(floor), " (min of ", floor_row, ")");
  const std::string claimed =
      lo == hi ? FormatNanos(lo) : absl::StrCat(FormatNanos(lo), "–", FormatNanos(hi));
  if (hi * implausible < floor) {
    v.word = "implausible";
    v.reason = absl::StrCat("claimed ", claimed, " is ", absl::StrFormat("%.0f", floor / hi),
                            "x below the floor measured here for the same operation");
  } else if (floor >= lo / factor && floor <= hi * factor) {
    v.word = "reproduced";
    v.reason = absl::StrCat("the floor here is within ", absl::StrFormat("%.0f", factor),
                            "x of the claimed ", claimed);
  } else {
    v.word = "contradicted";
    v.reason = absl::StrCat("claimed ", claimed, ", but the floor here is ",
                            FormatNanos(floor), ": ",
                            floor < lo ? absl::StrFormat("%.1fx below", lo / floor)
                                       : absl::StrFormat("%.1fx above", floor / hi),
                            " the claim, more than the ", absl::StrFormat("%.0f", factor),
                            "x allowed for hardware");
  }
  return v;
}

Verdict EvaluateDirection(const nlohmann::json& r, const ResultsFile& file) {
  Verdict v;
  const Series* fast = One(file, r["faster"], &v);
  if (fast == nullptr) return v;
  const Series* slow = One(file, r["slower"], &v);
  if (slow == nullptr) return v;
  const double p = PValue(*fast, *slow);
  const double ratio = slow->Median() / fast->Median();
  v.measured = absl::StrCat(FormatNanos(fast->Median()), " vs ", FormatNanos(slow->Median()),
                            " (", Ratio(ratio), std::isnan(p) ? "" : absl::StrFormat(", U test p=%.2g", p),
                            ")");
  if (std::isnan(p)) {
    v.word = "pending";
    v.reason = "no repetitions to test the direction";
  } else if (p >= kSignificance) {
    v.word = "contradicted";
    v.reason = absl::StrFormat("no significant difference (p=%.2g): neither is faster here", p);
  } else if (ratio > 1) {
    v.word = "reproduced";
    v.reason = absl::StrCat("faster here too, by ", Ratio(ratio), " (no figure was claimed)");
  } else {
    v.word = "contradicted";
    v.reason = absl::StrCat("the opposite: slower here, by ", Ratio(1 / ratio));
  }
  return v;
}

Verdict EvaluateDifference(const nlohmann::json& r, const ResultsFile& file) {
  Verdict v;
  const Series* a = One(file, r["minuend"], &v);
  if (a == nullptr) return v;
  const Series* b = One(file, r["subtrahend"], &v);
  if (b == nullptr) return v;
  const double claimed = r["claimed_ns"], factor = r["factor"];
  const double diff = a->Median() - b->Median();
  const double p = PValue(*a, *b);
  v.measured = absl::StrCat(diff < 0 ? "-" : "", FormatNanos(std::fabs(diff)), " (",
                            FormatNanos(a->Median()), " − ", FormatNanos(b->Median()),
                            std::isnan(p) ? "" : absl::StrFormat(", U test p=%.2g", p), ")");
  if (!std::isnan(p) && p >= kSignificance) {
    v.word = "contradicted";
    v.reason = absl::StrFormat("claimed a saving of %s, but no significant difference (p=%.2g)",
                               FormatNanos(claimed), p);
  } else if (diff <= 0) {
    v.word = "contradicted";
    v.reason = absl::StrCat("claimed a saving of ", FormatNanos(claimed),
                            "; measured the opposite");
  } else if (diff >= claimed / factor && diff <= claimed * factor) {
    v.word = "reproduced";
    v.reason = absl::StrCat("a saving of ", FormatNanos(diff), ", within ",
                            absl::StrFormat("%.0f", factor), "x of the claimed ", FormatNanos(claimed));
  } else {
    v.word = "direction-only";
    v.reason = absl::StrCat("a saving, but ", FormatNanos(diff), " against the claimed ",
                            FormatNanos(claimed), " (more than ", absl::StrFormat("%.0f", factor),
                            "x apart)");
  }
  return v;
}

Verdict EvaluateShape(const nlohmann::json& r, const ResultsFile& file) {
  Verdict v;
  const Series* fn = One(file, r["flat_numerator"], &v);
  if (fn == nullptr) return v;
  const Series* fd = One(file, r["flat_denominator"], &v);
  if (fd == nullptr) return v;
  const Series* gn = One(file, r["growing_numerator"], &v);
  if (gn == nullptr) return v;
  const Series* gd = One(file, r["growing_denominator"], &v);
  if (gd == nullptr) return v;
  const double flat = fn->Median() / fd->Median(), grow = gn->Median() / gd->Median();
  const double max_ratio = r["max_ratio"], min_ratio = r["min_ratio"];
  v.measured = absl::StrCat("flat side ", Ratio(flat), " (", FormatNanos(fd->Median()), " → ",
                            FormatNanos(fn->Median()), "); growing side ", Ratio(grow), " (",
                            FormatNanos(gd->Median()), " → ", FormatNanos(gn->Median()), ")");
  const bool is_flat = flat <= max_ratio && flat >= 1 / max_ratio;
  const bool grows = grow >= min_ratio;
  if (is_flat && grows) {
    v.word = "reproduced";
    v.reason = absl::StrCat("flat within ", Ratio(max_ratio), " while the other grows ",
                            Ratio(grow));
  } else if (grows) {
    v.word = "direction-only";
    v.reason = absl::StrCat("the growing side grows ", Ratio(grow), ", but the flat side moves ",
                            Ratio(flat), " (more than ", Ratio(max_ratio), ")");
  } else {
    v.word = "contradicted";
    v.reason = absl::StrCat("the growing side grows only ", Ratio(grow), " (claimed at least ",
                            Ratio(min_ratio), ")");
  }
  return v;
}

}  // namespace

const std::vector<std::string>& VerdictWords() {
  static const std::vector<std::string>* const words = new std::vector<std::string>{
      "reproduced",     "direction-only", "contradicted", "implausible", "inconsistent",
      "not-testable-here", "not-applicable", "skipped",   "pending"};
  return *words;
}

std::string FormatNanos(double ns) {
  if (std::isnan(ns)) return "n/a";
  if (ns >= 1e9) return absl::StrFormat("%.3g s", ns / 1e9);
  if (ns >= 1e6) return absl::StrFormat("%.3g ms", ns / 1e6);
  if (ns >= 1e3) return absl::StrFormat("%.3g µs", ns / 1e3);
  return absl::StrFormat("%.3g ns", ns);
}

absl::StatusOr<std::vector<Claim>> ParseClaims(absl::string_view text, absl::string_view path) {
  nlohmann::json doc = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
  if (doc.is_discarded()) return Bad(path, "not valid JSON");
  if (!doc.is_object() || !doc.contains("claims") || !doc["claims"].is_array()) {
    return Bad(path, "no 'claims' array");
  }
  std::vector<Claim> out;
  for (const nlohmann::json& j : doc["claims"]) {
    if (!j.is_object()) return Bad(path, "a claim is not an object");
    Claim c;
    for (auto [field, key] : std::initializer_list<std::pair<std::string*, const char*>>{
             {&c.id, "id"}, {&c.source, "source"}, {&c.claim, "claim"},
             {&c.conditions, "conditions"}}) {
      if (!j.contains(key) || !j[key].is_string() || j[key].get<std::string>().empty()) {
        return Bad(path, absl::StrCat("claim ", j.value("id", "?"), " needs a string '", key, "'"));
      }
      *field = j[key];
    }
    c.part = j.value("part", "");
    c.experiment = j.value("experiment", "");
    if (!j.contains("rule")) return Bad(path, absl::StrCat("claim ", c.id, " has no rule"));
    c.rule = j["rule"];
    absl::Status s = CheckRule(c, absl::StrCat(path, ": claim ", c.id));
    if (!s.ok()) return s;
    out.push_back(std::move(c));
  }
  return out;
}

absl::StatusOr<std::vector<Claim>> LoadClaims(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot be opened"));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return ParseClaims(buffer.str(), path);
}

std::vector<Verdict> Evaluate(const Claim& claim, const std::vector<ResultsFile>& results) {
  const std::string kind = claim.rule["kind"];
  if (kind == "reading") {
    return {Verdict{claim.rule["verdict"], "—",
                    absl::StrCat("by reading, not measured: ", claim.rule["reason"].get<std::string>()),
                    ""}};
  }
  if (kind == "pending") {
    return {Verdict{"pending", "—", claim.rule["reason"].get<std::string>(), ""}};
  }
  std::vector<Verdict> out;
  for (const ResultsFile& file : results) {
    if (file.experiment() != claim.experiment) continue;
    if (file.context.count("spawnlab.quick") && file.context.at("spawnlab.quick") == "true") {
      continue;  // a smoke run is no evidence
    }
    Verdict v = kind == "ratio"        ? EvaluateRatio(claim.rule, file)
                : kind == "absolute"   ? EvaluateAbsolute(claim.rule, file)
                : kind == "direction"  ? EvaluateDirection(claim.rule, file)
                : kind == "difference" ? EvaluateDifference(claim.rule, file)
                                       : EvaluateShape(claim.rule, file);
    v.kernel = absl::StrCat(file.kernel(), " on ", file.host());
    // A verdict from a run the record calls noisy says so beside it.
    if (auto it = file.context.find("run.noisy");
        it != file.context.end() && absl::StartsWith(it->second, "yes")) {
      absl::StrAppend(&v.kernel, " (noisy run: ", it->second.substr(5), ")");
    }
    out.push_back(std::move(v));
  }
  if (out.empty()) {
    out.push_back(Verdict{"pending", "—",
                          absl::StrCat("the ", claim.experiment,
                                       " experiment has no full-run results yet"),
                          ""});
  }
  return out;
}

}  // namespace analysis
