// bench_processes.cc: see bench_processes.h.

#include "bench/bench_processes.h"

#include <errno.h>
#include <signal.h>
#include <unistd.h>

#include <iostream>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "bench/run_record.h"
#include "lib/safe_file.h"
#include "lib/spawn.h"
#include "results_model/bench_results.h"
#include "results_model/benchmark_json.h"
#include "results_model/context_keys.h"

namespace spawnlab {
namespace {

// The process being waited for, for the parent's signal handler to pass a
// signal on to (async-signal-safe: a pid in a global).
volatile sig_atomic_t g_worker_pid = 0;
volatile sig_atomic_t g_parent_signal = 0;

void ForwardToWorker(int sig) {
  g_parent_signal = sig;
  if (g_worker_pid > 0) kill(static_cast<pid_t>(g_worker_pid), sig);
}

// What process k of `processes` wrote to `part`, once it ended with
// `status`: its results, or why there are none (InvalidArgument for its
// usage error, exit code 2: a filter that matched nothing).
absl::StatusOr<nlohmann::json> ProcessResults(int k, int processes,
                                              const absl::StatusOr<ExitStatus>& status,
                                              const std::string& part) {
  absl::StatusOr<nlohmann::json> doc = ReadBenchmarkJsonFile(part);
  if (status.ok() && status->exited() && doc.ok() && doc->contains("context")) {
    return *std::move(doc);
  }
  const std::string how = status.ok() ? status->ToString() : status.status().ToString();
  const std::string message =
      absl::StrCat("process ", k, " of ", processes, " ended (", how, ") without results (see above)");
  return status.ok() && status->exited() && status->exit_code() == 2
             ? absl::InvalidArgumentError(message)
             : absl::InternalError(message);
}

}  // namespace

std::vector<std::string> WithoutFlags(const std::vector<std::string>& args,
                                      const std::vector<std::string>& flags) {
  std::vector<std::string> kept;
  for (size_t i = 0; i < args.size(); ++i) {
    absl::string_view a = args[i];
    bool drop = false;
    for (const std::string& flag : flags) {
      if (i > 0 && a == flag && i + 1 < args.size()) {  // "--out PATH"
        drop = true;
        ++i;
        break;
      }
      if (i > 0 && absl::StartsWith(a, absl::StrCat(flag, "="))) drop = true;
    }
    if (!drop) kept.push_back(std::string(a));
  }
  return kept;
}

absl::Status WriteResultsFile(const std::string& path, const nlohmann::json& doc) {
  return WriteFileAtomically(path, doc.dump(2) + "\n");
}

absl::StatusOr<nlohmann::json> RunProcesses(
    const std::vector<std::string>& args, int processes, const std::string& out,
    const std::function<std::vector<std::string>(int k, const std::string& part)>& process_args,
    const std::string& canary_row, const StopRule& stop) {
  struct sigaction forward = {}, old_int = {}, old_term = {}, old_hup = {};
  forward.sa_handler = ForwardToWorker;
  sigemptyset(&forward.sa_mask);
  sigaction(SIGINT, &forward, &old_int);
  sigaction(SIGTERM, &forward, &old_term);
  sigaction(SIGHUP, &forward, &old_hup);
  // The processes' results go into a private folder, removed with it.
  absl::StatusOr<TempDir> scratch = TempDir::Make("spawnlab-processes");
  if (!scratch.ok()) return scratch.status();
  std::vector<std::string> parts;
  // Undoes what this function did, and dies of the signal that interrupted it.
  auto finish = [&](bool interrupted) {
    for (const std::string& p : parts) unlink(p.c_str());
    rmdir(scratch->path().c_str());
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGTERM, &old_term, nullptr);
    sigaction(SIGHUP, &old_hup, nullptr);
    if (interrupted) {
      std::cerr << "interrupted after " << parts.size() - 1 << " of " << processes
                << " processes; " << out << " is as it was\n";
      signal(g_parent_signal, SIG_DFL);
      raise(g_parent_signal);
    }
  };
  std::vector<nlohmann::json> docs;
  std::vector<std::string> process_runs;
  bool a_process_failed = false;
  int64_t voluntary = 0, involuntary = 0;
  const MachineSample before = SampleMachine();
  for (int k = 1; k <= processes && g_parent_signal == 0; ++k) {
    parts.push_back(absl::StrCat(scratch->path(), "/process-", k, ".json"));
    std::vector<std::string> argv = args;
    for (std::string& a : process_args(k, parts.back())) argv.push_back(std::move(a));
    const absl::Time t0 = absl::Now();
    absl::StatusOr<Child> child = Spawn(SpawnMethod::kPosixSpawn, ExecSpec("/proc/self/exe", argv));
    if (!child.ok()) {
      finish(false);
      return absl::Status(child.status().code(),
                          absl::StrCat("cannot start process ", k, " of ", processes, ": ",
                                       child.status().message()));
    }
    g_worker_pid = child->pid();
    absl::StatusOr<ExitStatus> status = child->Wait();
    g_worker_pid = 0;
    if (g_parent_signal != 0) finish(true);
    absl::StatusOr<nlohmann::json> part = ProcessResults(k, processes, status, parts.back());
    if (!part.ok()) {
      finish(false);
      return part.status();
    }
    nlohmann::json doc = *std::move(part);
    a_process_failed |= status->exit_code() != 0;
    const nlohmann::json& c = doc["context"];
    int64_t n = 0;
    if (absl::SimpleAtoi(c.value("run.voluntary_switches", ""), &n)) voluntary += n;
    if (absl::SimpleAtoi(c.value("run.involuntary_switches", ""), &n)) involuntary += n;
    process_runs.push_back(absl::StrCat(k, ": ", c.value("run.seconds", "?"), " s, noisy: ",
                                        c.value("run.noisy", "?")));
    std::cout << "[process " << k << (stop ? " of at most " : "/") << processes << "] "
              << absl::StrFormat("%.0f s", absl::ToDoubleSeconds(absl::Now() - t0))
              << ", noisy: " << c.value("run.noisy", "?");
    docs.push_back(std::move(doc));
    const double elapsed = absl::ToDoubleSeconds(absl::Now() - before.wall);
    const StopVerdict verdict = stop ? stop(MergeProcesses(docs), k, elapsed) : StopVerdict();
    if (!verdict.say.empty()) std::cout << "; " << verdict.say;
    if (verdict.stop) {
      std::cout << std::endl;
      break;
    }
    if (k < processes && !stop) {
      std::cout << absl::StrFormat(", ETA ~%.0f s", elapsed / k * (processes - k));
    }
    std::cout << std::endl;
  }
  if (g_parent_signal != 0) finish(true);
  const MachineSample after = SampleMachine();
  finish(false);

  nlohmann::json doc = MergeProcesses(docs);
  nlohmann::json& context = doc["context"];
  // The run's record is the whole run's: from before the first process to
  // after the last, every process (and what it reaped) counted as the bench's.
  for (const auto& [key, value] : DescribeRun(before, after)) context[key] = value;
  context["run.voluntary_switches"] = absl::StrCat(voluntary);
  context["run.involuntary_switches"] = absl::StrCat(involuntary);
  context["run.processes"] = absl::StrJoin(process_runs, "; ");
  if (a_process_failed) context["run.a_process_failed"] = "yes";
  context[keys::kProcesses] = absl::StrCat(docs.size());
  context.erase(keys::kProcess);
  RecordNoise(doc, canary_row);
  return doc;
}

}  // namespace spawnlab
