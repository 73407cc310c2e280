// report_headline.cc: the answer section: the bench's headline table and
// ratios, as its last screen showed them, from the experiment's report spec
// (or, for an experiment without one, the declaration its results record).

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "analysis/report_sections.h"
#include "results_model/context_keys.h"
#include "results_model/headline.h"

namespace spawnlab {
namespace analysis {

absl::StatusOr<Headline> HeadlineOf(const ResultsFile& f, const Headline& declared) {
  if (!declared.empty()) return declared;
  auto recorded = f.context.find(spawnlab::keys::kHeadline);
  if (recorded == f.context.end()) return absl::NotFoundError("no headline declared");
  return ParseHeadline(recorded->second);
}

std::string HeadlineSection(const ResultsFile& f, const Headline& declared) {
  absl::StatusOr<Headline> h = HeadlineOf(f, declared);
  if (absl::IsNotFound(h.status())) return "";
  if (!h.ok()) {
    return absl::StrCat(
        "The run's headline could not be read: ", Cell(std::string(h.status().message())), "\n\n");
  }
  const HeadlineTable t = ComputeHeadline(f, *h);
  if (t.empty()) return "";
  // The unit of the smallest cell, so that every cell reads in whole figures:
  // the largest run to more digits, none to a fraction with leading zeros.
  const TimeUnit unit = UnitFor({t.smallest});
  std::string fixed;
  for (const auto& [dim, value] : h->fixed) {
    absl::StrAppend(&fixed, fixed.empty() ? "" : ", ", "`", dim, ":", value, "`");
  }
  std::string out = absl::StrCat("### The answer", h->title.empty() ? "" : ": ", Cell(h->title),
                                 "\n\n", fixed.empty() ? "" : absl::StrCat(fixed, "; "),
                                 "each cell the median and its 95% interval, in ", unit.name,
                                 ".\n\n| ", h->row_dim, " \\ ", h->col_dim, " |");
  std::string rule = "|---|";
  for (const std::string& c : t.cols) {
    absl::StrAppend(&out, " ", Cell(c), " |");
    absl::StrAppend(&rule, "---:|");
  }
  absl::StrAppend(&out, "\n", rule, "\n");
  for (const std::string& r : t.rows) {
    absl::StrAppend(&out, "| ", Cell(r), " |");
    for (const std::string& c : t.cols) {
      auto it = t.cells.find({r, c});
      absl::StrAppend(&out, " ",
                      it == t.cells.end() ? "—"
                                          : absl::StrCat(InUnit(it->second.median, unit), " [",
                                                         InUnit(it->second.low, unit), ", ",
                                                         InUnit(it->second.high, unit), "]"),
                      " |");
    }
    absl::StrAppend(&out, "\n");
  }
  for (const auto& [heading, ratios] : t.ratios) {
    absl::StrAppend(&out, "\nEach row ", heading,
                    ", paired within rounds:\n\n| ratio | median | 95% interval | rounds |\n"
                    "|---|---:|---:|---:|\n");
    for (const LabelledRatio& r : ratios) {
      absl::StrAppend(&out, "| ", Cell(r.label), " | ", absl::StrFormat("%.2fx", r.ratio.median),
                      " | ", absl::StrFormat("[%.2f, %.2f]", r.ratio.low, r.ratio.high), " | ",
                      r.ratio.rounds, " |\n");
    }
  }
  return absl::StrCat(out, "\n");
}

}  // namespace analysis
}  // namespace spawnlab
