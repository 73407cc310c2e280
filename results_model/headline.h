// headline.h: a bench's answer: a table of two dimensions of its rows (each
// cell a median with its 95% interval) and the ratios paired within rounds
// that the question turns on. The bench declares it (bench.h:
// BenchDefaults::headline) and records it in its results' context, where the
// bench's last screen (bench/headline.h) and the report's findings read it.
//
//   Headline h;
//   h.row_dim = "method";
//   h.col_dim = "parent";
//   h.fixed = {{"child", "minimal"}, {"until", "start"}};
//   h.ratios = {{{"method", "vfork"}, {}}};
//   HeadlineTable t = ComputeHeadline(file, h);  // t.cells[{"fork", "minimal"}].median
//   context[keys::kHeadline] = HeadlineToJson(h).dump();

#ifndef SPAWNLAB_RESULTS_MODEL_HEADLINE_H_
#define SPAWNLAB_RESULTS_MODEL_HEADLINE_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "results_model/bench_results.h"
#include "results_model/results_file.h"

namespace spawnlab {

struct HeadlineRatio {
  RatioBaseline by;                          // each row over its row with by.dimension:by.value
  std::map<std::string, std::string> where;  // only rows with these values too
};

struct Headline {
  std::string title;                         // the question it answers, one line
  std::string row_dim, col_dim;              // the table's rows and columns
  std::vector<std::string> cols;             // the columns, in order (empty: all, as run)
  std::map<std::string, std::string> fixed;  // every other dimension, held here
  std::vector<HeadlineRatio> ratios;
  bool empty() const { return row_dim.empty() || col_dim.empty(); }
};

// The declaration as the results' context records it, and back. A text that
// is not one is InvalidArgument.
nlohmann::json HeadlineToJson(const Headline& h);
absl::StatusOr<Headline> ParseHeadline(const std::string& text);

// One cell: a row's median and the 95% interval of that median, in ns.
struct HeadlineCell {
  double median, low, high;
};

// A ratio's rows, labelled "fork / vfork", each paired within rounds.
struct LabelledRatio {
  std::string label;
  PairedRatio ratio;
};

struct HeadlineTable {
  // Rows and columns in the order the bench registered them (the declared
  // columns' order where given).
  std::vector<std::string> rows, cols;
  std::map<std::pair<std::string, std::string>, HeadlineCell> cells;
  double largest = 0;   // the largest median
  double smallest = 0;  // the smallest median
  // Per declared ratio: its baseline's name ("over method:vfork") and its rows,
  // in the table's order.
  std::vector<std::pair<std::string, std::vector<LabelledRatio>>> ratios;
  bool empty() const { return cells.empty(); }
};

// The table of the rows of `f` that `h` selects (those with the fixed values
// and no dimension besides its row, column and fixed ones); empty where none
// is measured.
HeadlineTable ComputeHeadline(const ResultsFile& f, const Headline& h);

// Whether `h`'s table holds a row of this name (the rule above).
bool HeadlineSelects(const Headline& h, const BenchName& name);

}  // namespace spawnlab

#endif  // SPAWNLAB_RESULTS_MODEL_HEADLINE_H_
