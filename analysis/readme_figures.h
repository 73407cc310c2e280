// readme_figures.h: finds the measured figures a README types by hand.
//
// A README states its question, method and conclusions in words; a figure it
// shows must be one the generated reports hold (reports/**.md), so that it
// changes when the results do. A figure is a number with a unit of time, a
// ratio or a share: "56.1 µs", "2.10x", "1.3–1.4x", "15%". Settings, bounds
// and figures quoted from a source are not measurements: a README writes them
// in a code span (`10 ms`, within `2%`) or, a source's own words, in quotation
// marks on one line; those are not checked, nor is the level of an interval
// (a 95% interval).
//
//   std::vector<Figure> figures = FiguresIn(readme_text);
//   std::vector<std::string> problems =
//       UnbackedFigures("experiments/clone3/README.md", readme_text, reports_text);

#ifndef SPAWNLAB_ANALYSIS_README_FIGURES_H_
#define SPAWNLAB_ANALYSIS_README_FIGURES_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace spawnlab {
namespace analysis {

struct Figure {
  std::string text;  // as a report would print it: "2.10x", "56.1 µs", "15%"
  int line;          // 1-based
};

// The figures of a markdown text, outside code spans, fenced code blocks,
// HTML comments and quotations. A range ("1.27x to 1.40x", "50–83%") gives both ends, each
// with the unit. "us" is read as "µs" and "×" as "x".
std::vector<Figure> FiguresIn(absl::string_view markdown);

// One line per figure of `readme` that `reports` (the generated reports'
// text, concatenated) does not print as a figure too, number and unit, as
// "path:line: figure".
std::vector<std::string> UnbackedFigures(absl::string_view path, absl::string_view readme,
                                         absl::string_view reports);

}  // namespace analysis
}  // namespace spawnlab

#endif  // SPAWNLAB_ANALYSIS_README_FIGURES_H_
