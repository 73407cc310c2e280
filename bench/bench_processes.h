// bench_processes.h: a bench run made of several processes, one after
// another, merged into one results file.
//
// Repetitions inside one process share its luck (its memory's layout and
// backing, its page cache, ASLR), so two processes of one binary differ by
// more than one process's repetitions show. A run of several fresh processes
// measures that, and gives //analysis:compare the process as its sample unit.
//
//   absl::StatusOr<nlohmann::json> doc = spawnlab::RunProcesses(
//       spawnlab::WithoutFlags(args, {"--out", "--processes"}), 9, out,
//       [](int k, const std::string& part) {
//         return std::vector<std::string>{"--processes=1", "--out=" + part};
//       },
//       "spawn/method:vfork/child:minimal/parent:minimal/until:exit");
//   if (doc.ok()) status = spawnlab::WriteResultsFile(out, *doc);

#ifndef SPAWNLAB_BENCH_BENCH_PROCESSES_H_
#define SPAWNLAB_BENCH_BENCH_PROCESSES_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace spawnlab {

// What a StopRule says after a process: whether the run has its answer, and
// a word for that process's line.
struct StopVerdict {
  bool stop = false;
  std::string say;
};
// Asked after each process k, given the processes so far, merged, and the
// seconds since the first began.
using StopRule =
    std::function<StopVerdict(const nlohmann::json& merged, int k, double elapsed_seconds)>;

// Runs this program (/proc/self/exe) with `args` (argv[0] first) and
// `process_args(k, part)` once per process k = 1..processes, one after
// another, each writing its results to `part` (in a private mkdtemp folder);
// returns their rows merged (bench_results.h: MergeProcesses), the whole
// run's record in the context (run.*, run.processes, spawnlab.processes) and
// the canary's noise (RecordNoise). It prints a line as each process ends;
// `stop`, if set, may end the run before `processes`.
//
// An interrupt (SIGINT, SIGTERM, SIGHUP) is passed on to the running process,
// and the caller dies of it once that one has ended, its parts removed.
// InvalidArgument if a process ended with a usage error (exit 2) and wrote
// nothing, another error if it ended otherwise without results. A process
// that wrote results but exited non-zero (a failed row) is kept and recorded
// as context run.a_process_failed = "yes".
absl::StatusOr<nlohmann::json> RunProcesses(
    const std::vector<std::string>& args, int processes, const std::string& out,
    const std::function<std::vector<std::string>(int k, const std::string& part)>& process_args,
    const std::string& canary_row, const StopRule& stop = nullptr);

// `args` without the given flags ("--flag=value" or "--flag value"); args[0]
// is kept.
std::vector<std::string> WithoutFlags(const std::vector<std::string>& args,
                                      const std::vector<std::string>& flags);

// Writes `doc` to `path` whole (safe_file.h: WriteFileAtomically).
absl::Status WriteResultsFile(const std::string& path, const nlohmann::json& doc);

}  // namespace spawnlab

#endif  // SPAWNLAB_BENCH_BENCH_PROCESSES_H_
