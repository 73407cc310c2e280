// headline.h: a bench's answer on one screen, its last: the headline table
// (results_model/headline.h) for the rest held fixed, each cell a median with
// its 95% interval, then the headline ratios paired within rounds.
//
//   Headline h;  // clone3's
//   h.row_dim = "method";
//   h.col_dim = "parent";
//   h.fixed = {{"child", "minimal"}, {"until", "start"}};
//   h.ratios = {{{"method", "vfork"}, {{"parent", "minimal"}}},   // each method / vfork
//               {{"parent", "minimal"}, {{"method", "fork"}}}};  // fork by parent size
//   PrintHeadline(spawnlab::ResultsOf(doc), h, std::cout);

#ifndef SPAWNLAB_BENCH_HEADLINE_H_
#define SPAWNLAB_BENCH_HEADLINE_H_

#include <ostream>

#include "results_model/headline.h"
#include "results_model/results_file.h"

namespace spawnlab {

// Prints the table (a cell with no measured row is "—") and the ratios with
// their intervals. Returns false, printing nothing, when no row of the file
// matches.
bool PrintHeadline(const ResultsFile& f, const Headline& headline, std::ostream& out);

}  // namespace spawnlab

#endif  // SPAWNLAB_BENCH_HEADLINE_H_
