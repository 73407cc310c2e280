// report_index.cc: the index page: experiments, the feature matrix and the reproducibility summary.

#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "analysis/compare.h"
#include "analysis/report_sections.h"
#include "results_model/context_keys.h"
#include "results_model/headline.h"

namespace spawnlab {
namespace analysis {

namespace {

// Each kernel feature the probes tried (context `probe.NAME`, and the release
// that added it, `probe.NAME.since`), against each kernel and host (as its
// latest run found them): the matrix a new kernel release is checked against.
std::string FeatureMatrix(const std::vector<const ResultsFile*>& files) {
  std::vector<std::pair<std::string, std::string>> machines;  // kernel, host
  std::map<std::pair<std::string, std::string>, const ResultsFile*> latest;
  std::map<std::string, std::string> since;  // feature -> release
  for (const ResultsFile* f : files) {
    const std::pair<std::string, std::string> m{f->kernel(), f->host()};
    bool has_probes = false;
    for (const auto& [key, value] : f->context) {
      if (!absl::StartsWith(key, "probe.")) continue;
      has_probes = true;
      std::string name = key.substr(6);
      if (absl::EndsWith(name, ".since")) {
        since[name.substr(0, name.size() - 6)] = value;
      } else {
        since.emplace(name, "");
      }
    }
    if (!has_probes) continue;
    // The latest run speaks for the machine (a probe may have been fixed
    // since an older file); a file without run.end counts as the oldest.
    auto end = [](const ResultsFile& r) {
      auto it = r.context.find("run.end");
      return it == r.context.end() ? std::string() : it->second;
    };
    if (!latest.count(m)) {
      machines.push_back(m);
      latest[m] = f;
    } else if (end(*f) > end(*latest[m])) {
      latest[m] = f;
    }
  }
  if (since.empty()) return "";
  std::string out = absl::StrCat(
      "\n## Kernel features\n\nWhat the probes (`lib/probes.h`) found, by trying each feature: ",
      "*yes*, or *no* with the reason. A row measured with a missing feature is skipped, ",
      "not failed.\n\n| feature | added in |");
  std::string rule = "|---|---|";
  for (const auto& [kernel, host] : machines) {
    absl::StrAppend(&out, " ", Cell(kernel), " on ", Cell(host), " |");
    absl::StrAppend(&rule, "---|");
  }
  absl::StrAppend(&out, "\n", rule, "\n");
  for (const auto& [name, release] : since) {
    absl::StrAppend(&out, "| `", Cell(name), "` | ", release.empty() ? "—" : Cell(release), " |");
    for (const auto& m : machines) {
      auto it = latest[m]->context.find("probe." + name);
      absl::StrAppend(&out, " ",
                      it == latest[m]->context.end() ? "not probed"
                      : it->second == "ok"           ? "yes"
                                                     : absl::StrCat("no: ", Cell(it->second)),
                      " |");
    }
    absl::StrAppend(&out, "\n");
  }
  return out;
}

// Each full run with a rerun right after it: how far the two agree.
std::string ReproducibilityIndex(const std::vector<const ResultsFile*>& files,
                                 const std::vector<ResultsFile>& reruns) {
  std::string rows;
  auto pct = [](double x) {
    return std::isnan(x) ? std::string("—") : absl::StrFormat("%.1f%%", x * 100);
  };
  for (const ResultsFile* f : files) {
    if (f->quick() || f->uml()) continue;
    std::string why;
    const ResultsFile* rerun = RerunOf(*f, reruns, &why);
    if (rerun == nullptr) continue;
    std::optional<Reproducibility> r = ReproducibilityOf(*f, *rerun);
    if (!r.has_value()) continue;
    const bool by_canary = r->canary_rows_tested > 0;
    absl::StrAppend(
        &rows, "| [", Cell(f->experiment()), "](", Cell(f->experiment()), ".md) | ",
        Cell(f->kernel()), " | ", r->ratios > 0 ? pct(r->median_ratio_change) : "—", " | ",
        r->ratios > 0 ? absl::StrCat(r->ratios_over_10pct, " of ", r->ratios) : "—", " | ",
        by_canary ? absl::StrCat(r->canary_rows_different, " of ", r->canary_rows_tested) : "—",
        " | ",
        by_canary ? absl::StrCat(r->canary_rows_below_p05, " of ", r->canary_rows_tested)
                  : absl::StrCat(r->rows_below_p05, " of ", r->rows_tested),
        " | ", r->rows_different, " of ", r->rows_tested, " | ", r->noisy ? "yes" : "no", " | ",
        r->meets_targets ? "yes" : "**no**", " |\n");
  }
  if (rows.empty()) return "";
  return absl::StrCat(
      "\n## Reproducibility\n\nEach bench run twice, back to back, at the same revision ",
      "(`bazel run //:suite -- --self_check --keep_self_check`): the committed run and its ",
      "`.rerun.json`. Targets: the key ratios' median change at most 2%, none moving more than ",
      "10% unless a run is marked noisy, and at most 5% of the rows called different by the U ",
      "test at a 5% false discovery rate (each row's p adjusted for the rows tested, ",
      "Benjamini-Hochberg), judged over the canary where the bench has one (raw times move with ",
      "the machine). *p < 0.05 alone*: the rows compare.py would mark, for scale (chance alone ",
      "gives about 1 in 20).",
      "\n\n| experiment | kernel | key ratios: median change (≤ 2%) | moved > 10% | rows ",
      "different, over the canary (≤ 5%) | p < 0.05 alone | rows different, raw | noisy | ",
      "within the targets |\n", "|---|---|---:|---:|---:|---:|---:|---|---|\n", rows);
}

// "preempt voluntary (dynamic), HZ 250, PTI y, config 1a2b3c4d", or why not.
std::string KernelBuild(const ResultsFile& f) {
  const std::string source = Ctx(f, "kernel.config.source");
  if (source == "—") return "not recorded";
  if (absl::StartsWith(source, "none")) return "no configuration exposed";
  return absl::StrCat("preempt ", Ctx(f, "kernel.config.preempt"), ", HZ ",
                      Ctx(f, "kernel.config.hz"), ", PTI ", Ctx(f, "kernel.config.pti"),
                      ", config ", Ctx(f, "kernel.config.fnv64").substr(0, 8));
}

// How long a run took, measuring: "59 s (full)"; "—" where the run did not
// record it. A default run measures fewer rows than a full one.
std::string Took(const ResultsFile& f) {
  const std::string seconds = Ctx(f, "run.seconds");
  if (seconds == "—") return "—";
  const std::string kind = Ctx(f, spawnlab::keys::kRunKind);
  return absl::StrCat(seconds, " s", kind == "—" ? "" : absl::StrCat(" (", kind, ")"));
}

// A run's answer in a few ratios: its headline's first four, else its first
// key ratios; "—" where it has neither.
std::string AnswerRatios(const ResultsFile& f, const ReportSpec& spec) {
  std::vector<std::string> shown;
  absl::StatusOr<Headline> h = HeadlineOf(f, spec.headline);
  if (h.ok()) {
    const HeadlineTable t = ComputeHeadline(f, *h);
    for (const auto& [heading, ratios] : t.ratios) {
      for (const LabelledRatio& r : ratios) {
        if (shown.size() < 4) {
          shown.push_back(absl::StrFormat("%s %.2fx", Cell(r.label), r.ratio.median));
        }
      }
    }
  }
  if (!shown.empty()) return absl::StrJoin(shown, "; ");
  for (const KeyRatioSpec& k : spec.key_ratios) {
    const KeyRatioValue v = ComputeKeyRatio(f, k);
    if (v.measured()) shown.push_back(absl::StrFormat("%s: %.2fx", Cell(k.what), v.judged));
    if (shown.size() >= 3) break;
  }
  return shown.empty() ? "—" : absl::StrJoin(shown, "; ");
}

}  // namespace

std::string GlanceTable(const std::vector<const ResultsFile*>& files,
                        const std::map<std::string, ReportSpec>& specs,
                        const std::string& reports_prefix, const std::string& repo_prefix) {
  std::map<std::string, std::vector<const ResultsFile*>> by_experiment;
  for (const ResultsFile* f : files) by_experiment[f->experiment()].push_back(f);
  std::string out =
      "| experiment | the question | the answer's ratios | findings from | run it | its newest "
      "run took |\n"
      "|---|---|---|---|---|---:|\n";
  for (const auto& [experiment, group] : by_experiment) {
    const ResultsFile* f = FindingsRun(group);
    if (f == nullptr) continue;
    auto spec = specs.find(experiment);
    const ReportSpec none;
    const ReportSpec& s = spec == specs.end() ? none : spec->second;
    // Results with no spec and no headline (a cross-check's) answer nothing
    // by themselves: their bench's page shows them.
    if (spec == specs.end() && !HeadlineOf(*f, s.headline).ok()) continue;
    const std::string name = Cell(experiment);
    absl::StrAppend(
        &out, "| [", name, "](", reports_prefix, name, ".md) | ",
        s.question.empty() ? "—"
                           : absl::StrCat("[", Cell(s.question), "](", repo_prefix, "experiments/",
                                          name, "/README.md)"),
        " | ", AnswerRatios(*f, s), " | ", RunLine(*f), " | ",
        spec == specs.end() ? "—" : absl::StrCat("`bazel run //experiments/", name, ":bench`"),
        " | ", Took(*NewestWidestRun(group)), " |\n");
  }
  return out;
}

namespace {

// Each experiment on one line: its question, its answer in a few ratios and
// the run they come from.
std::string AtAGlance(const std::vector<const ResultsFile*>& files,
                      const std::map<std::string, ReportSpec>& specs) {
  return absl::StrCat(
      "## At a glance\n\nEach experiment's findings come from the run that speaks best (",
      kFindingsRule,
      "); its page has them in full. The "
      "ratios are its headline's (each row over the baseline named, paired within rounds), "
      "or, where it declares none, its first key ratios.\n\n",
      GlanceTable(files, specs, "", "../"), "\n");
}

}  // namespace

std::string Index(const std::vector<const ResultsFile*>& files, const ResultsSet& set,
                  const std::map<std::string, ReportSpec>& specs,
                  const std::map<std::string, int>& verdict_counts) {
  std::string out = absl::StrCat(
      kGeneratedMarker, "\n\n# spawnlab reports\n\n",
      "Generated from the results files under `results/`. The claims ledger is in ",
      "[claims.md](claims.md).\n\n", AtAGlance(files, specs), "## Machines and kernels\n\n",
      "*kernel build*: what tells two builds of one release apart, from its configuration "
      "(`bench/kernel_config.h`): the preemption model, the timer frequency, page-table "
      "isolation compiled in, and a hash of the whole configuration.\n\n",
      "| kernel | kernel build | host | CPU | CPUs | virtualization | THP | ASLR | glibc | "
      "compiler | revisions |\n",
      "|---|---|---|---|---:|---|---|---|---|---|---|\n");
  // One row per kernel and host, with every git revision its results came from.
  std::map<std::pair<std::string, std::string>, std::pair<std::string, std::set<std::string>>,
           KernelHostLess>
      machines;
  for (const ResultsFile* f : files) {
    if (Ctx(*f, "cpu.model") == "—") continue;
    auto& m = machines[{f->kernel(), f->host()}];
    if (m.first.empty()) {
      m.first =
          absl::StrCat("| ", Cell(f->kernel()), " | ", KernelBuild(*f), " | ", Cell(f->host()),
                       " | ", Ctx(*f, "cpu.model"), " | ", Ctx(*f, "cpu.online"), " | ",
                       Ctx(*f, "virtualization"), " | ", Ctx(*f, "thp.enabled"), " | ",
                       Ctx(*f, "aslr"), " | ", Ctx(*f, "glibc"), " | ", Ctx(*f, "compiler"), " | ");
    }
    m.second.insert(ShortRevision(*f));
  }
  for (const auto& [key, m] : machines) {
    absl::StrAppend(&out, m.first, absl::StrJoin(m.second, ", "), " |\n");
  }
  absl::StrAppend(&out, FeatureMatrix(files));
  absl::StrAppend(&out, ReproducibilityIndex(files, set.reruns));
  absl::StrAppend(&out, "\n## Experiments\n\n",
                  "| experiment | kernel | host | run | started | ended | noisy | rows | measured "
                  "| skipped | failed | report |\n",
                  "|---|---|---|---|---|---|---|---:|---:|---:|---:|---|\n");
  std::string skipped;
  for (const ResultsFile* f : files) {
    int measured = 0, skip = 0, failed = 0;
    for (const Series& s : f->series) {
      if (s.measured()) ++measured;
      if (!s.skipped.empty()) {
        ++skip;
        absl::StrAppend(&skipped, "| ", Cell(f->experiment()), " | ", Cell(f->kernel()), " | `",
                        s.name, "` | ", Cell(s.skipped), " |\n");
      }
      if (!s.error.empty()) ++failed;
    }
    absl::StrAppend(&out, "| ", Cell(f->experiment()), " | ", Cell(f->kernel()), " | ",
                    Cell(f->host()), " | ", f->quick() ? "quick" : "full", " | ",
                    Ctx(*f, "run.start"), " | ", Ctx(*f, "run.end"), " | ", Cell(NoisyMark(*f)),
                    " | ", f->series.size(), " | ", measured, " | ", skip, " | ", failed, " | [",
                    Cell(f->experiment()), ".md](", Cell(f->experiment()), ".md) |\n");
  }
  absl::StrAppend(&out, "\n## Skipped rows\n\n");
  if (skipped.empty()) {
    absl::StrAppend(&out, "None: every row ran on every kernel here.\n");
  } else {
    absl::StrAppend(&out, "| experiment | kernel | row | why |\n|---|---|---|---|\n", skipped);
  }
  if (!set.errors.empty()) {
    absl::StrAppend(&out, "\n## Files that could not be read\n\n");
    for (const absl::Status& e : set.errors) {
      absl::StrAppend(&out, "- ", Cell(e.message()), "\n");
    }
  }
  absl::StrAppend(&out, "\n## Claims\n\nThe ledger's conclusions ([claims.md](claims.md)), ",
                  "counted by claim part.\n\n| conclusion | parts |\n|---|---:|\n");
  for (const auto& [word, n] : verdict_counts) {
    absl::StrAppend(&out, "| ", word, " | ", n, " |\n");
  }
  return out;
}

}  // namespace analysis
}  // namespace spawnlab
