// report_ledger.cc: the ledger of published claims with their computed verdicts.

#include "analysis/report_sections.h"

#include <map>
#include <set>

#include "absl/strings/str_cat.h"

namespace spawnlab {
namespace analysis {

namespace {

// Beside a measured verdict that is not `reproduced`: why the size may
// differ here, where the claim says, with this machine's own figures filled
// in (MachineFacts).
std::string SizeDiffers(const Claim& c, const Verdict& v, const std::vector<ResultsFile>& files) {
  if (c.size_differs.empty()) return "";
  if (v.word != "direction-only" && v.word != "contradicted" && v.word != "implausible" &&
      v.word != "inconclusive") {
    return "";
  }
  return absl::StrCat(". Why the size may differ: ",
                      MachineFacts(c.size_differs, v.machine_kernel, v.machine_host, files));
}

}  // namespace

std::string Ledger(const std::vector<Claim>& claims, const std::vector<ResultsFile>& files,
                   std::map<std::string, int>* counts) {
  // Measured verdicts and those by reading in two tables; counted per claim
  // part (a claim may be tested in several), with the claims counted too.
  std::string measured, reading;
  std::set<std::string> ids, read_ids;
  std::map<std::string, std::string> shown;  // measurement -> the claim that showed it
  int parts = 0;
  for (const Claim& c : claims) {
    ids.insert(c.id);
    ++parts;
    const bool by_reading = c.rule["kind"] == "reading";
    if (by_reading) read_ids.insert(c.id);
    for (const Verdict& v : Evaluate(c, files)) {
      ++(*counts)[v.word];
      const std::string who =
          absl::StrCat("| ", c.id, c.part.empty() ? "" : absl::StrCat(" (", c.part, ")"), " | ",
                       Cell(c.source), " | ", Cell(c.claim), " | ", Cell(c.conditions), " | ");
      if (by_reading) {
        absl::StrAppend(&reading, who, "**", v.word, "** | ", Cell(v.reason), " |\n");
        continue;
      }
      // Two claims judged on the same measurement (the same rows, statistic
      // and run) show it once; the second points at the first.
      const std::string label =
          absl::StrCat(c.id, c.part.empty() ? "" : absl::StrCat(" (", c.part, ")"));
      const std::string key = absl::StrCat(v.rows, "\n", v.measured, "\n", v.kernel);
      auto [first, fresh] = shown.emplace(key, label);
      if (!v.rows.empty() && !fresh) {
        absl::StrAppend(&measured, who, "as ", Cell(first->second), " | the same measurement as ",
                        Cell(first->second), " | **", v.word, "** | ", Cell(v.reason),
                        Cell(SizeDiffers(c, v, files)), " |\n");
        continue;
      }
      absl::StrAppend(&measured, who, v.rows.empty() ? "—" : Cell(v.rows), " | ", Cell(v.measured),
                      v.kernel.empty() ? "" : absl::StrCat(" — ", v.kernel), " | **", v.word,
                      "** | ", Cell(v.reason), Cell(SizeDiffers(c, v, files)), " |\n");
    }
  }
  std::string out = absl::StrCat(
      kGeneratedMarker, "\n\n# The claims ledger\n\n",
      "Each published claim, cited by its source's title (rules in `analysis/claims.json`), ",
      "against what was measured here. Verdicts are computed from the results by the rule each ",
      "claim names (`analysis/claims.h`): a ratio or a difference is judged by its 95% interval ",
      "(Hodges-Lehmann, from each process's median where the run was made of several ",
      "processes, else from the repetitions) against the band that would reproduce the claim. ",
      "`inconclusive`: the interval straddles the band's edge, or is wider than the claimed ",
      "effect, so this run cannot tell. `pending`: no verdict yet, for the reason given (no ",
      "experiment or full-run results, rows missing, or fewer than 5 repetitions a side). In ",
      "*rows compared*, the first row is the claim's numerator (or minuend).\n\n", ids.size(),
      " claims, tested in ", parts, " parts (", read_ids.size(),
      " of the claims have a part judged by reading, not measured, listed apart).\n\n",
      "| verdict | parts |\n|---|---:|\n");
  for (const std::string& word : VerdictWords()) {
    auto it = counts->find(word);
    if (it != counts->end()) absl::StrAppend(&out, "| ", word, " | ", it->second, " |\n");
  }
  absl::StrAppend(&out,
                  "\n## Measured\n\n| id | source | claimed | conditions | rows compared | "
                  "measured here | verdict | why |\n",
                  "|---|---|---|---|---|---|---|---|\n", measured);
  if (!reading.empty()) {
    absl::StrAppend(&out,
                    "\n## By reading, not measured\n\n| id | source | claimed | conditions | "
                    "verdict | why |\n|---|---|---|---|---|---|\n",
                    reading);
  }
  return out;
}

}  // namespace analysis
}  // namespace spawnlab
