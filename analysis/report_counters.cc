// report_counters.cc: the counters section: each spec'd counter table, median and range.

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <set>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "analysis/report_sections.h"
#include "results_model/stats.h"

namespace spawnlab {
namespace analysis {

namespace {

// A counter's value to three significant figures, without an exponent; a
// whole number below 1000 (a count of mappings or threads) as it is, unless
// `sig` asks for figures throughout (a cell whose other values have them).
std::string Figure(double x, bool sig = false) {
  if (std::isnan(x)) return "n/a";
  if (x == 0) return "0";
  if (!sig && x == std::floor(x) && std::fabs(x) < 1000) return absl::StrFormat("%.0f", x);
  // Rounded first, so that 99.95 is "100", not "100.0".
  const double unit = std::pow(10.0, static_cast<int>(std::floor(std::log10(std::fabs(x)))) - 2);
  const double r = std::round(x / unit) * unit;
  const int e = static_cast<int>(std::floor(std::log10(std::fabs(r))));
  return e >= 2 ? absl::StrFormat("%.0f", r) : absl::StrFormat("%.*f", 2 - e, r);
}

// The time unit a counter's name declares (`p99_us`, `reap_ns_per_child`),
// in ns, or 0 when it is not a time.
double CounterTimeScale(absl::string_view name) {
  for (const auto& [tag, ns] :
       {std::pair<const char*, double>{"_ns", 1}, {"_us", 1e3}, {"_ms", 1e6}}) {
    if (absl::EndsWith(name, tag) || absl::StrContains(name, absl::StrCat(tag, "_"))) return ns;
  }
  return 0;
}

// One cell: the median, and the range when the repetitions differ, all three
// in one style (exact counts, or three significant figures).
std::string CounterCell(std::vector<double> v, std::function<std::string(double, bool)> format) {
  std::sort(v.begin(), v.end());
  const bool counts = std::all_of(
      v.begin(), v.end(), [](double x) { return x == std::floor(x) && std::fabs(x) < 1000; });
  const std::string median = format(Median(v), !counts);
  const std::string lo = format(v.front(), !counts), hi = format(v.back(), !counts);
  return lo == hi ? median : absl::StrCat(median, " (", lo, "–", hi, ")");
}

}  // namespace

// The counters a spec names, one table each: the median over repetitions,
// and the range when the repetitions differ. A counter that is a time gets
// one unit for its column, the one that suits its values.
std::string CounterTables(const ResultsFile& f, const ReportSpec& spec) {
  std::string out;
  for (CounterTableSpec t : spec.counters) {
    std::vector<const Series*> selected;
    for (const Series& s : f.series) {
      if (s.measured() && Selects(t.rows, s.parsed)) selected.push_back(&s);
    }
    if (!t.prefix.empty()) {
      std::set<std::string> more;
      for (const Series* s : selected) {
        for (const auto& [name, values] : s->counters) {
          if (absl::StartsWith(name, t.prefix)) more.insert(name);
        }
      }
      for (const std::string& name : t.names) more.erase(name);
      t.names.insert(t.names.end(), more.begin(), more.end());
    }
    // A row with none of the table's counters (not traced, say) is left out.
    selected.erase(std::remove_if(selected.begin(), selected.end(),
                                  [&](const Series* s) {
                                    return std::none_of(t.names.begin(), t.names.end(),
                                                        [&](const std::string& n) {
                                                          return s->counters.count(n) > 0;
                                                        });
                                  }),
                   selected.end());
    if (selected.empty() || t.names.empty()) continue;
    std::vector<std::optional<TimeUnit>> units;
    for (const std::string& name : t.names) {
      const double scale = CounterTimeScale(name);
      std::vector<double> medians;
      for (const Series* s : selected) {
        std::vector<double> v = s->Samples(absl::StrCat("counter:", name));
        if (!v.empty()) medians.push_back(Median(v) * scale);
      }
      units.push_back(scale > 0 && !medians.empty() ? std::optional(UnitFor(medians))
                                                    : std::nullopt);
    }
    std::string rows;
    for (const Series* s : selected) {
      absl::StrAppend(&rows, "| `", s->name, "` |");
      for (size_t i = 0; i < t.names.size(); ++i) {
        std::vector<double> v = s->Samples(absl::StrCat("counter:", t.names[i]));
        if (v.empty()) {
          absl::StrAppend(&rows, " — |");
          continue;
        }
        if (units[i]) {
          const double scale = CounterTimeScale(t.names[i]);
          const TimeUnit unit = *units[i];
          absl::StrAppend(&rows, " ",
                          CounterCell(v, [&](double x, bool) { return InUnit(x * scale, unit); }),
                          " |");
        } else {
          absl::StrAppend(&rows, " ",
                          CounterCell(v, [](double x, bool sig) { return Figure(x, sig); }), " |");
        }
      }
      absl::StrAppend(&rows, "\n");
    }
    // Say how to read a time only where a column is one: most tables count.
    const bool any_time = std::any_of(
        units.begin(), units.end(), [](const std::optional<TimeUnit>& u) { return u.has_value(); });
    absl::StrAppend(&out, "### ", t.title,
                    "\n\nMedian over the repetitions (range where they differ)",
                    any_time ? "; a time in the unit its column names" : "", ".\n\n| row |");
    std::string rule = "|---|";
    for (size_t i = 0; i < t.names.size(); ++i) {
      absl::string_view header = t.names[i];
      absl::ConsumePrefix(&header, t.prefix);
      absl::StrAppend(&out, " `", header, "`",
                      units[i] ? absl::StrCat(" (", units[i]->name, ")") : "", " |");
      absl::StrAppend(&rule, "---:|");
    }
    absl::StrAppend(&out, "\n", rule, "\n", rows, "\n");
  }
  return out;
}

}  // namespace analysis
}  // namespace spawnlab
