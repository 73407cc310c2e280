// results_file_fuzz.cc: libFuzzer entry point for the results parser. Any input
// must give a ResultsFile or an error, never a crash, a hang or a sanitizer
// report.
//
//   bazel run --config=fuzz //results_model:results_file_fuzz -- -max_total_time=60

#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "results_model/results_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<spawnlab::ResultsFile> f = spawnlab::ParseResults(text, "fuzz.json");
  if (f.ok()) {
    for (const spawnlab::Series& s : f->series) {
      (void)s.Median();
      (void)s.Stddev();
    }
    (void)f->experiment();
    (void)f->kernel();
  }
  return 0;
}
