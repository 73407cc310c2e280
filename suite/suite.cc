// suite.cc: every experiment's bench in turn, one at a time, then the reports.
//
//   bazel run //:suite                        # the full suite (see the README for its time)
//   bazel run //:suite -- --quick             # a smoke of everything, about a minute
//   bazel run //:suite -- --only=clone3,linking
//   bazel run //:suite -- --self_check --only=clone3   # two runs: how reproducible?
//   bazel run //:suite -- --wait_quiet=600 --retry_noisy=2  # at a quiet moment, noisy runs again
//
// It holds the machine's bench lock for the whole suite, so nothing else
// measures between two benches. It says first what it will run and how long
// that should take (each bench's last full run here, half as much again if a
// suite's share, not its own cap, ended it, else a default), shows
// progress with an ETA, and ends by regenerating reports/ and printing the
// time each bench took. A failed bench does not stop the suite; the exit code
// says that one did. --help lists the flags.

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "bench/bench_lock.h"
#include "bench/environment.h"
#include "bench/quiet.h"
#include "lib/runfiles.h"
#include "lib/spawn.h"
#include "nlohmann/json.hpp"
#include "results_model/benchmark_json.h"
#include "results_model/context_keys.h"
#include "results_model/stopping.h"

ABSL_FLAG(bool, quick, false, "Run every bench with --quick: a smoke of the whole suite.");
ABSL_FLAG(std::string, only, "",
          "Comma-separated experiments to run (default: all), e.g. clone3,linking.");
ABSL_FLAG(std::string, lock, "wait",
          "The machine's bench lock: wait for another bench to finish, or fail at once.");
ABSL_FLAG(bool, report, true, "Regenerate reports/ at the end.");
ABSL_FLAG(std::string, against, "",
          "KERNEL[/HOST]: after the run, also write reports/changes/<KERNEL>-to-<this kernel>.md, "
          "what changed against that kernel's committed results (a new kernel: run the suite "
          "with --against=<the release before it>).");
ABSL_FLAG(bool, keep_quick, false,
          "With --quick: file each run under the full run's name (results/<kernel>/<host>/"
          "<experiment>.json), for a kernel where a smoke run is all there is to keep, such as "
          "User-Mode Linux (bazel run //suite:uml). The file still says it was quick.");
ABSL_FLAG(int, processes, 0,
          "Measure each bench in exactly this many processes (the benches' --processes, 1 to "
          "100), not by their stopping rule: e.g. 1 under User-Mode Linux, where a row can take "
          "a minute. 0: each bench's own rule. Not with --quick.");
ABSL_FLAG(int, minutes, 15,
          "The whole run's time budget. Before each bench, what is left of it is shared among "
          "the benches still to run in proportion to their estimates, and a bench's share is "
          "its time cap (its --max_seconds: it starts no process that would end later, and "
          "still makes at least 3). With --self_check, each run's budget: the pair takes twice "
          "as long. 0: no budget, each bench its own cap. Not used with --quick or --processes.");
ABSL_FLAG(int, rounds, 0,
          "With --processes: this many rounds in all for each bench (its "
          "--benchmark_repetitions), shared among the processes. 0: each bench's own.");
ABSL_FLAG(bool, dry_run, false, "Print the plan and the estimate, and run nothing.");
ABSL_FLAG(bool, self_check, false,
          "Run each bench twice, back to back, into a temporary folder (results/ is left "
          "alone), and print how far the two runs agree (//analysis:compare --self_check): "
          "the README's reproducibility table, for this machine now.");
ABSL_FLAG(bool, keep_self_check, false,
          "With --self_check: keep the first run as the bench's results (results/<kernel>/"
          "<host>/<experiment>.json) and the second beside it (<experiment>.rerun.json), then "
          "regenerate reports/, whose reports then show how far the two agree. For the "
          "committed results.");

ABSL_FLAG(int, wait_quiet, 0,
          "Before each bench, wait up to this many seconds for a quiet machine (bench/quiet.h: a "
          "2-second look at how evenly a tight loop runs on the benches' CPU), looking again "
          "every 20 s; then run it either way, saying so. 0: do not look.");
ABSL_FLAG(int, retry_noisy, 0,
          "Measure a bench again, up to this many more times, when its run (with --self_check, "
          "either run of its pair) comes out marked noisy (README, \"Noisy runs\"). The last "
          "attempt is kept; the suite says which it discarded and why.");

namespace spawnlab {
namespace {

// Where a bench's full run is filed (bench/bench.h: DefaultResultsPath).
std::string FullResultsPath(const std::string& workspace, absl::string_view experiment) {
  return absl::StrCat(workspace, "/results/", KernelRelease(), "/", HostId(), "/", experiment,
                      ".json");
}

struct Experiment {
  std::string name;
  std::string binary;   // runfile path
  int default_seconds;  // a full run, when no results say better
  int quick_seconds;
};

// What to run, from each experiment's own BUILD (bench/bench.bzl: suite_entry),
// gathered by suite/BUILD.bazel: "NAME<TAB>RUNFILE<TAB>FULL_S<TAB>QUICK_S".
absl::StatusOr<std::vector<Experiment>> AllExperiments() {
  absl::StatusOr<std::string> path = Runfile("suite/experiments.txt");
  if (!path.ok()) return path.status();
  std::ifstream in(*path);
  std::vector<Experiment> all;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.empty()) continue;
    std::vector<std::string> f = absl::StrSplit(line, '\t');
    Experiment e;
    if (f.size() != 4 || !absl::SimpleAtoi(f[2], &e.default_seconds) ||
        !absl::SimpleAtoi(f[3], &e.quick_seconds)) {
      return absl::DataLossError(absl::StrCat(*path, ":", n, ": expected NAME<TAB>RUNFILE<TAB>",
                                              "FULL_S<TAB>QUICK_S, got \"", line, "\""));
    }
    e.name = f[0];
    e.binary = f[1];
    all.push_back(e);
  }
  if (all.empty()) return absl::NotFoundError(absl::StrCat(*path, ": no experiments"));
  return all;
}

// Folders under the workspace's experiments/ that this build of the suite has
// never heard of: Bazel lists experiments/ when its server starts (see
// suite/experiments_index.bzl), so a folder added since is missing until then.
std::vector<std::string> UnindexedFolders(const std::string& workspace) {
  std::set<std::string> indexed;
  absl::StatusOr<std::string> path = Runfile("suite/experiment_folders.txt");
  if (path.ok()) {
    std::ifstream in(*path);
    for (std::string line; std::getline(in, line);) indexed.insert(line);
  }
  std::vector<std::string> missing;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(workspace + "/experiments", ec)) {
    const std::string name = entry.path().filename().string();
    if (std::filesystem::exists(entry.path() / "BUILD.bazel") && !indexed.count(name)) {
      missing.push_back(name);
    }
  }
  std::sort(missing.begin(), missing.end());
  return missing;
}

// A results file's context block; nullopt if the file is missing, is not
// JSON or has no context object.
std::optional<nlohmann::json> ReadContext(const std::string& path) {
  absl::StatusOr<nlohmann::json> doc = ReadBenchmarkJsonFile(path);
  if (!doc.ok() || !doc->contains("context") || !(*doc)["context"].is_object()) {
    return std::nullopt;
  }
  return std::move((*doc)["context"]);
}

// The next full run's duration on this kernel and host, from the last one's
// results (results_model/stopping.h: ExpectedSeconds).
int EstimateSeconds(const Experiment& e, const std::string& workspace, bool quick) {
  if (quick) return e.quick_seconds;
  const std::optional<nlohmann::json> context = ReadContext(FullResultsPath(workspace, e.name));
  if (!context) return e.default_seconds;
  const std::optional<double> seconds = ExpectedSeconds(*context);
  if (!seconds) return e.default_seconds;
  return static_cast<int>(*seconds) + 3;  // and the bench's own start-up
}

std::string Minutes(int64_t seconds) {
  return absl::StrFormat("%dm%02ds", seconds / 60, seconds % 60);
}

volatile sig_atomic_t g_interrupted = 0;
// The bench (or report) running now: an interrupt is passed on to it.
volatile sig_atomic_t g_child_pid = 0;
void OnInterrupt(int sig) {
  g_interrupted = 1;
  if (g_child_pid > 0) kill(static_cast<pid_t>(g_child_pid), sig);
}

// Runs `args` and waits for it, passing on an interrupt. The suite's lock
// descriptor (if any) is handed to it (bench_lock.h: kInheritedLockEnv), so
// the lock lasts while the bench does, even if the suite is killed; the bench
// dies with the suite (PR_SET_PDEATHSIG).
absl::StatusOr<ExitStatus> RunChild(const std::vector<std::string>& args, int lock_fd = -1) {
  SpawnOptions options;
  if (lock_fd >= 0) options.fd_map.emplace_back(lock_fd, lock_fd);
  absl::StatusOr<Child> child = Spawn(SpawnMethod::kPosixSpawn, ExecSpec(args[0], args), options);
  if (!child.ok()) return child.status();
  g_child_pid = child->pid();
  absl::StatusOr<ExitStatus> status = child->Wait();
  g_child_pid = 0;
  return status;
}

// The results file's run.noisy: "" for a quiet run (or one that says nothing).
std::string NoisyReason(const std::string& path) {
  const std::optional<nlohmann::json> context = ReadContext(path);
  if (!context || !context->contains("run.noisy") || !(*context)["run.noisy"].is_string()) {
    return "";
  }
  const std::string noisy = (*context)["run.noisy"].get<std::string>();
  return absl::StartsWith(noisy, "yes") ? noisy : "";
}

// Looks at the machine until it is quiet or `budget_s` has passed; says what
// it saw each time.
void WaitForQuiet(int budget_s, absl::string_view who) {
  static double best_ns = 0;  // the fastest any look of this suite saw
  const absl::Time give_up = absl::Now() + absl::Seconds(budget_s);
  while (!g_interrupted) {
    const QuietCheck q = CheckQuiet(-1, absl::Seconds(2), absl::Milliseconds(10), best_ns);
    if (q.slices > 0 && (best_ns == 0 || q.fastest_ns < best_ns)) best_ns = q.fastest_ns;
    const bool out_of_time = absl::Now() >= give_up;
    std::cout << "[suite] " << who << ": the machine "
              << (q.quiet()     ? "is quiet"
                  : out_of_time ? "is still not quiet; going on"
                                : "is not quiet")
              << " (" << q.ToString() << ")" << std::endl;
    if (q.quiet() || out_of_time) return;
    for (int i = 0; i < 20 && !g_interrupted; ++i) absl::SleepFor(absl::Seconds(1));
  }
}

// ---- The plan ---------------------------------------------------------------

struct SuitePlan {
  std::string workspace;
  std::vector<Experiment> benches;
  std::vector<int> estimate;  // seconds, per bench
  int total_estimate = 0;
  bool quick = false, self_check = false, keep_self_check = false;
  std::string lock_mode, self_check_dir;
  std::string against;  // --against: the kernel (and host) to compare with
  int processes = 0;     // --processes: a fixed plan for every bench, or 0
  int rounds = 0;        // --rounds: with it, the rounds in all, or 0
  int budget_s = 0;      // --minutes, in seconds; 0 where none applies
};

// What the suite keeps back from its budget for regenerating reports/.
constexpr int kReportSeconds = 40;
// The least time cap the budget gives a bench (its 3 processes still run).
constexpr int kLeastCapSeconds = 5;

// The time cap (--max_seconds) for bench `i` when `elapsed` seconds of the
// budget are gone: its share of what is left, in proportion to the estimates
// of the benches still to run; 0 (the bench's own cap) where there is no
// budget. Per run: a self-check's pair shares it. A share is a cap even where
// what is left covers every estimate: an estimate is the last run's time, and
// a last run that was capped says nothing of how long an uncapped one takes.
int BenchCap(const SuitePlan& plan, size_t i, int64_t elapsed) {
  if (plan.budget_s == 0) return 0;
  int64_t rest = 0;
  for (size_t j = i; j < plan.estimate.size(); ++j) rest += plan.estimate[j];
  const int64_t left = plan.budget_s - kReportSeconds - elapsed;
  if (rest <= 0) return 0;
  const int runs = plan.self_check ? 2 : 1;
  const int64_t share = left * plan.estimate[i] / rest / runs;
  return static_cast<int>(std::max<int64_t>(kLeastCapSeconds, share));
}

// The benches --only names, each checked against the suite's list.
absl::StatusOr<std::vector<Experiment>> ChooseBenches(const std::string& workspace) {
  absl::StatusOr<std::vector<Experiment>> all = AllExperiments();
  if (!all.ok()) return all.status();
  if (std::vector<std::string> missing = UnindexedFolders(workspace); !missing.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "experiments/", absl::StrJoin(missing, ", experiments/"),
        " is new to this Bazel server, which lists experiments/ when it starts.\n"
        "  Run `bazel sync --configure` (or `bazel shutdown`), then the suite again."));
  }
  std::set<std::string> wanted, known;
  for (absl::string_view n : absl::StrSplit(absl::GetFlag(FLAGS_only), ',', absl::SkipEmpty())) {
    wanted.insert(std::string(n));
  }
  std::vector<Experiment> chosen;
  for (const Experiment& e : *all) {
    known.insert(e.name);
    if (wanted.empty() || wanted.count(e.name)) chosen.push_back(e);
  }
  for (const std::string& n : wanted) {
    if (!known.count(n)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--only: no experiment '", n, "'; there are ", absl::StrJoin(known, ", ")));
    }
  }
  return chosen;
}

absl::StatusOr<SuitePlan> MakeSuitePlan() {
  SuitePlan plan;
  const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY");
  if (ws == nullptr || *ws == '\0') {
    return absl::InvalidArgumentError(
        "run me with `bazel run //:suite`: results go into the workspace, which "
        "BUILD_WORKSPACE_DIRECTORY names");
  }
  plan.workspace = ws;
  // The benches are this binary's `data`: Bazel built no runfiles tree beside
  // them, so they find their own data (children, servers) through ours.
  if (absl::Status shared = ShareRunfilesWithChildren(); !shared.ok()) return shared;
  absl::StatusOr<std::vector<Experiment>> chosen = ChooseBenches(plan.workspace);
  if (!chosen.ok()) return chosen.status();
  plan.benches = *std::move(chosen);
  plan.quick = absl::GetFlag(FLAGS_quick);
  plan.self_check = absl::GetFlag(FLAGS_self_check);
  plan.keep_self_check = absl::GetFlag(FLAGS_keep_self_check);
  plan.lock_mode = absl::GetFlag(FLAGS_lock);
  if (absl::GetFlag(FLAGS_keep_quick) && !plan.quick) {
    return absl::InvalidArgumentError("--keep_quick goes with --quick");
  }
  if (plan.keep_self_check && (!plan.self_check || plan.quick)) {
    return absl::InvalidArgumentError(
        "--keep_self_check goes with --self_check, and not with --quick (a smoke run is no "
        "evidence to keep)");
  }
  plan.processes = absl::GetFlag(FLAGS_processes);
  if (plan.processes < 0 || plan.processes > 100 || (plan.processes > 0 && plan.quick)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--processes=", plan.processes,
        ": expected 1 to 100 processes per bench (0: each bench's stopping rule), and not with "
        "--quick (a smoke run is one process)"));
  }
  plan.rounds = absl::GetFlag(FLAGS_rounds);
  if (plan.rounds < 0 || plan.rounds > 1000 || (plan.rounds > 0 && plan.processes == 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--rounds=", plan.rounds,
                     ": expected 1 to 1000 rounds, with --processes (a fixed plan)"));
  }
  const int minutes = absl::GetFlag(FLAGS_minutes);
  if (minutes < 0 || minutes > 24 * 60) {
    return absl::InvalidArgumentError(
        absl::StrCat("--minutes=", minutes, ": expected 0 (no budget) to ", 24 * 60));
  }
  // A self-check judges what the suite makes: each of its runs has the budget.
  plan.budget_s = plan.quick || plan.processes > 0 ? 0 : minutes * 60 * (plan.self_check ? 2 : 1);
  plan.against = absl::GetFlag(FLAGS_against);
  if (!plan.against.empty() &&
      (plan.quick || !absl::GetFlag(FLAGS_report) || (plan.self_check && !plan.keep_self_check) ||
       plan.against.find_first_of(" :") != std::string::npos || plan.against.front() == '/')) {
    return absl::InvalidArgumentError(
        "--against=KERNEL[/HOST] compares full runs kept in results/: not with --quick, "
        "--report=false or a --self_check that keeps nothing (e.g. --against=6.18.44-fc-v782)");
  }
  if (plan.lock_mode != "wait" && plan.lock_mode != "fail") {
    return absl::InvalidArgumentError(
        absl::StrCat("--lock=", plan.lock_mode, ": expected wait or fail"));
  }
  for (const Experiment& e : plan.benches) {
    plan.estimate.push_back(EstimateSeconds(e, plan.workspace, plan.quick) *
                            (plan.self_check ? 2 : 1));
    plan.total_estimate += plan.estimate.back();
  }
  return plan;
}

void PrintPlan(const SuitePlan& plan) {
  // With a budget that binds, each bench's share if those before it keep to theirs.
  const bool capped = plan.budget_s > 0 && plan.total_estimate > plan.budget_s - kReportSeconds;
  std::cout << "suite: " << plan.benches.size() << " benches" << (plan.quick ? " (--quick)" : "")
            << (plan.self_check ? ", each twice (--self_check)" : "") << ", one at a time, "
            << (capped ? absl::StrCat("about ", Minutes(plan.budget_s), " (--minutes; expected ",
                                      "from their last runs here: ", Minutes(plan.total_estimate),
                                      "): each bench's time cap is its share")
                       : absl::StrCat("estimated ", Minutes(plan.total_estimate),
                                      plan.budget_s > 0
                                          ? " (within --minutes; each bench's share of it is "
                                            "its time cap)"
                                          : ""))
            << ":\n";
  int64_t elapsed = 0;  // had every bench before this one run to its cap
  for (size_t i = 0; i < plan.benches.size(); ++i) {
    const int runs = plan.self_check ? 2 : 1;  // the estimate is the pair's
    std::cout << absl::StrFormat("  %-16s ~%s", plan.benches[i].name,
                                 Minutes(plan.estimate[i] / runs));
    if (const int cap_s = BenchCap(plan, i, elapsed); cap_s > 0) {
      std::cout << " expected, at most " << Minutes(cap_s) << " now"
                << (plan.self_check ? " (each of its two runs)" : "");
      elapsed += int64_t{cap_s} * runs;
    }
    std::cout << "\n";
  }
  std::cout << std::flush;
}

// ---- One bench ----------------------------------------------------------------

// What the suite keeps of the whole run.
struct SuiteTally {
  std::vector<std::string> failed, not_reproducible, discarded;
  std::vector<std::pair<std::string, int64_t>> took;
};

// The files a bench's run (or its self-check pair) writes, and the command.
std::vector<std::string> BenchArgs(const SuitePlan& plan, const Experiment& e, int cap_s) {
  std::vector<std::string> args = {RunfileOrExit(e.binary)};
  // Every row: a bench's default run measures only its answer's rows.
  args.push_back(plan.quick ? "--quick" : "--full");
  if (plan.processes > 0) args.push_back(absl::StrCat("--processes=", plan.processes));
  if (plan.rounds > 0) args.push_back(absl::StrCat("--benchmark_repetitions=", plan.rounds));
  if (cap_s > 0) args.push_back(absl::StrCat("--max_seconds=", cap_s));
  if (plan.quick && absl::GetFlag(FLAGS_keep_quick) && !plan.self_check) {
    args.push_back("--out=" + FullResultsPath(plan.workspace, e.name));
  }
  return args;
}

std::string SelfCheckOut(const SuitePlan& plan, const Experiment& e, int run) {
  if (!plan.keep_self_check)
    return absl::StrCat(plan.self_check_dir, "/", e.name, "-", run, ".json");
  const std::string full = FullResultsPath(plan.workspace, e.name);
  return run == 1 ? full : absl::StrCat(full.substr(0, full.size() - 5), ".rerun.json");
}

// Runs a bench once (twice with --self_check) with the lock handed down;
// fills `outs` with what it wrote under --self_check.
absl::StatusOr<ExitStatus> RunBenchOnce(const SuitePlan& plan, const Experiment& e, int lock_fd,
                                        int cap_s, std::vector<std::string>& outs) {
  absl::StatusOr<ExitStatus> status = absl::UnknownError("not run");
  outs.clear();
  for (int run = 1; run <= (plan.self_check ? 2 : 1) && !g_interrupted; ++run) {
    std::vector<std::string> args = BenchArgs(plan, e, cap_s);
    if (plan.self_check) {
      outs.push_back(SelfCheckOut(plan, e, run));
      args.push_back("--out=" + outs.back());
      std::cout << "[suite] " << e.name << ": run " << run << " of 2" << std::endl;
    }
    status = RunChild(args, lock_fd);
    if (!status.ok() || !status->success()) break;
  }
  return status;
}

// The reasons the files a bench just wrote are marked noisy ("" for none).
std::vector<std::string> NoisyFiles(const SuitePlan& plan, const Experiment& e,
                                    std::vector<std::string> written) {
  if (written.empty()) written.push_back(FullResultsPath(plan.workspace, e.name));
  std::vector<std::string> noisy;
  for (const std::string& path : written) {
    if (std::string why = NoisyReason(path); !why.empty()) {
      noisy.push_back(absl::StrCat(std::filesystem::path(path).filename().string(), ": ", why));
    }
  }
  return noisy;
}

// Compares a self-check pair with //analysis:compare --self_check.
void SelfCheck(const Experiment& e, const std::vector<std::string>& outs, SuiteTally& tally) {
  std::cout << "\n[suite] " << e.name << ": how far two runs agree\n" << std::endl;
  const std::string compare = RunfileOrExit("analysis/compare");
  absl::StatusOr<ExitStatus> s = RunChild({compare, "--self_check", outs[0], outs[1]});
  if (!s.ok() || !s->exited() || (s->exit_code() != 0 && s->exit_code() != 3)) {
    tally.failed.push_back(absl::StrCat(e.name, " (self-check)"));
  } else if (s->exit_code() == 3) {
    tally.not_reproducible.push_back(e.name);
  }
}

// A bench, measured again while noisy (--retry_noisy), then self-checked.
void RunBench(const SuitePlan& plan, const Experiment& e, int lock_fd, int cap_s,
              SuiteTally& tally) {
  const absl::Time t0 = absl::Now();
  absl::StatusOr<ExitStatus> status = absl::UnknownError("not run");
  std::vector<std::string> outs;
  // A smoke run is never worth measuring again.
  const int attempts = plan.quick ? 1 : 1 + std::max(0, absl::GetFlag(FLAGS_retry_noisy));
  for (int attempt = 1; attempt <= attempts && !g_interrupted; ++attempt) {
    if (absl::GetFlag(FLAGS_wait_quiet) > 0) WaitForQuiet(absl::GetFlag(FLAGS_wait_quiet), e.name);
    status = RunBenchOnce(plan, e, lock_fd, cap_s, outs);
    if (!status.ok() || !status->success() || attempt == attempts) break;
    const std::vector<std::string> noisy = NoisyFiles(plan, e, outs);
    if (noisy.empty()) break;
    tally.discarded.push_back(
        absl::StrCat(e.name, " attempt ", attempt, " (", absl::StrJoin(noisy, "; "), ")"));
    std::cout << "[suite] " << e.name << ": noisy (" << absl::StrJoin(noisy, "; ")
              << "): measuring again, attempt " << attempt + 1 << " of " << attempts << std::endl;
  }
  const bool ok = status.ok() && status->success();
  if (plan.self_check && ok && outs.size() == 2) SelfCheck(e, outs, tally);
  tally.took.emplace_back(e.name, absl::ToInt64Seconds(absl::Now() - t0));
  if (!ok) {
    tally.failed.push_back(e.name);
    std::cout << "[suite] " << e.name
              << " failed: " << (status.ok() ? status->ToString() : status.status().ToString())
              << std::endl;
  }
}

// ---- The end ------------------------------------------------------------------

int Conclude(const SuitePlan& plan, SuiteTally& tally, int64_t total) {
  // A self-check measures the machine, not the code: results/ and reports/
  // are left as they were.
  if (absl::GetFlag(FLAGS_report) && !g_interrupted && (!plan.self_check || plan.keep_self_check)) {
    std::cout << "\n[suite] regenerating reports/" << std::endl;
    std::vector<std::string> report = {RunfileOrExit("analysis/report")};
    if (!plan.against.empty()) {
      report.push_back(
          absl::StrCat("--changes=", plan.against, ":", KernelRelease(), "/", HostId()));
    }
    absl::StatusOr<ExitStatus> status = RunChild(report);
    if (!status.ok() || !status->success()) tally.failed.push_back("report");
  }
  std::cout << "\nsuite: " << (g_interrupted ? "interrupted after " : "") << Minutes(total)
            << " for " << tally.took.size() << " benches" << (plan.quick ? " (--quick)" : "")
            << "\n";
  for (const auto& [name, seconds] : tally.took) {
    std::cout << absl::StrFormat("  %-16s %s\n", name, Minutes(seconds));
  }
  if (plan.self_check) {
    std::cout << "self-check runs: "
              << (plan.keep_self_check
                      ? plan.workspace + "/results/ (each <experiment>.json and .rerun.json)"
                      : plan.self_check_dir + "/")
              << "\n";
    if (!tally.not_reproducible.empty()) {
      std::cout << "not reproducible within the targets now: "
                << absl::StrJoin(tally.not_reproducible, ", ") << "\n";
    }
  } else {
    std::cout << "results: " << plan.workspace << "/results/\nreports: " << plan.workspace
              << "/reports/README.md\n";
  }
  if (!tally.discarded.empty()) {
    std::cout << "discarded as noisy and measured again (--retry_noisy):\n  "
              << absl::StrJoin(tally.discarded, "\n  ") << "\n";
  }
  if (!tally.failed.empty()) std::cout << "failed: " << absl::StrJoin(tally.failed, ", ") << "\n";
  if (g_interrupted) return 130;
  return tally.failed.empty() ? 0 : 1;
}

}  // namespace

int SuiteMain(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Runs every spawnlab bench in turn under the machine's bench lock, then regenerates "
      "reports/.\n  bazel run //:suite [-- --quick] [-- --only=clone3,linking]");
  absl::ParseCommandLine(argc, argv);
  absl::StatusOr<SuitePlan> plan = MakeSuitePlan();
  if (!plan.ok()) {
    std::cerr << "error: " << plan.status().message() << "\n";
    return 2;
  }
  if (plan->self_check && !plan->keep_self_check) {
    // Kept after the run for the user to read, so not a TempDir.
    char tmpl[] = "/tmp/spawnlab-self-check-XXXXXX";
    if (mkdtemp(tmpl) == nullptr) {
      std::cerr << "error: mkdtemp: " << strerror(errno) << "\n";
      return 1;
    }
    plan->self_check_dir = tmpl;
  }
  PrintPlan(*plan);
  if (absl::GetFlag(FLAGS_dry_run)) return 0;
  absl::StatusOr<BenchLock> lock = BenchLock::Acquire(
      DefaultBenchLockPath(), "suite",
      plan->lock_mode == "fail" ? BenchLock::kFail : BenchLock::kWait, &std::cerr);
  if (!lock.ok()) {
    std::cerr << "error: " << lock.status().message() << "\n";
    return 3;
  }
  setenv(kInheritedLockEnv, absl::StrCat(lock->fd()).c_str(), 1);
  setenv(kInheritedLockHolderEnv, absl::StrCat(getpid()).c_str(), 1);
  // An interrupt is passed on to the running bench (Ctrl-C also reaches it
  // through the terminal's process group); the suite stops after it instead
  // of starting the next, and exits 130.
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) signal(sig, OnInterrupt);
  const absl::Time start = absl::Now();
  SuiteTally tally;
  int remaining = plan->total_estimate;
  for (size_t i = 0; i < plan->benches.size() && !g_interrupted; ++i) {
    const int64_t elapsed = absl::ToInt64Seconds(absl::Now() - start);
    const int cap_s = BenchCap(*plan, i, elapsed);
    std::cout << "\n[suite " << i + 1 << "/" << plan->benches.size() << "] "
              << plan->benches[i].name << ": elapsed " << Minutes(elapsed) << ", ETA "
              << Minutes(plan->budget_s > 0
                             ? std::clamp<int64_t>(plan->budget_s - elapsed, 0, remaining)
                             : remaining)
              << " to the end"
              << (cap_s > 0 ? absl::StrCat("; its share of the budget: ", cap_s,
                                           " s (--max_seconds)")
                            : "")
              << std::endl;
    RunBench(*plan, plan->benches[i], lock->fd(), cap_s, tally);
    remaining = std::max(0, remaining - plan->estimate[i]);
  }
  return Conclude(*plan, tally, absl::ToInt64Seconds(absl::Now() - start));
}

}  // namespace spawnlab

int main(int argc, char** argv) { return spawnlab::SuiteMain(argc, argv); }
