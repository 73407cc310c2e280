// report_reproducibility.cc: the reproducibility section: a run against its rerun (compare.h:
// CheckReproducibility).

#include "analysis/report_sections.h"

#include <cmath>
#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "analysis/compare.h"

namespace spawnlab {
namespace analysis {

// The rerun of `f` (`<stem>.rerun.json` beside it) if it is the same bench run
// again right after f, at the same clean revision; else null, with the reason
// in *why (empty when there is no rerun at all).
const ResultsFile* RerunOf(const ResultsFile& f, const std::vector<ResultsFile>& reruns,
                           std::string* why) {
  why->clear();
  if (!absl::EndsWith(f.path, ".json")) return nullptr;
  const std::string want = absl::StrCat(f.path.substr(0, f.path.size() - 5), ".rerun.json");
  for (const ResultsFile& r : reruns) {
    if (r.path != want) continue;
    auto ctx = [](const ResultsFile& x, const char* key) {
      auto it = x.context.find(key);
      return it == x.context.end() ? std::string() : it->second;
    };
    absl::Time end, start;
    std::string err;
    if (ctx(f, "git.revision").empty() || ctx(f, "git.revision") != ctx(r, "git.revision") ||
        ctx(f, "git.tree") != "clean" || ctx(r, "git.tree") != "clean") {
      *why = absl::StrCat("`", r.path, "` is not from the same clean revision: not compared");
      return nullptr;
    }
    if (!absl::ParseTime(absl::RFC3339_full, ctx(f, "run.end"), &end, &err) ||
        !absl::ParseTime(absl::RFC3339_full, ctx(r, "run.start"), &start, &err) || start < end ||
        start - end > absl::Minutes(30)) {
      *why = absl::StrCat("`", r.path, "` was not run right after this run: not compared");
      return nullptr;
    }
    return &r;
  }
  return nullptr;
}

std::optional<double> RerunMove(
    const ResultsFile& older, const std::vector<ResultsFile>& reruns,
    const std::function<std::optional<double>(const ResultsFile&)>& quantity) {
  std::string why;
  const ResultsFile* rerun = RerunOf(older, reruns, &why);
  if (rerun == nullptr) return std::nullopt;
  const std::optional<double> before = quantity(older), again = quantity(*rerun);
  if (!before || !again || !(*before > 0) || !(*again > 0)) return std::nullopt;
  return std::fabs(std::log(*again / *before));
}

bool BothQuiet(const ResultsFile& a, const ResultsFile& b) {
  return NoisyMark(a) != "**noisy**" && NoisyMark(b) != "**noisy**";
}

std::optional<Reproducibility> ReproducibilityOf(const ResultsFile& f, const ResultsFile& rerun) {
  return CheckReproducibility(f, rerun);
}

std::string ReproducibilitySection(const ResultsFile& f, const std::vector<ResultsFile>& reruns) {
  std::string why;
  const ResultsFile* rerun = RerunOf(f, reruns, &why);
  if (rerun == nullptr) {
    return why.empty() ? "" : absl::StrCat("### Reproducibility\n\n", why, ".\n\n");
  }
  std::optional<Reproducibility> r = ReproducibilityOf(f, *rerun);
  if (!r.has_value()) return "";
  return absl::StrCat(
      "### Reproducibility\n\nThe same bench, run again right after this run (`", rerun->path,
      "`), against the targets of `bazel run //analysis:compare -- --self_check`: key ratios "
      "paired within a round, and each row's repetitions over the run's canary, which the "
      "machine's drift between the two runs does not move.\n\n",
      r->table, "\n");
}

}  // namespace analysis
}  // namespace spawnlab
