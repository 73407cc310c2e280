// headline.h: a bench's answer on one screen: a table of two dimensions
// (say method by parent) for the rest held fixed, each cell a median with its
// 95% interval, then the headline ratios paired within rounds.
//
// Example (clone3):
//
//   Headline h;
//   h.row_dim = "method";
//   h.col_dim = "parent";
//   h.fixed = {{"child", "minimal"}, {"until", "start"}};
//   h.ratios = {{{"method", "vfork"}, {{"parent", "minimal"}}},   // each method / vfork
//               {{"parent", "minimal"}, {{"method", "fork"}}}};  // fork by parent size
//   PrintHeadline(spawnlab::ResultsOf(doc), h, std::cout);

#ifndef SPAWNLAB_BENCH_HEADLINE_H_
#define SPAWNLAB_BENCH_HEADLINE_H_

#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "results_model/bench_results.h"

namespace spawnlab {

struct HeadlineRatio {
  RatioBaseline by;                          // each row over its row with by.dimension:by.value
  std::map<std::string, std::string> where;  // only rows with these values too
};

struct Headline {
  std::string title;             // the question it answers, one line
  std::string row_dim, col_dim;  // the table's rows and columns
  std::vector<std::string> cols;             // the columns, in order (empty: all, as run)
  std::map<std::string, std::string> fixed;  // every other dimension, held here
  std::vector<HeadlineRatio> ratios;
  bool empty() const { return row_dim.empty() || col_dim.empty(); }
};

// Prints the table (rows, and columns unless given, in the order the bench
// registered them; a cell
// with no measured row is "—") and the ratios with their intervals. Returns
// false, printing nothing, when no row of the file matches.
bool PrintHeadline(const ResultsFile& f, const Headline& headline, std::ostream& out);

}  // namespace spawnlab

#endif  // SPAWNLAB_BENCH_HEADLINE_H_
