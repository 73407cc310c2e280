// report_common.cc: helpers every report section shares: table cells, a run's conditions, units.

#include "analysis/report_sections.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "results_model/context_keys.h"

namespace spawnlab {
namespace analysis {

// Markdown table cells: no pipes or newlines.
std::string Cell(absl::string_view s) {
  return absl::StrReplaceAll(s, {{"|", "\\|"}, {"\n", " "}});
}

// The revision, marked when the run's checkout differed from it.
std::string ShortRevision(const ResultsFile& f) {
  auto it = f.context.find("git.revision");
  if (it == f.context.end()) return "unknown";
  auto tree = f.context.find("git.tree");
  const bool dirty = tree != f.context.end() && absl::StartsWith(tree->second, "dirty");
  return Cell(absl::StrCat(it->second.substr(0, 12), dirty ? " (dirty)" : ""));
}

// A context value, made safe for a table cell (a '|' or a newline in a CPU
// model or a process name would break the table).
std::string Ctx(const ResultsFile& f, const char* key) {
  auto it = f.context.find(key);
  return it == f.context.end() ? "—" : Cell(it->second);
}

// "noisy", "quiet" or "not recorded" (results from before the run record).
std::string NoisyMark(const ResultsFile& f) {
  const std::string n = Ctx(f, "run.noisy");
  if (n == "—") return "not recorded";
  return absl::StartsWith(n, "yes") ? "**noisy**" : "quiet";
}

// The conditions the run was measured under (bench/run_record.h).
std::string RunConditions(const ResultsFile& f) {
  if (Ctx(f, "run.start") == "—") {
    return "The run's conditions were not recorded (results from before the run record).\n\n";
  }
  std::string out = absl::StrCat(
      "| run | |\n|---|---|\n", "| window | ", Ctx(f, "run.start"), " to ", Ctx(f, "run.end"), " (",
      Ctx(f, "run.seconds"), " s) |\n", "| load average before, after | ",
      Ctx(f, "run.loadavg_before"), "; ", Ctx(f, "run.loadavg_after"), " |\n",
      "| CPU used by other processes | ", Ctx(f, "run.other_cpu_cores"), " cores |\n",
      "| busiest other processes | ", Ctx(f, "run.busiest_others"), " |\n", "| steal, iowait | ",
      Ctx(f, "run.steal_pct"), "%, ", Ctx(f, "run.iowait_pct"), "% |\n",
      "| the bench's involuntary context switches | ", Ctx(f, "run.involuntary_switches"), " |\n",
      "| bench lock | ", Ctx(f, "run.lock"), " |\n");
  if (Ctx(f, spawnlab::keys::kStoppingRule) != "—") {
    absl::StrAppend(&out, "| processes | ", Ctx(f, spawnlab::keys::kProcesses), "; ",
                    Ctx(f, spawnlab::keys::kStoppingRule), " |\n");
  }
  if (Ctx(f, spawnlab::keys::kStoppedBy) != "—") {
    const std::string budget = Ctx(f, spawnlab::keys::kStoppingFixedBudgetRows);
    absl::StrAppend(
        &out, "| stopped by | ", Ctx(f, spawnlab::keys::kStoppedBy),
        "; widest key ratio interval: ", Ctx(f, spawnlab::keys::kStoppingWorst),
        budget != "—" && budget != "0"
            ? absl::StrCat("; ", budget, " rows in no key ratio had the fewest processes")
            : "",
        " |\n");
  }
  if (Ctx(f, spawnlab::keys::kCanaryRow) != "—") {
    const std::string drift = Ctx(f, spawnlab::keys::kCanaryDriftPct);
    absl::StrAppend(
        &out, "| drift canary | `", Ctx(f, spawnlab::keys::kCanaryRow), "` ",
        absl::StartsWith(drift, "unknown")
            ? drift
            : absl::StrCat("moved ", drift, "% (last half against first half of ", "its rounds)"),
        " |\n");
    const std::string spread = Ctx(f, spawnlab::keys::kCanarySpreadPct);
    if (spread != "—" && !absl::StartsWith(spread, "unknown")) {
      absl::StrAppend(&out, "| canary spread | its slowest quarter of rounds ", spread,
                      "% above its fastest |\n");
    }
  }
  absl::StrAppend(&out, "| noisy | ", Ctx(f, "run.noisy"),
                  " (thresholds: README, \"Noisy runs\") |\n\n");
  return out;
}

std::string Percent(double x) {
  return std::isnan(x) ? "n/a" : absl::StrFormat("%.1f%%", x * 100);
}

// Files ordered by experiment, kernel (in release order), host, path: the
// order of every listing.
std::vector<const ResultsFile*> Sorted(const ResultsSet& set) {
  std::vector<const ResultsFile*> files;
  for (const ResultsFile& f : set.files) files.push_back(&f);
  std::sort(files.begin(), files.end(), [](const ResultsFile* a, const ResultsFile* b) {
    if (a->experiment() != b->experiment()) return a->experiment() < b->experiment();
    if (a->kernel() != b->kernel()) return NaturalLess(a->kernel(), b->kernel());
    if (a->host() != b->host()) return NaturalLess(a->host(), b->host());
    return NaturalLess(a->path, b->path);
  });
  return files;
}

// One unit for a whole table, so that its column reads by eye: the one that
// suits the median of its values (ns, µs, ms or s).
TimeUnit UnitFor(std::vector<double> ns) {
  if (ns.empty()) return {"µs", 1e3};
  std::sort(ns.begin(), ns.end());
  const double typical = ns[ns.size() / 2];
  if (typical >= 1e9) return {"s", 1e9};
  if (typical >= 1e6) return {"ms", 1e6};
  if (typical >= 1e3) return {"µs", 1e3};
  return {"ns", 1};
}

// `ns` in `unit` to three significant figures, without an exponent:
// 1234567 ns in ms is "1.23", 2.12 ns in µs "0.00212".
std::string InUnit(double ns, TimeUnit unit) { return ThreeFigures(ns / unit.ns); }

bool CrossCheckAgrees(double bench_ratio, double crosscheck_ratio, double tolerance) {
  return std::fabs(bench_ratio / crosscheck_ratio - 1) <= tolerance;
}

}  // namespace analysis
}  // namespace spawnlab
