// report_ledger.cc: the ledger of published claims: one conclusion per claim
// and per part (claims.md), and every run's verdict (claims/runs.md).

#include <map>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "analysis/report_sections.h"

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

std::string Label(const Claim& c) {
  return absl::StrCat(c.id, c.part.empty() ? "" : absl::StrCat(" (", c.part, ")"));
}

// Verdicts that decide nothing beside one that does.
bool Undecided(const std::string& word) {
  return word == "inconclusive" || word == "skipped" || word == "pending" ||
         word == "not-testable-here";
}

// One part's conclusion over its runs, and which runs it stands on.
struct Conclusion {
  std::string word;  // a verdict word, or "varies by machine"
  std::string runs;  // the runs behind it and those set aside, in a few words
};

// The clean runs (quiet, several processes) decide where there is one; else
// every measured run, said so. A decisive verdict outweighs an undecided
// one, and any verdict a pending one; decisive verdicts that differ make
// "varies by machine".
Conclusion Conclude(const std::vector<Verdict>& verdicts) {
  std::vector<const Verdict*> used, aside;
  bool any_clean = false;
  for (const Verdict& v : verdicts) any_clean = any_clean || v.clean;
  for (const Verdict& v : verdicts) (v.clean || !any_clean ? used : aside).push_back(&v);
  std::set<std::string> decisive, undecided;
  for (const Verdict* v : used) (Undecided(v->word) ? undecided : decisive).insert(v->word);
  // A run without the rows ("pending": measured before they existed) says
  // nothing beside one that measured them.
  if (undecided.size() > 1) undecided.erase("pending");
  Conclusion c;
  const std::set<std::string>& words = decisive.empty() ? undecided : decisive;
  c.word = words.size() == 1 ? *words.begin() : "varies by machine";
  // "6.18.44 on amd-epyc-2cpu-4c9150": the run, without its noise record
  // (claims/runs.md has it).
  auto run = [](const Verdict* v) {
    return absl::StrCat(v->machine_kernel, " on ", v->machine_host);
  };
  std::vector<std::string> said;
  for (const Verdict* v : used) {
    if (!v->kernel.empty()) said.push_back(absl::StrCat(run(v), ": ", v->word));
  }
  if (!said.empty()) {
    c.runs = absl::StrCat(any_clean ? "quiet runs of several processes: "
                                    : "no quiet run of several processes; from every run: ",
                          absl::StrJoin(said, "; "));
  }
  if (!aside.empty()) {
    std::vector<std::string> others;
    for (const Verdict* v : aside) {
      const bool noisy = absl::StrContains(v->kernel, "(noisy run");
      others.push_back(absl::StrCat(run(v), noisy ? " (noisy)" : " (one process)", ": ", v->word));
    }
    absl::StrAppend(&c.runs, ". Set aside: ", absl::StrJoin(others, "; "));
  }
  return c;
}

// One row of a run's verdict in claims/runs.md; two claims judged on the
// same measurement (the same rows, statistic and run) show it once, the
// second pointing at the first.
std::string RunRow(const Claim& c, const Verdict& v, const std::vector<ResultsFile>& files,
                   std::map<std::string, std::string>& shown) {
  const std::string who = absl::StrCat("| ", Label(c), " | ", Cell(c.source), " | ", Cell(c.claim),
                                       " | ", Cell(c.conditions), " | ");
  if (c.rule["kind"] == "reading") {
    return absl::StrCat(who, "**", v.word, "** | ", Cell(v.reason), " |\n");
  }
  const std::string key = absl::StrCat(v.rows, "\n", v.measured, "\n", v.kernel);
  auto [first, fresh] = shown.emplace(key, Label(c));
  if (!v.rows.empty() && !fresh) {
    return absl::StrCat(who, "as ", Cell(first->second), " | the same measurement as ",
                        Cell(first->second), " | **", v.word, "** | ", Cell(v.reason),
                        Cell(SizeDiffers(c, v, files)), " |\n");
  }
  return absl::StrCat(who, v.rows.empty() ? "—" : Cell(v.rows), " | ", Cell(v.measured),
                      v.kernel.empty() ? "" : absl::StrCat(" — ", v.kernel), " | **", v.word,
                      "** | ", Cell(v.reason), Cell(SizeDiffers(c, v, files)), " |\n");
}

// Every run's verdict of every part: the evidence behind the conclusions.
std::string RunsPage(const std::string& measured, const std::string& reading) {
  std::string out = absl::StrCat(
      kGeneratedMarker, "\n\n# The claims ledger, run by run\n\n",
      "Back to the conclusions: [claims.md](../claims.md). One verdict per claim part and ",
      "results file (a smoke run or one under User-Mode Linux is no evidence). In *rows ",
      "compared*, the first row is the claim's numerator (or minuend).\n\n",
      "## Measured\n\n| id | source | claimed | conditions | rows compared | measured here | ",
      "verdict | why |\n|---|---|---|---|---|---|---|---|\n", measured);
  if (!reading.empty()) {
    absl::StrAppend(&out,
                    "\n## By reading, not measured\n\n| id | source | claimed | conditions | "
                    "verdict | why |\n|---|---|---|---|---|---|\n",
                    reading);
  }
  return out;
}

// The counts at the top: claims and parts by conclusion, labelled as such.
std::string Counts(const std::map<std::string, int>& parts,
                   const std::map<std::string, int>& claims) {
  std::vector<std::string> words = VerdictWords();
  words.push_back("varies by machine");
  words.push_back("varies by part");
  std::string out = "| conclusion | claims | parts |\n|---|---:|---:|\n";
  for (const std::string& word : words) {
    auto p = parts.find(word);
    auto c = claims.find(word);
    if (p == parts.end() && c == claims.end()) continue;
    absl::StrAppend(&out, "| ", word, " | ", c == claims.end() ? 0 : c->second, " | ",
                    p == parts.end() ? 0 : p->second, " |\n");
  }
  return out;
}

}  // namespace

std::string Ledger(const std::vector<Claim>& claims, const std::vector<ResultsFile>& files,
                   std::map<std::string, int>* counts, std::map<std::string, std::string>* out) {
  std::string measured, reading, parts_table;
  std::map<std::string, std::string> shown;  // measurement -> the claim that showed it
  std::vector<std::string> ids;              // in the claims' order
  std::map<std::string, std::set<std::string>> claim_words;
  std::map<std::string, std::string> sources;
  for (const Claim& c : claims) {
    if (!claim_words.count(c.id)) ids.push_back(c.id);
    sources[c.id] = c.source;
    const std::vector<Verdict> verdicts = Evaluate(c, files);
    for (const Verdict& v : verdicts) {
      absl::StrAppend(c.rule["kind"] == "reading" ? &reading : &measured,
                      RunRow(c, v, files, shown));
    }
    const Conclusion conclusion = Conclude(verdicts);
    ++(*counts)[conclusion.word];
    claim_words[c.id].insert(conclusion.word);
    absl::StrAppend(&parts_table, "| ", Label(c), " | ", Cell(c.claim), " | **", conclusion.word,
                    "** | ", Cell(conclusion.runs.empty() ? verdicts[0].reason : conclusion.runs),
                    " |\n");
  }
  std::map<std::string, int> by_claim;
  std::string claims_table;
  for (const std::string& id : ids) {
    const std::set<std::string>& words = claim_words[id];
    const std::string word = words.size() == 1 ? *words.begin() : "varies by part";
    ++by_claim[word];
    absl::StrAppend(&claims_table, "| ", id, " | ", Cell(sources[id]), " | **", word, "**",
                    words.size() == 1 ? "" : absl::StrCat(": ", absl::StrJoin(words, ", ")),
                    " |\n");
  }
  (*out)["claims/runs.md"] = RunsPage(measured, reading);
  return absl::StrCat(
      kGeneratedMarker, "\n\n# The claims ledger\n\n",
      "Each published claim, cited by its source's title (rules in `analysis/claims.json`), ",
      "against what was measured here. Each run's verdict is computed by the rule the claim ",
      "names (`analysis/claims.h`): a ratio or a difference is judged by its 95% interval ",
      "against the band that would reproduce the claim. A part's **conclusion** is drawn from ",
      "the quiet runs of several processes where there is one (noisy and one-process runs are ",
      "set aside, and named); a decisive verdict outweighs an `inconclusive` one, and decisive ",
      "verdicts that differ make *varies by machine*. Every run's verdict, with its figures and ",
      "reasons: [claims/runs.md](claims/runs.md).\n\n", ids.size(), " claims, tested in ",
      claims.size(), " parts.\n\n", Counts(*counts, by_claim), "\n## Claims\n\n",
      "| id | source | conclusion |\n|---|---|---|\n", claims_table, "\n## Parts\n\n",
      "| part | claimed | conclusion | from |\n|---|---|---|---|\n", parts_table);
}

}  // namespace analysis
}  // namespace spawnlab
