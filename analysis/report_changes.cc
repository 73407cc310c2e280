// report_changes.cc: what changed between two kernels (or two hosts): the
// page `bazel run //:suite -- --against=KERNEL[/HOST]` writes (report.h:
// ChangesPage).

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "analysis/report.h"
#include "analysis/report_sections.h"
#include "results_model/headline.h"
#include "results_model/stats.h"

namespace spawnlab {
namespace analysis {
namespace {

bool Selected(const ResultsFile& f, const RunSelector& s) {
  return !f.uml() && !f.quick() && f.kernel() == s.kernel && (s.host.empty() || f.host() == s.host);
}

std::string Name(const RunSelector& s) {
  return s.host.empty() ? s.kernel : absl::StrCat(s.kernel, " on ", s.host);
}

// Each side's runs by experiment.
std::map<std::string, std::vector<const ResultsFile*>> ByExperiment(
    const std::vector<const ResultsFile*>& files, const RunSelector& s) {
  std::map<std::string, std::vector<const ResultsFile*>> out;
  for (const ResultsFile* f : files) {
    if (Selected(*f, s)) out[f->experiment()].push_back(f);
  }
  return out;
}

// The probes (what the kernel had), over every run of one side.
std::map<std::string, std::string> Probes(
    const std::map<std::string, std::vector<const ResultsFile*>>& side) {
  std::map<std::string, std::string> out;
  for (const auto& [experiment, files] : side) {
    for (const ResultsFile* f : files) {
      for (const auto& [key, value] : f->context) {
        if (absl::StartsWith(key, "probe.") && !absl::EndsWith(key, ".since")) {
          out.emplace(key.substr(6), value == "ok" ? "yes" : absl::StrCat("no: ", value));
        }
      }
    }
  }
  return out;
}

std::string FeatureDiff(const std::map<std::string, std::string>& before,
                        const std::map<std::string, std::string>& after) {
  std::set<std::string> names;
  for (const auto& [n, v] : before) names.insert(n);
  for (const auto& [n, v] : after) names.insert(n);
  std::string rows;
  int same = 0;
  for (const std::string& n : names) {
    auto b = before.find(n), a = after.find(n);
    const std::string old_value = b == before.end() ? "not probed" : b->second;
    const std::string new_value = a == after.end() ? "not probed" : a->second;
    if (old_value == new_value) {
      ++same;
      continue;
    }
    absl::StrAppend(&rows, "| `", n, "` | ", Cell(old_value), " | ", Cell(new_value), " |\n");
  }
  if (rows.empty()) return absl::StrCat("No feature changed (", same, " probed on both).\n\n");
  return absl::StrCat("| feature | before | after |\n|---|---|---|\n", rows, "\n", same,
                      " more probed the same on both.\n\n");
}

// One key ratio's change: (|log change|, its table row).
struct KeyRatioMove {
  double size;
  std::string row;
};

// One ratio's move: numerator over denominator row in each run, paired
// within rounds; nothing where a side lacks a row. The change's interval is
// over the processes' paired medians where both runs were made of several
// processes, else over the rounds' ratios (marked †); it is called (bold)
// where neither run is noisy, the interval excludes 1, and the ratio moved
// further than it did between the older run and its rerun, where there is one.
std::optional<KeyRatioMove> Move(const std::string& experiment, const std::string& what,
                                 const ResultsFile& before, const ResultsFile& after,
                                 const std::vector<ResultsFile>& reruns,
                                 const std::string& numerator, const std::string& denominator) {
  const Series *bn = before.Find(numerator), *bd = before.Find(denominator);
  const Series *an = after.Find(numerator), *ad = after.Find(denominator);
  if (bn == nullptr || bd == nullptr || an == nullptr || ad == nullptr || !bn->measured() ||
      !bd->measured() || !an->measured() || !ad->measured()) {
    return std::nullopt;
  }
  const std::vector<double> rb = RoundRatios(bn->samples_ns, bd->samples_ns);
  const std::vector<double> ra = RoundRatios(an->samples_ns, ad->samples_ns);
  if (rb.size() < 2 || ra.size() < 2) return std::nullopt;
  const std::vector<double> pb = ProcessRatioMedians(*bn, *bd), pa = ProcessRatioMedians(*an, *ad);
  const bool processes = pb.size() >= 2 && pa.size() >= 2;
  const Interval r = processes ? RatioInterval(pa, pb) : RatioInterval(ra, rb);
  // How far the same ratio moved between the older run and its rerun.
  const std::optional<double> moved =
      RerunMove(before, reruns, [&](const ResultsFile& f) -> std::optional<double> {
        const Series *n = f.Find(numerator), *d = f.Find(denominator);
        if (n == nullptr || d == nullptr || !n->measured() || !d->measured()) return std::nullopt;
        const std::vector<double> ratios = RoundRatios(n->samples_ns, d->samples_ns);
        if (ratios.empty()) return std::nullopt;
        return Median(ratios);
      });
  const double rerun_move = moved.value_or(0);
  const std::string rerun_cell =
      moved ? absl::StrFormat("%.1f%%", 100 * (std::exp(rerun_move) - 1)) : "no rerun";
  const bool quiet = BothQuiet(before, after);
  std::string change =
      absl::StrFormat("%.3fx [%.3f, %.3f]%s", r.estimate, r.low, r.high, processes ? "" : " †");
  if (quiet && (r.low > 1 || r.high < 1) && std::fabs(std::log(r.estimate)) > rerun_move) {
    change = absl::StrCat("**", change, "**");
  }
  const std::string revisions =
      ShortRevision(before) == ShortRevision(after)
          ? ShortRevision(after)
          : absl::StrCat(ShortRevision(before), " → ", ShortRevision(after));
  return KeyRatioMove{
      std::fabs(std::log(r.estimate)),
      absl::StrCat("| ", Cell(experiment), " | ", Cell(revisions), " | ", Cell(what), " | ",
                   absl::StrFormat("%.3f", Median(rb)), " | ", absl::StrFormat("%.3f", Median(ra)),
                   " | ", change, " | ", rerun_cell, " |\n")};
}

// The moves of an experiment's key ratios and of its headline's ratios.
std::vector<KeyRatioMove> KeyRatioChanges(const std::string& experiment, const ReportSpec& spec,
                                          const ResultsFile& before, const ResultsFile& after,
                                          const std::vector<ResultsFile>& reruns) {
  std::vector<KeyRatioMove> out;
  for (const KeyRatioSpec& k : spec.key_ratios) {
    // The denominator the newer run judges by (the fastest of those named).
    const KeyRatioValue a = ComputeKeyRatio(after, k);
    if (!a.measured()) continue;
    std::optional<KeyRatioMove> m =
        Move(experiment, k.what, before, after, reruns, k.numerator, a.denominator->name);
    if (m) out.push_back(*std::move(m));
  }
  absl::StatusOr<Headline> h = HeadlineOf(after, spec.headline);
  if (!h.ok()) return out;
  for (const auto& [heading, ratios] : ComputeHeadline(after, *h).ratios) {
    for (const LabelledRatio& r : ratios) {
      std::optional<KeyRatioMove> m =
          Move(experiment, r.label, before, after, reruns, r.ratio.row, r.ratio.baseline);
      if (m) out.push_back(*std::move(m));
    }
  }
  return out;
}

// The ledger's verdicts that differ between the two sides.
std::string VerdictsMoved(const std::vector<Claim>& claims, const std::vector<ResultsFile>& all,
                          const RunSelector& before, const RunSelector& after) {
  std::string rows;
  for (const Claim& c : claims) {
    std::string b, a;
    for (const Verdict& v : Evaluate(c, all)) {
      auto is = [&v](const RunSelector& s) {
        return v.machine_kernel == s.kernel && (s.host.empty() || v.machine_host == s.host);
      };
      if (is(before) && b.empty()) b = v.word;
      if (is(after) && a.empty()) a = v.word;
    }
    if (b.empty() || a.empty() || a == b) continue;
    absl::StrAppend(&rows, "| ", Cell(c.id),
                    c.part.empty() ? "" : absl::StrCat(" (", Cell(c.part), ")"), " | ", b, " | ", a,
                    " |\n");
  }
  if (rows.empty()) return "No verdict moved.\n\n";
  return absl::StrCat("| claim | before | after |\n|---|---|---|\n", rows, "\n");
}

// Rows one side measured and the other skipped: where a new interface
// arrived (or one went away), and which rows now test it.
std::string RowsThatAppeared(const std::map<std::string, std::vector<const ResultsFile*>>& before,
                             const std::map<std::string, std::vector<const ResultsFile*>>& after) {
  std::string rows;
  for (const auto& [experiment, files] : after) {
    auto b = before.find(experiment);
    if (b == before.end()) continue;
    const ResultsFile& old = *FindingsRun(b->second);
    const ResultsFile& now = *FindingsRun(files);
    for (const Series& s : now.series) {
      const Series* o = old.Find(s.name);
      if (o == nullptr) continue;
      if (s.measured() && !o->measured()) {
        absl::StrAppend(&rows, "| `", s.name, "` | skipped: ", Cell(o->skipped), " | measured |\n");
      } else if (!s.measured() && o->measured()) {
        absl::StrAppend(&rows, "| `", s.name, "` | measured | skipped: ", Cell(s.skipped), " |\n");
      }
    }
  }
  if (rows.empty()) return "None: every row ran, or was skipped, on both.\n\n";
  return absl::StrCat("| row | before | after |\n|---|---|---|\n", rows, "\n");
}

}  // namespace

absl::StatusOr<RunSelector> ParseRunSelector(absl::string_view text) {
  std::vector<std::string> parts = absl::StrSplit(text, absl::MaxSplits('/', 1));
  if (parts.empty() || parts[0].empty() || (parts.size() == 2 && parts[1].empty())) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", text, "' is not KERNEL or KERNEL/HOST (e.g. 6.18.44-fc-v782)"));
  }
  return RunSelector{parts[0], parts.size() == 2 ? parts[1] : ""};
}

std::string ChangesPageName(const RunSelector& before, const RunSelector& after) {
  auto slug = [](const RunSelector& s) {
    return s.host.empty() ? s.kernel : absl::StrCat(s.kernel, "-", s.host);
  };
  return absl::StrCat("changes/", slug(before), "-to-", slug(after), ".md");
}

absl::StatusOr<std::string> ChangesPage(const ResultsSet& set, const std::vector<Claim>& claims,
                                        const std::map<std::string, ReportSpec>& specs,
                                        const RunSelector& before, const RunSelector& after) {
  const std::vector<const ResultsFile*> files = Sorted(set);
  const auto b = ByExperiment(files, before), a = ByExperiment(files, after);
  if (b.empty()) return absl::NotFoundError(absl::StrCat("no full run of ", Name(before)));
  if (a.empty()) return absl::NotFoundError(absl::StrCat("no full run of ", Name(after)));
  // Like for like: exactly one of kernel and host differs.
  const std::string host_b = b.begin()->second.front()->host();
  const std::string host_a = a.begin()->second.front()->host();
  const bool kernel_differs = before.kernel != after.kernel, host_differs = host_b != host_a;
  const bool comparable = kernel_differs != host_differs;
  std::string out = absl::StrCat(
      kGeneratedMarker, "\n\n# ", Cell(Name(before)), " to ", Cell(Name(after)), "\n\n",
      "From each experiment's best run on each side (", kFindingsRule, "). Before: **",
      Cell(before.kernel), " on ", Cell(host_b), "**; after: **", Cell(after.kernel), " on ",
      Cell(host_a), "**. ",
      comparable ? (kernel_differs ? "The host is the same: what changed is the kernel.\n\n"
                                   : "The kernel is the same: what changed is the host.\n\n")
                 : "**Not comparable**: kernel and host both differ (or neither does), so no "
                   "change below is called; the figures stand side by side.\n\n",
      "## Features\n\nWhat the probes found (`lib/probes.h`), where the two differ.\n\n",
      FeatureDiff(Probes(b), Probes(a)));
  std::vector<KeyRatioMove> changes;
  for (const auto& [experiment, after_runs] : a) {
    auto spec = specs.find(experiment);
    auto before_runs = b.find(experiment);
    if (spec == specs.end() || before_runs == b.end()) continue;
    for (KeyRatioMove& c :
         KeyRatioChanges(experiment, spec->second, *FindingsRun(before_runs->second),
                         *FindingsRun(after_runs), set.reruns)) {
      if (!comparable) c.row = absl::StrReplaceAll(c.row, {{"**", ""}});
      changes.push_back(std::move(c));
    }
  }
  std::stable_sort(changes.begin(), changes.end(),
                   [](const KeyRatioMove& x, const KeyRatioMove& y) { return x.size > y.size; });
  absl::StrAppend(
      &out, "## Key ratios, largest change first\n\n",
      "Each key ratio and headline ratio before and after (paired within rounds, median "
      "over rounds), and its change after / before with a 95% interval (Hodges-Lehmann on "
      "the logs) over each process's paired median where both runs were made of several "
      "processes, else over the rounds' ratios (marked †). *rerun moved*: how far the same "
      "ratio moved between the older run and its rerun right after, the host's own noise. "
      "A change is **called** (bold) only where neither run is noisy, its interval excludes "
      "1, and it moved further than the rerun did (where there is one). Where the two runs "
      "come from different revisions, a change may be the code's, not the kernel's: *git* "
      "names both.\n\n",
      "| experiment | git | ratio | before | after | change | rerun moved |\n"
      "|---|---|---|---:|---:|---:|---:|\n");
  for (const KeyRatioMove& c : changes) absl::StrAppend(&out, c.row);
  if (changes.empty()) {
    absl::StrAppend(&out, "| — | | no experiment has runs on both sides | | | | |\n");
  }
  absl::StrAppend(&out, "\n## Ledger verdicts that moved\n\n",
                  VerdictsMoved(claims, set.files, before, after),
                  "## Rows that ran on one side only\n\n",
                  "A row measured after and skipped before tests an interface the newer kernel "
                  "added; an interface no row tests yet needs a row of its own (README, \"Adding "
                  "an experiment\").\n\n",
                  RowsThatAppeared(b, a));
  return out;
}

}  // namespace analysis
}  // namespace spawnlab
