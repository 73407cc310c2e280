// bench_output.cc: see bench_output.h.

#include "bench/testing/bench_output.h"

#include <cstdlib>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "bench/bench.h"
#include "lib/spawn.h"
#include "results_model/bench_name.h"
#include "results_model/benchmark_json.h"
#include "results_model/context_keys.h"

namespace spawnlab {
namespace testing {

absl::StatusOr<nlohmann::json> RunBench(const std::string& bench, std::vector<std::string> args,
                                        absl::Duration timeout) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  static int runs = 0;
  std::string out =
      absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/bench-", getpid(), "-", ++runs, ".json");
  std::vector<std::string> argv = {bench};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.push_back(absl::StrCat("--out=", out));
  // A smoke run writes no committed results: it must not wait for, or block,
  // a bench measuring on the machine.
  argv.push_back("--lock=none");
  absl::StatusOr<Child> child = Spawn(SpawnMethod::kPosixSpawn, ExecSpec(bench, argv));
  if (!child.ok()) return child.status();
  absl::StatusOr<ExitStatus> status = child->WaitFor(timeout);
  if (!status.ok()) return status.status();  // the Child's destructor kills it
  if (!status->success()) {
    return absl::InternalError(absl::StrCat(bench, " ended with ", status->ToString()));
  }
  absl::StatusOr<nlohmann::json> json = ReadBenchmarkJsonFile(out);
  if (absl::IsNotFound(json.status())) {
    return absl::NotFoundError(absl::StrCat(bench, " wrote no ", out));
  }
  return json;
}

absl::Status ValidateBenchJson(const nlohmann::json& json) {
  if (!json.is_object() || !json.contains("context") || !json.contains("benchmarks")) {
    return absl::InvalidArgumentError("no context or benchmarks block");
  }
  const nlohmann::json& context = json["context"];
  for (const char* key :
       {"kernel.release", "cpu.model", "virtualization", "thp.enabled", "aslr", "glibc", "compiler",
        "git.revision", keys::kPinnedCpu, "package.libbenchmark-dev", "probe.clone3"}) {
    if (!context.contains(key)) {
      return absl::InvalidArgumentError(absl::StrCat("context lacks '", key, "'"));
    }
  }
  if (!json["benchmarks"].is_array() || json["benchmarks"].empty()) {
    return absl::InvalidArgumentError("no benchmark rows");
  }
  for (const nlohmann::json& row : json["benchmarks"]) {
    std::string name = row.value("run_name", row.value("name", ""));
    absl::StatusOr<BenchName> parsed = ParseBenchName(name);
    if (!parsed.ok()) return parsed.status();
    if (row.value("error_occurred", false)) {
      std::string message = row.value("error_message", "");
      if (!absl::StartsWith(message, kSkippedPrefix)) {
        return absl::InternalError(absl::StrCat(name, " failed: ", message));
      }
      if (message.size() <= kSkippedPrefix.size()) {
        return absl::InvalidArgumentError(absl::StrCat(name, " skipped with no reason"));
      }
      continue;
    }
    if (row.value("run_type", "") == "iteration" && !(row.value("real_time", 0.0) > 0.0)) {
      return absl::InvalidArgumentError(absl::StrCat(name, " has no positive time"));
    }
  }
  return absl::OkStatus();
}

}  // namespace testing
}  // namespace spawnlab
