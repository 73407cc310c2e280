// claims.cc: see claims.h.

#include "analysis/claims.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <limits>
#include <optional>
#include <sstream>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "results_model/stats.h"
#include "results_model/bench_name.h"
#include "results_model/context_keys.h"
#include "re2/re2.h"

namespace spawnlab {
namespace analysis {
namespace {

// Fewer repetitions than this a side decide nothing (see TooFew).
constexpr size_t kMinRepetitions = 5;

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

// "claimed": a positive number, or the published figures {"numerator": A,
// "denominator": B} (both positive), whose ratio the ledger computes.
absl::Status NeedClaimedRatio(const nlohmann::json& rule, absl::string_view where) {
  if (rule.contains("claimed") && rule["claimed"].is_object()) {
    absl::Status n = NeedNumber(rule["claimed"], "numerator", where);
    return n.ok() ? NeedNumber(rule["claimed"], "denominator", where) : n;
  }
  return NeedNumber(rule, "claimed", where);
}

// "metric", where given: "time" or "counter:NAME".
absl::Status CheckMetric(const nlohmann::json& rule, absl::string_view where) {
  if (rule.contains("metric") &&
      (!rule["metric"].is_string() ||
       (rule["metric"] != "time" &&
        !absl::StartsWith(rule["metric"].get<std::string>(), "counter:")))) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": 'metric' is \"time\" or \"counter:NAME\""));
  }
  return absl::OkStatus();
}

// The placeholders MachineFacts fills (see claims.h); any other "{...}" is a
// typo that would reach the ledger as it is. With `value_too` (a
// testable_when's reason), "{value}" too: the context value that did not
// match.
absl::Status CheckPlaceholders(const std::string& text, absl::string_view where,
                               bool value_too = false) {
  static const re2::RE2 kAny("\\{([^{}]*)\\}");
  static const re2::RE2 kKnown("(median|context):[^{}\\s]+");
  re2::StringPiece rest(text);
  std::string inside;
  while (re2::RE2::FindAndConsume(&rest, kAny, &inside)) {
    if (!(value_too && inside == "value") && !re2::RE2::FullMatch(inside, kKnown)) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": '{", inside, "}' is not {median:ROW} or {context:KEY}"));
    }
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
              NeedClaimedRatio(r, where), NeedNumber(r, "tolerance", where)};
    if (absl::Status m = CheckMetric(r, where); !m.ok()) return m;
    if (r.contains("at_least") && !r["at_least"].is_boolean()) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": 'at_least' is true or false"));
    }
  } else if (kind == "absolute") {
    checks = {NeedRegex(r, "rows", where), NeedNumber(r, "claimed_low_ns", where),
              NeedNumber(r, "claimed_high_ns", where), NeedNumber(r, "factor", where),
              NeedNumber(r, "implausible_factor", where)};
  } else if (kind == "direction") {
    checks = {NeedRegex(r, "faster", where), NeedRegex(r, "slower", where)};
    if (absl::Status m = CheckMetric(r, where); !m.ok()) return m;
  } else if (kind == "difference") {
    checks = {NeedRegex(r, "minuend", where), NeedRegex(r, "subtrahend", where),
              NeedNumber(r, "claimed_ns", where), NeedNumber(r, "factor", where)};
  } else if (kind == "shape") {
    checks = {NeedRegex(r, "flat_numerator", where),    NeedRegex(r, "flat_denominator", where),
              NeedRegex(r, "growing_numerator", where), NeedRegex(r, "growing_denominator", where),
              NeedNumber(r, "max_ratio", where),        NeedNumber(r, "min_ratio", where)};
  } else if (kind == "value") {
    checks = {NeedRegex(r, "rows", where)};
    if (!r.contains("metric") || !r["metric"].is_string() ||
        !absl::StartsWith(r["metric"].get<std::string>(), "counter:") || !r.contains("expected") ||
        !r["expected"].is_number()) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": a value rule needs 'metric' (\"counter:NAME\") and 'expected'"));
    }
  } else if (kind == "reading") {
    if (!r.contains("verdict") || !r["verdict"].is_string() || !r.contains("reason") ||
        !r["reason"].is_string()) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": a reading needs verdict and reason"));
    }
    bool known = false;
    for (const char* v : kReadingVerdicts) known |= (r["verdict"] == v);
    if (!known) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": '", r["verdict"].get<std::string>(),
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
  if (r.contains("testable_when")) {
    const nlohmann::json& t = r["testable_when"];
    if (kind == "reading" || !t.is_object() || !t.contains("context") ||
        !t["context"].is_string() || !t.contains("otherwise") || !t["otherwise"].is_string()) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": testable_when needs 'context', 'matches' and 'otherwise' (a measured rule)"));
    }
    if (absl::Status m = NeedRegex(t, "matches", where); !m.ok()) return m;
    if (absl::Status m = CheckPlaceholders(t["otherwise"].get<std::string>(), where, true);
        !m.ok()) {
      return m;
    }
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

// A counter's value: whole numbers as they are (670496 bytes), others to four
// significant figures (1306.61 us is "1307", 0.573 stays).
std::string Count(double x) {
  if (x == std::floor(x) || std::fabs(x) >= 1000) return absl::StrFormat("%.0f", x);
  return absl::StrFormat("%.4g", x);
}

// A signed difference to three significant figures, without an exponent
// (-2209 is "-2209", 14.7 "+14.7").
std::string Signed(double x) {
  return std::fabs(x) >= 1000 ? absl::StrFormat("%+.0f", x) : absl::StrFormat("%+.3g", x);
}

// ThreeFigures without its trailing zeros, as %.3g prints but never with an
// exponent: "2", "1.5", "1120".
std::string Compact(double v) {
  std::string s = ThreeFigures(v);
  if (s.find('.') == std::string::npos) return s;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

std::string Ratio(double r) { return absl::StrCat(Compact(r), "x"); }

std::string FormatP(double p) {
  if (std::isnan(p)) return "";
  return p < 0.001 ? "p < 0.001" : absl::StrCat("p = ", FormatPValue(p));
}

bool Constant(const std::vector<double>& v) {
  return !v.empty() && std::all_of(v.begin(), v.end(), [&](double x) { return x == v[0]; });
}

// Why two samples cannot decide anything, or "" if they can: both constant
// (a file size, a syscall count) is exact; otherwise each side needs
// kMinRepetitions.
std::string TooFew(const std::vector<double>& a, const std::vector<double>& b) {
  if (Constant(a) && Constant(b)) return "";
  if (a.size() >= kMinRepetitions && b.size() >= kMinRepetitions) return "";
  return absl::StrCat(a.size(), " and ", b.size(), " repetitions: each side needs ",
                      kMinRepetitions,
                      " (fewer cannot give a 95% interval narrower than the range of the "
                      "differences, nor p < 0.05 with 3 a side)");
}

// What a verdict's U test and interval rest on. Where both rows were measured
// in several processes (bench/bench.h: --processes), each process's median:
// repetitions inside one process share its luck (memory layout, page cache),
// so an interval from them is narrower than two runs of the same code bear
// out, as //analysis:compare found (compare.h). Else, and where either row
// has fewer than kMinRepetitions processes, the repetitions, and the verdict
// says so.
struct TestSamples {
  std::vector<double> a, b;
  bool by_process = false;
  int few_processes = 0;  // the processes there were, where too few to use
};
TestSamples ForTest(const Series& x, const Series& y, absl::string_view metric) {
  TestSamples t;
  t.a = x.ProcessSamples(metric);
  t.b = y.ProcessSamples(metric);
  t.by_process = t.a.size() >= kMinRepetitions && t.b.size() >= kMinRepetitions;
  if (!t.by_process) {
    if (!t.a.empty() && !t.b.empty()) {
      t.few_processes = static_cast<int>(std::min(t.a.size(), t.b.size()));
    }
    t.a = x.Samples(metric);
    t.b = y.Samples(metric);
  }
  return t;
}

// ", n = 20 / 20" of repetitions, or with the processes the test used:
// ", n = 20 / 20 repetitions in 10 / 10 processes".
std::string SampleCount(const std::vector<double>& a, const std::vector<double>& b,
                        const TestSamples& t) {
  return t.by_process ? absl::StrCat(", n = ", a.size(), " / ", b.size(), " repetitions in ",
                                     t.a.size(), " / ", t.b.size(),
                                     " processes (each process's median a sample)")
                      : absl::StrCat(", n = ", a.size(), " / ", b.size(),
                                     t.few_processes > 0
                                         ? absl::StrCat(" repetitions from ", t.few_processes,
                                                        " processes, too few to be the samples: "
                                                        "the interval is narrower than it should be")
                                         : std::string());
}

// Makes `v` pending with the reason, and says so, when two samples are too
// few to decide anything.
// Pending when either side has no repetitions of `metric` (an aggregate row
// has no spread; a counter a row does not write), or the denominator's
// median is 0.
bool PendingIfNoSamples(const std::vector<double>& a, const std::vector<double>& b,
                        const std::string& metric, Verdict* v) {
  if (!a.empty() && !b.empty() && Median(b) != 0) return false;
  v->word = "pending";
  v->reason = absl::StrCat("the rows have no repetitions of ", metric);
  return true;
}

bool PendingIfTooFew(const std::vector<double>& a, const std::vector<double>& b, Verdict* v) {
  std::string few = TooFew(a, b);
  if (few.empty()) return false;
  v->word = "pending";
  v->reason = std::move(few);
  return true;
}

// Where an interval [lo, hi] of an effect (a log-ratio, or a difference in
// ns) lies against the band [bl, bh] that would reproduce the claim. `sign`
// is the claimed direction (+1 larger, -1 smaller, 0 no difference); 0 is no
// effect. `show` prints a value of the effect for the reasons.
struct Judged {
  std::string word;
  std::string reason;
};
Judged Judge(double lo, double hi, double bl, double bh, int sign,
             const std::function<std::string(double)>& show) {
  // A constant counter has no interval: its value is exact.
  const std::string interval = lo == hi
                                   ? absl::StrCat("the exact value ", show(lo))
                                   : absl::StrCat("the 95% interval ", show(lo), " to ", show(hi));
  const std::string band =
      absl::StrCat("the band ", show(bl), " to ", show(bh), " that would reproduce the claim");
  if (lo >= bl && hi <= bh) return {"reproduced", absl::StrCat(interval, " lies within ", band)};
  if (sign == 0) {
    if (hi < bl || lo > bh) {
      return {"contradicted", absl::StrCat(interval, " lies outside ", band)};
    }
    return {"inconclusive", absl::StrCat(interval, " straddles an edge of ", band)};
  }
  // In the claimed direction's terms: positive is the way the claim goes.
  const double dlo = sign > 0 ? lo : -hi, dhi = sign > 0 ? hi : -lo;
  const double dbl = sign > 0 ? bl : -bh, dbh = sign > 0 ? bh : -bl;
  if (dhi < 0) {
    return {"contradicted", absl::StrCat(interval,
                                         " lies wholly on the other side of no "
                                         "difference: the opposite direction")};
  }
  if (dlo > 0 && (dhi < dbl || dlo > dbh)) {
    return {"direction-only", absl::StrCat("the same direction, but ", interval, " lies ",
                                           dhi < dbl ? "short of " : "beyond ", band)};
  }
  if (dhi < dbl) {
    return {"contradicted", absl::StrCat(interval, " holds no difference and stops short of ", band,
                                         ": an effect of the claimed size would have shown")};
  }
  if (dhi - dlo > std::fabs(dbl + dbh) / 2) {
    return {"inconclusive",
            absl::StrCat(interval, " is wider than the claimed effect: this run cannot tell")};
  }
  return {"inconclusive", absl::StrCat(interval, " straddles an edge of ", band)};
}

// The band of a claimed ratio, on logs: within `tolerance` of the ratio and
// within `tolerance` of the effect (ln of the ratio), whichever is narrower,
// so that a +1.65% claim is not "reproduced" by anything up to +27%.
std::pair<double, double> LogBand(double claimed, double tolerance) {
  const double centre = std::log(claimed);
  double half = std::log1p(tolerance);
  if (claimed != 1) half = std::min(half, tolerance * std::fabs(centre));
  return {centre - half, centre + half};
}

// "claimed": a number, or {"numerator": A, "denominator": B}: the published
// figures, whose ratio is computed here.
double ClaimedRatio(const nlohmann::json& r) {
  const nlohmann::json& c = r["claimed"];
  if (c.is_object()) return c["numerator"].get<double>() / c["denominator"].get<double>();
  return c.get<double>();
}

std::string ClaimedText(const nlohmann::json& r) {
  const nlohmann::json& c = r["claimed"];
  if (!c.is_object()) return Ratio(c.get<double>());
  return absl::StrCat(Ratio(ClaimedRatio(r)), " (",
                      absl::StrFormat("%g", c["numerator"].get<double>()), " / ",
                      absl::StrFormat("%g", c["denominator"].get<double>()), ")");
}

// A claim that is a lower bound ("more than 10x faster"): `reproduced` when
// the whole interval lies at or above it, `direction-only` when it lies
// above 1 but below the bound, `contradicted` when it lies below the bound
// and holds no difference or the opposite one, `inconclusive` when it
// straddles the bound.
void JudgeLowerBound(const Interval& ci, double bound, Verdict* v) {
  const std::string interval = absl::StrCat("the 95% interval ", Ratio(ci.low), " to ",
                                            Ratio(ci.high));
  if (ci.low >= bound) {
    v->word = "reproduced";
    v->reason = absl::StrCat(interval, " lies at or above the bound");
  } else if (ci.high < bound && ci.low > 1) {
    v->word = "direction-only";
    v->reason = absl::StrCat("the same direction, but ", interval, " lies below the bound");
  } else if (ci.high < bound) {
    v->word = "contradicted";
    v->reason = absl::StrCat(interval, " lies below the bound and holds no difference of the "
                             "claimed direction");
  } else {
    v->word = "inconclusive";
    v->reason = absl::StrCat(interval, " straddles the bound");
  }
}

Verdict EvaluateRatio(const nlohmann::json& r, const ResultsFile& file) {
  Verdict v;
  const Series* num = One(file, r["numerator"], &v);
  if (num == nullptr) return v;
  const Series* den = One(file, r["denominator"], &v);
  if (den == nullptr) return v;
  v.rows = absl::StrCat("`", num->name, "` / `", den->name, "`");
  const double claimed = ClaimedRatio(r), tolerance = r["tolerance"];
  // A ratio of times by default; "metric": "counter:NAME" compares a counter.
  const std::string metric = r.value("metric", "time");
  const bool of_time = metric == "time";
  // Only repetitions decide: a median alone (an aggregate row) has no spread.
  const std::vector<double> a = num->Samples(metric), b = den->Samples(metric);
  if (PendingIfNoSamples(a, b, metric, &v)) return v;
  const double measured = Median(a) / Median(b);
  auto show = [&](double x) { return of_time ? FormatNanos(x) : Count(x); };
  const bool exact = Constant(a) && Constant(b);
  const TestSamples t = ForTest(*num, *den, metric);
  const double p = exact ? std::numeric_limits<double>::quiet_NaN() : MannWhitneyU(t.a, t.b);
  v.measured = absl::StrCat(Ratio(measured), " (", show(Median(a)), " / ", show(Median(b)),
                            of_time ? ", medians" : absl::StrCat(", ", metric.substr(8)),
                            exact ? ", exact" : "", std::isnan(p) ? "" : ", U test ", FormatP(p),
                            SampleCount(a, b, t), ")");
  if (!of_time) {
    // A count's ratio hides its scale: 30 / 15 and 2 / 1 are both 2x. Say the
    // difference too, and the claim's where it gives both figures.
    const double diff = Median(a) - Median(b);
    absl::StrAppend(&v.measured, "; ", Signed(diff), " ", metric.substr(8));
    // The claim's own difference only where its figures are in the counter's
    // unit (a count of system calls; not megabytes against bytes).
    if (r["claimed"].is_object() && r.value("claimed_in_counter_unit", false)) {
      absl::StrAppend(&v.measured, " (claimed ",
                      Signed(r["claimed"]["numerator"].get<double>() -
                             r["claimed"]["denominator"].get<double>()),
                      ")");
    }
  }
  if (PendingIfTooFew(t.a, t.b, &v)) return v;
  const Interval ci = exact ? Interval{measured, measured, measured} : RatioInterval(t.a, t.b);
  if (!exact) absl::StrAppend(&v.measured, "; 95% interval ", Ratio(ci.low), "–", Ratio(ci.high));
  if (r.value("at_least", false)) {
    JudgeLowerBound(ci, claimed, &v);
    v.reason = absl::StrCat("claimed at least ", ClaimedText(r), ": ", v.reason);
    return v;
  }
  const auto [bl, bh] = LogBand(claimed, tolerance);
  const int sign = claimed > 1 ? 1 : claimed < 1 ? -1 : 0;
  const Judged j = Judge(std::log(ci.low), std::log(ci.high), bl, bh, sign,
                         [](double x) { return Ratio(std::exp(x)); });
  v.word = j.word;
  v.reason = absl::StrCat("claimed ", ClaimedText(r), ": ", j.reason);
  return v;
}

Verdict EvaluateAbsolute(const nlohmann::json& r, const ResultsFile& file) {
  Verdict v;
  std::vector<const Series*> rows = Match(file, r["rows"]);
  double floor = std::numeric_limits<double>::infinity();
  double typical = std::numeric_limits<double>::infinity();
  std::string floor_row, typical_row;
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
    if (s->Median() < typical) {
      typical = s->Median();
      typical_row = s->name;
    }
  }
  if (floor_row.empty()) {
    v.word = skipped.empty() ? "pending" : "skipped";
    v.reason = skipped.empty() ? absl::StrCat("no measured row of ", file.path, " matches '",
                                              r["rows"].get<std::string>(), "'")
                               : skipped.front();
    return v;
  }
  v.rows = absl::StrCat("`", typical_row, "`");
  const double lo = r["claimed_low_ns"], hi = r["claimed_high_ns"];
  const double factor = r["factor"], implausible = r["implausible_factor"];
  // The median for agreement (claims are about typical time); the minimum
  // only to call a claim implausible (faster than this machine ever was).
  v.measured = absl::StrCat("median ", FormatNanos(typical), ", least min ", FormatNanos(floor),
                            floor_row == typical_row ? "" : absl::StrCat(" (", floor_row, ")"));
  const std::string claimed =
      lo == hi ? FormatNanos(lo) : absl::StrCat(FormatNanos(lo), "–", FormatNanos(hi));
  // A syscall-bound claim, in this machine's own unit: how many of its null
  // system calls the operation costs, and what null system call the claim
  // would then imply (a null system call costs several times more with
  // page-table isolation than without: nanoseconds alone compare machines).
  std::string in_units;
  if (r.contains("null_syscall_row")) {
    Verdict why;
    const Series* null_call = One(file, r["null_syscall_row"], &why);
    if (null_call != nullptr && null_call->Median() > 0) {
      const double units = typical / null_call->Median();
      absl::StrAppend(&v.measured, "; ", absl::StrFormat("%.1f", units),
                      " null system calls of this machine (`", null_call->name, "`, ",
                      FormatNanos(null_call->Median()), ")");
      in_units = absl::StrCat(
          ". In this machine's units the operation costs ", absl::StrFormat("%.1f", units),
          " null system calls; at the claimed ", claimed, " a null system call would take ",
          lo == hi ? FormatNanos(lo / units)
                   : absl::StrCat(FormatNanos(lo / units), "–", FormatNanos(hi / units)));
    }
  }
  if (hi * implausible < floor) {
    v.word = "implausible";
    v.reason = absl::StrCat("claimed ", claimed, " is ", absl::StrFormat("%.0f", floor / hi),
                            "x below the fastest repetition of any matching row here (more than "
                            "the ",
                            absl::StrFormat("%.0f", implausible), "x that hardware could explain)");
  } else if (typical >= lo / factor && typical <= hi * factor) {
    v.word = "reproduced";
    v.reason = absl::StrCat("the median here is within ", absl::StrFormat("%.0f", factor),
                            "x of the claimed ", claimed);
  } else if (typical > hi * factor) {
    v.word = "contradicted";
    v.reason = absl::StrCat("slower here: the median is ", absl::StrFormat("%.1f", typical / hi),
                            "x the claimed ", claimed, ", more than the ",
                            absl::StrFormat("%.0f", factor), "x allowed for hardware");
  } else {
    v.word = "inconclusive";
    v.reason = absl::StrCat("faster here: the median is ", absl::StrFormat("%.1f", lo / typical),
                            "x below the claimed ", claimed,
                            "; a slower machine, or more work in what was timed there, would "
                            "explain it, so this does not contradict the claim");
  }
  absl::StrAppend(&v.reason, in_units);
  return v;
}

Verdict EvaluateDirection(const nlohmann::json& r, const ResultsFile& file) {
  Verdict v;
  const Series* fast = One(file, r["faster"], &v);
  if (fast == nullptr) return v;
  const Series* slow = One(file, r["slower"], &v);
  if (slow == nullptr) return v;
  // A time by default; with "metric": "counter:NAME", `slower` is the row
  // claimed to have the larger value of that counter.
  const std::string metric = r.value("metric", "time");
  const bool of_time = metric == "time";
  const std::vector<double> a = slow->Samples(metric), b = fast->Samples(metric);
  if (PendingIfNoSamples(a, b, metric, &v)) return v;
  v.rows = absl::StrCat(
      "`", slow->name, "` / `", fast->name, "` (claimed ",
      of_time ? "slower / faster" : absl::StrCat("larger / smaller ", metric.substr(8)), ")");
  const double ratio = Median(a) / Median(b);
  const TestSamples t = ForTest(*slow, *fast, metric);
  const double p = MannWhitneyU(t.a, t.b);
  auto show = [&](double x) { return of_time ? FormatNanos(x) : Compact(x); };
  v.measured = absl::StrCat(show(Median(a)), " / ", show(Median(b)), " = ", Ratio(ratio),
                            std::isnan(p) ? "" : absl::StrCat(", U test ", FormatP(p)),
                            SampleCount(a, b, t));
  if (PendingIfTooFew(t.a, t.b, &v)) return v;
  const Interval ci = RatioInterval(t.a, t.b);
  absl::StrAppend(&v.measured, "; 95% interval ", Ratio(ci.low), "–", Ratio(ci.high));
  // No figure was claimed: any difference the right way reproduces it; none
  // larger than `negligible` (5% unless the rule says) either way contradicts.
  const double negligible = r.value("negligible", 0.05);
  if (ci.low > 1) {
    v.word = "reproduced";
    v.reason = absl::StrCat(of_time ? "faster here too: the 95% interval of slower / faster is "
                                    : "the same way here: the 95% interval of larger / smaller is ",
                            Ratio(ci.low), " to ", Ratio(ci.high), " (no figure was claimed)");
  } else if (ci.high < 1) {
    v.word = "contradicted";
    v.reason = absl::StrCat("the opposite: the 95% interval of slower / faster is ", Ratio(ci.low),
                            " to ", Ratio(ci.high));
  } else if (ci.low >= 1 / (1 + negligible) && ci.high <= 1 + negligible) {
    v.word = "contradicted";
    v.reason = absl::StrCat("no difference here: the 95% interval ", Ratio(ci.low), " to ",
                            Ratio(ci.high), " rules out one larger than ",
                            absl::StrFormat("%.0f%%", negligible * 100), " either way");
  } else {
    v.word = "inconclusive";
    v.reason = absl::StrCat("the 95% interval ", Ratio(ci.low), " to ", Ratio(ci.high),
                            " holds no difference but also differences larger than ",
                            absl::StrFormat("%.0f%%", negligible * 100));
  }
  return v;
}

Verdict EvaluateDifference(const nlohmann::json& r, const ResultsFile& file) {
  Verdict v;
  const Series* a = One(file, r["minuend"], &v);
  if (a == nullptr) return v;
  const Series* b = One(file, r["subtrahend"], &v);
  if (b == nullptr) return v;
  v.rows = absl::StrCat("`", a->name, "` − `", b->name, "`");
  const double claimed = r["claimed_ns"], factor = r["factor"];
  const double diff = a->Median() - b->Median();
  auto signed_ns = [](double x) {
    return absl::StrCat(x < 0 ? "-" : "", FormatNanos(std::fabs(x)));
  };
  const TestSamples t = ForTest(*a, *b, "time");
  const double p = t.a.empty() || t.b.empty() ? std::numeric_limits<double>::quiet_NaN()
                                              : MannWhitneyU(t.a, t.b);
  v.measured =
      absl::StrCat(signed_ns(diff), " (", FormatNanos(a->Median()), " − ", FormatNanos(b->Median()),
                   std::isnan(p) ? "" : absl::StrCat(", U test ", FormatP(p)),
                   SampleCount(a->samples_ns, b->samples_ns, t), ")");
  if (PendingIfTooFew(t.a, t.b, &v)) return v;
  const Interval ci = ShiftInterval(t.a, t.b);
  absl::StrAppend(&v.measured, "; 95% interval ", signed_ns(ci.low), " to ", signed_ns(ci.high));
  const Judged j = Judge(ci.low, ci.high, claimed / factor, claimed * factor, 1, signed_ns);
  v.word = j.word;
  v.reason = absl::StrCat("claimed a saving of ", FormatNanos(claimed), ": ", j.reason);
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
    v.reason =
        absl::StrCat("flat within ", Ratio(max_ratio), " while the other grows ", Ratio(grow));
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
      "reproduced",   "direction-only",    "contradicted",   "implausible", "inconclusive",
      "inconsistent", "not-testable-here", "not-applicable", "skipped",     "pending"};
  return *words;
}

std::string FormatPValue(double p) {
  if (std::isnan(p)) return "n/a";
  return p < 0.001 ? "< 0.001" : absl::StrFormat("%.2g", p);
}

std::string ThreeFigures(double v) {
  if (v == 0 || !std::isfinite(v)) return absl::StrFormat("%g", v);
  v = std::strtod(absl::StrFormat("%.3g", v).c_str(), nullptr);  // 0.9997 -> 1, not 1.000
  const int decimals = std::max(0, 2 - static_cast<int>(std::floor(std::log10(std::fabs(v)))));
  return absl::StrFormat("%.*f", decimals, v);
}

std::string FormatNanos(double ns) {
  if (std::isnan(ns)) return "n/a";
  if (ns >= 1e9) return absl::StrCat(Compact(ns / 1e9), " s");
  if (ns >= 1e6) return absl::StrCat(Compact(ns / 1e6), " ms");
  if (ns >= 1e3) return absl::StrCat(Compact(ns / 1e3), " µs");
  return absl::StrCat(Compact(ns), " ns");
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
             {&c.id, "id"},
             {&c.source, "source"},
             {&c.claim, "claim"},
             {&c.conditions, "conditions"}}) {
      if (!j.contains(key) || !j[key].is_string() || j[key].get<std::string>().empty()) {
        return Bad(path, absl::StrCat("claim ", j.value("id", "?"), " needs a string '", key, "'"));
      }
      *field = j[key];
    }
    c.part = j.value("part", "");
    c.experiment = j.value("experiment", "");
    if (j.contains("size_differs") && !j["size_differs"].is_string()) {
      return Bad(path, absl::StrCat("claim ", c.id, ": 'size_differs' is a sentence"));
    }
    c.size_differs = j.value("size_differs", "");
    if (absl::Status p = CheckPlaceholders(c.size_differs, absl::StrCat(path, ": claim ", c.id));
        !p.ok()) {
      return p;
    }
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

// A functional claim: every repetition of every matching row has the counter
// at the expected value (a descriptor inherited: 1; zombies left: 0).
Verdict EvaluateValue(const nlohmann::json& r, const ResultsFile& file) {
  Verdict v;
  const std::string pattern = r["rows"], metric = r["metric"];
  const std::string counter = metric.substr(8);
  const double expected = r["expected"];
  std::vector<const Series*> measured;
  std::vector<std::string> skipped;
  for (const Series* s : Match(file, pattern)) {
    if (!s->skipped.empty()) {
      skipped.push_back(absl::StrCat(s->name, ": ", s->skipped));
    } else if (!s->error.empty()) {
      v.word = "pending";
      v.reason = absl::StrCat(s->name, " failed: ", s->error);
      return v;
    } else {
      measured.push_back(s);
    }
  }
  if (measured.empty()) {
    v.word = skipped.empty() ? "pending" : "skipped";
    v.reason = skipped.empty() ? absl::StrCat("no row of ", file.path, " matches '", pattern, "'")
                               : absl::StrJoin(skipped, "; ");
    return v;
  }
  std::vector<std::string> names;
  size_t repetitions = 0;
  for (const Series* s : measured) {
    names.push_back(absl::StrCat("`", s->name, "`"));
    const std::vector<double> values = s->Samples(metric);
    if (values.empty()) {
      v.word = "pending";
      v.reason = absl::StrCat(s->name, " has no counter ", counter);
      return v;
    }
    repetitions += values.size();
    for (size_t k = 0; k < values.size(); ++k) {
      if (std::fabs(values[k] - expected) > 1e-9 * std::max(1.0, std::fabs(expected))) {
        v.rows = absl::StrJoin(names, ", ");
        v.measured =
            absl::StrFormat("%s = %.6g in repetition %d of %s", counter, values[k], k, s->name);
        v.word = "contradicted";
        v.reason = absl::StrFormat("the claim says %s = %.6g; %s", counter, expected, v.measured);
        return v;
      }
    }
  }
  v.rows = absl::StrJoin(names, ", ");
  v.measured = absl::StrFormat("%s = %.6g in every repetition (%d, over %d rows)", counter,
                               expected, repetitions, measured.size());
  v.word = "reproduced";
  v.reason = absl::StrFormat("as claimed, in every row and repetition%s",
                             skipped.empty() ? ""
                                             : absl::StrCat(" (", skipped.size(), " rows skipped: ",
                                                            absl::StrJoin(skipped, "; "), ")"));
  return v;
}

namespace {

// The results of one machine that count as evidence (no smoke run, no UML).
std::vector<const ResultsFile*> MachineFiles(const std::string& kernel, const std::string& host,
                                             const std::vector<ResultsFile>& results) {
  std::vector<const ResultsFile*> out;
  for (const ResultsFile& f : results) {
    if (!f.quick() && !f.uml() && f.kernel() == kernel && f.host() == host) out.push_back(&f);
  }
  return out;
}

// `not-testable-here` where the rule's testable_when does not hold for `file`.
std::optional<Verdict> Untestable(const nlohmann::json& rule, const ResultsFile& file,
                                  const std::vector<ResultsFile>& results) {
  if (!rule.contains("testable_when")) return std::nullopt;
  const nlohmann::json& t = rule["testable_when"];
  const std::string key = t["context"];
  auto it = file.context.find(key);
  const std::string value = it == file.context.end() ? "not recorded" : it->second;
  if (it != file.context.end() && re2::RE2::FullMatch(value, t["matches"].get<std::string>())) {
    return std::nullopt;
  }
  Verdict v;
  v.word = "not-testable-here";
  v.measured = "—";
  v.reason =
      MachineFacts(absl::StrReplaceAll(t["otherwise"].get<std::string>(), {{"{value}", value}}),
                   file.kernel(), file.host(), results);
  return v;
}

}  // namespace

std::string MachineFacts(const std::string& text, const std::string& kernel,
                         const std::string& host, const std::vector<ResultsFile>& results) {
  // What comes before the next placeholder, and the placeholder's parts.
  static const re2::RE2 kNext("(?s)(.*?)\\{(median|context):([^{}\\s]+)\\}");
  const std::vector<const ResultsFile*> files = MachineFiles(kernel, host, results);
  std::string out, before, kind, name;
  re2::StringPiece rest(text);
  while (re2::RE2::Consume(&rest, kNext, &before, &kind, &name)) {
    std::string fact;
    for (const ResultsFile* f : files) {
      if (kind == "context") {
        if (auto it = f->context.find(name); it != f->context.end()) fact = it->second;
      } else {
        for (const Series& series : f->series) {
          if (series.name == name && series.measured()) {
            fact = FormatNanos(series.Median());
            break;
          }
        }
      }
      if (!fact.empty()) break;
    }
    absl::StrAppend(&out, before, fact.empty() ? "not measured on this machine" : fact);
  }
  absl::StrAppend(&out, absl::string_view(rest.data(), rest.size()));
  return out;
}

std::vector<Verdict> Evaluate(const Claim& claim, const std::vector<ResultsFile>& results) {
  const std::string kind = claim.rule["kind"];
  if (kind == "reading") {
    return {Verdict{
        claim.rule["verdict"], "", "—",
        absl::StrCat("by reading, not measured: ", claim.rule["reason"].get<std::string>()), ""}};
  }
  if (kind == "pending") {
    return {Verdict{"pending", "", "—", claim.rule["reason"].get<std::string>(), ""}};
  }
  std::vector<Verdict> out;
  for (const ResultsFile& file : results) {
    if (file.experiment() != claim.experiment) continue;
    // A smoke run is no evidence, nor are times under User-Mode Linux.
    if (file.quick() || file.uml()) continue;
    const std::optional<Verdict> untestable = Untestable(claim.rule, file, results);
    Verdict v = untestable.has_value()   ? *untestable
                : kind == "ratio"        ? EvaluateRatio(claim.rule, file)
                : kind == "absolute"     ? EvaluateAbsolute(claim.rule, file)
                : kind == "direction"    ? EvaluateDirection(claim.rule, file)
                : kind == "difference"   ? EvaluateDifference(claim.rule, file)
                : kind == "value"        ? EvaluateValue(claim.rule, file)
                                         : EvaluateShape(claim.rule, file);
    v.kernel = absl::StrCat(file.kernel(), " on ", file.host());
    v.machine_kernel = file.kernel();
    v.machine_host = file.host();
    // A verdict from a run the record calls noisy says so beside it.
    auto noisy = file.context.find("run.noisy");
    if (noisy != file.context.end() && absl::StartsWith(noisy->second, "yes")) {
      absl::StrAppend(&v.kernel, " (noisy run: ", noisy->second.substr(5), ")");
    }
    auto processes = file.context.find(spawnlab::keys::kProcesses);
    int n = 0;
    v.clean = noisy != file.context.end() && absl::StartsWith(noisy->second, "no") &&
              processes != file.context.end() && absl::SimpleAtoi(processes->second, &n) && n > 1;
    out.push_back(std::move(v));
  }
  if (out.empty()) {
    out.push_back(Verdict{
        "pending", "", "—",
        absl::StrCat("the ", claim.experiment, " experiment has no full-run results yet"), ""});
  }
  return out;
}

std::vector<std::string> CheckClaimRows(const std::vector<Claim>& claims,
                                        const std::string& experiment,
                                        const std::vector<std::string>& bench_rows) {
  std::vector<std::string> names;  // canonical, as results name their series
  for (const std::string& r : bench_rows) {
    absl::StatusOr<spawnlab::BenchName> n = spawnlab::ParseBenchName(r);
    if (n.ok()) names.push_back(n->canonical);
  }
  std::vector<std::string> problems;
  for (const Claim& c : claims) {
    if (c.experiment != experiment) continue;
    const nlohmann::json& r = c.rule;
    const std::string kind = r["kind"];
    std::vector<std::string> one, some;
    if (kind == "ratio") one = {"numerator", "denominator"};
    if (kind == "direction") one = {"faster", "slower"};
    if (kind == "difference") one = {"minuend", "subtrahend"};
    if (kind == "shape") {
      one = {"flat_numerator", "flat_denominator", "growing_numerator", "growing_denominator"};
    }
    if (kind == "absolute" || kind == "value") some = {"rows"};
    if (kind == "absolute" && r.contains("null_syscall_row")) one = {"null_syscall_row"};
    auto check = [&](const std::string& key, bool exactly_one) {
      RE2 re(r[key].get<std::string>());
      const size_t n = std::count_if(names.begin(), names.end(), [&](const std::string& name) {
        return RE2::FullMatch(name, re);
      });
      if (n == 0 || (exactly_one && n != 1)) {
        problems.push_back(
            absl::StrCat("claim ", c.id, c.part.empty() ? "" : absl::StrCat(" (", c.part, ")"),
                         ": its ", key, " '", r[key].get<std::string>(), "' matches ", n,
                         " rows of ", experiment, exactly_one ? ", not one" : ""));
      }
    };
    for (const std::string& key : one) check(key, true);
    for (const std::string& key : some) check(key, false);
  }
  return problems;
}

}  // namespace analysis
}  // namespace spawnlab
