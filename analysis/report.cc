// report.cc: see report.h.

#include "analysis/report.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "analysis/report_sections.h"

namespace spawnlab {
namespace analysis {

std::map<std::string, std::string> BuildReports(const ResultsSet& results,
                                                const std::vector<Claim>& claims,
                                                const std::map<std::string, ReportSpec>& specs) {
  std::map<std::string, std::string> out;
  const std::vector<const ResultsFile*> files = Sorted(results);
  std::map<std::string, int> counts;
  out["claims.md"] = Ledger(claims, results.files, &counts, &out);
  out["README.md"] = Index(files, results, specs, counts);
  std::map<std::string, std::vector<const ResultsFile*>> by_experiment;
  for (const ResultsFile* f : files) {
    // The name becomes a file name: keep it to [a-z0-9_-].
    std::string name = f->experiment();
    bool safe = !name.empty() && name.size() <= 64;
    for (char ch : name) {
      safe =
          safe && ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '-');
    }
    by_experiment[safe && name != "README" && name != "claims" ? name : "unnamed"].push_back(f);
  }
  for (const auto& [experiment, group] : by_experiment) {
    auto spec = specs.find(experiment);
    ExperimentPages(experiment, spec == specs.end() ? ReportSpec{} : spec->second, group, files,
                    results.reruns, &out);
  }
  return out;
}

std::string ExperimentsTable(const ResultsSet& results,
                             const std::map<std::string, ReportSpec>& specs) {
  return GlanceTable(Sorted(results), specs, "reports/", "");
}

absl::StatusOr<std::string> SpliceExperimentsTable(const std::string& readme,
                                                   const std::string& table) {
  const size_t begin = readme.find(kExperimentsBegin);
  const size_t end = readme.find(kExperimentsEnd);
  if (begin == std::string::npos || end == std::string::npos || end < begin) {
    return absl::NotFoundError("no generated experiments table (its two marker lines)");
  }
  const size_t after_begin = begin + std::string(kExperimentsBegin).size();
  return absl::StrCat(readme.substr(0, after_begin), "\n", table, readme.substr(end));
}

}  // namespace analysis
}  // namespace spawnlab
