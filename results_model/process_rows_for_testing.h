// process_rows_for_testing.h: merged results of a run made of processes, for
// tests of the stopping rule: each process runs two rounds of
// spawn/method:vfork and spawn/method:fork, fork costing ratios[k] times
// vfork's in process k + 1 (the machine drifts from round to round; the
// ratio does not).
//
//   nlohmann::json merged = spawnlab::testing::MadeOf({2.0, 2.1, 1.9});
//   merged["benchmarks"].push_back(spawnlab::testing::Row("exec/x:y", 1, 0, 50));

#ifndef SPAWNLAB_RESULTS_MODEL_PROCESS_ROWS_FOR_TESTING_H_
#define SPAWNLAB_RESULTS_MODEL_PROCESS_ROWS_FOR_TESTING_H_

#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "results_model/results_file.h"

namespace spawnlab {
namespace testing {

// One iteration row of `process`, its repetition and time.
inline nlohmann::json Row(const std::string& name, int process, int repetition, double time) {
  return {{"name", name},
          {"run_name", name},
          {"run_type", "iteration"},
          {"repetition_index", repetition},
          {"real_time", time},
          {std::string(kProcessField), process}};
}

// Processes of two rounds each; `more`, if set, a row in no key ratio that
// every round measures too.
inline nlohmann::json MadeOf(const std::vector<double>& ratios, const std::string& more = "") {
  nlohmann::json doc = {{"context", nlohmann::json::object()},
                        {"benchmarks", nlohmann::json::array()}};
  int repetition = 0;
  for (size_t k = 0; k < ratios.size(); ++k) {
    const int process = static_cast<int>(k + 1);
    for (int round = 0; round < 2; ++round, ++repetition) {
      const double vfork = 100 + repetition;
      doc["benchmarks"].push_back(Row("spawn/method:vfork", process, repetition, vfork));
      doc["benchmarks"].push_back(Row("spawn/method:fork", process, repetition, vfork * ratios[k]));
      if (!more.empty()) doc["benchmarks"].push_back(Row(more, process, repetition, 5));
    }
  }
  return doc;
}

}  // namespace testing
}  // namespace spawnlab

#endif  // SPAWNLAB_RESULTS_MODEL_PROCESS_ROWS_FOR_TESTING_H_
