// bench.cc: see bench.h.

#include "bench/bench.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "bench/bench_lock.h"
#include "bench/bench_processes.h"
#include "bench/environment.h"
#include "bench/run_record.h"
#include "bench/stop_rule.h"
#include "lib/pin.h"
#include "lib/runfiles.h"
#include "lib/safe_file.h"
#include "lib/spawn.h"
#include "re2/re2.h"
#include "results_model/bench_name.h"
#include "results_model/bench_results.h"
#include "results_model/benchmark_json.h"
#include "results_model/context_keys.h"
#include "results_model/stopping.h"

ABSL_FLAG(bool, quick, false,
          "A smoke run of a few seconds: 2 repetitions, short rows. Writes "
          "<experiment>.quick.json, never over a full run.");
ABSL_FLAG(std::string, out, "",
          "Where to write the JSON results (relative to where `bazel run` was started). "
          "Default: $BUILD_WORKSPACE_DIRECTORY/results/<kernel-release>/<host>/<experiment>.json "
          "(.quick.json with --quick, .filtered.json with --benchmark_filter).");
ABSL_FLAG(std::string, cpu, "-1",
          "CPU to pin the bench to: a number, -1 for the last allowed CPU, or none.");
ABSL_FLAG(std::string, lock, "wait",
          "The machine's bench lock, so that one bench measures at a time: wait (for "
          "another bench to finish), fail (at once if one is running) or none.");
ABSL_FLAG(std::string, lock_file, "",
          "The lock file (default: $SPAWNLAB_LOCK_FILE, else /run/lock/spawnlab-bench.lock).");
ABSL_FLAG(int, processes, 0,
          "Measure in exactly this many fresh processes (1 to 100), one after another, each "
          "with its share of the rounds, merged into one results file: the process is the "
          "sample unit of //analysis:compare. 0: stop by the rule of --target and "
          "--max_seconds (1 process with --quick).");
ABSL_FLAG(bool, full, false,
          "Measure every row (the suite does), not only the rows of the bench's answer.");
ABSL_FLAG(double, target, 0,
          "Stop once every key ratio's 95% interval over processes is within this fraction "
          "of its estimate (0.01: ±1%), after at least 3 processes. 0: the bench's default.");
ABSL_FLAG(double, max_seconds, 0,
          "Start no process that would end after this many seconds from the first (at least 3 "
          "processes run). 0: the bench's default.");
ABSL_FLAG(bool, rows, false,
          "Print every row and every key ratio at the end, not only the bench's answer "
          "(its headline table and ratios).");
ABSL_FLAG(std::string, spawnlab_worker, "",
          "Internal: K/N, this is process K of N of a run made by its parent (--processes).");
ABSL_FLAG(std::string, spawnlab_rows, "",
          "Internal: measure only the rows this RE2 pattern matches (a run's processes after "
          "the third measure only the rows of its key ratios).");

namespace spawnlab {
namespace {

// Counts the rows reported and forwards to Google Benchmark's own reporter,
// or (the default console view) prints nothing: the table comes from the JSON
// at the end, one line per row.
class RowReporter : public benchmark::BenchmarkReporter {
 public:
  explicit RowReporter(benchmark::BenchmarkReporter* inner) : inner_(inner) {}
  bool ReportContext(const Context& context) override {
    return inner_ == nullptr || inner_->ReportContext(context);
  }
  void ReportRuns(const std::vector<Run>& runs) override {
    // Called with a row's repetitions and/or its aggregates, once the row (in
    // a run made in rounds, the row's round) is done.
    for (const Run& run : runs) repetitions_done_ += run.run_type == Run::RT_Iteration;
    if (inner_ != nullptr) inner_->ReportRuns(runs);
  }
  void Finalize() override {
    if (inner_ != nullptr) inner_->Finalize();
  }
  // Repetitions reported so far (the rows' rounds, in a run made in rounds).
  const std::atomic<int>* repetitions_done() const { return &repetitions_done_; }

 private:
  benchmark::BenchmarkReporter* inner_;
  std::atomic<int> repetitions_done_{0};
};

// What the progress line starts with: "[progress]", or in process K of a
// run made of several, "[progress, process K/N]".
std::string g_progress_prefix = "[progress]";

// Rows registered through Configure, over all rounds: the progress line's
// denominator.
std::atomic<int> rows_registered{0};

// Prints "[progress] 45 s: 120 of ~270 repetitions (44%), ETA ~57 s" to
// stderr every 15 s while the benchmarks run, counting `done`: a long row is
// silent for a while.
class ProgressTicker {
 public:
  // The thread starts with every signal blocked, so that a process-directed
  // signal a bench waits for (SIGCHLD through a signalfd) never lands here.
  explicit ProgressTicker(const std::atomic<int>* done) : done_(done), start_(absl::Now()) {
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    thread_ = std::thread([this] { Run(); });
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
  }
  ~ProgressTicker() {
    {
      absl::MutexLock lock(&mu_);
      stop_ = true;
    }
    thread_.join();
  }

 private:
  void Run() {
    absl::MutexLock lock(&mu_);
    while (!mu_.AwaitWithTimeout(absl::Condition(&stop_), absl::Seconds(15))) {
      const int64_t elapsed = absl::ToInt64Seconds(absl::Now() - start_);
      const int expected = rows_registered.load();
      const int done = done_->load();
      const double fraction =
          std::min(0.99, expected > 0 ? static_cast<double>(done) / expected : 0.0);
      std::cerr << g_progress_prefix << " " << elapsed << " s: " << done << " of ~" << expected
                << " repetitions (" << static_cast<int>(fraction * 100) << "%)";
      if (fraction > 0.05) {
        std::cerr << ", ETA ~" << static_cast<int64_t>(elapsed / fraction - elapsed) << " s";
      }
      std::cerr << std::endl;
    }
  }
  const std::atomic<int>* done_;
  const absl::Time start_;
  absl::Mutex mu_;
  bool stop_ = false;
  std::thread thread_;
};

// The most rounds (--benchmark_repetitions) and processes a run may ask for,
// and the longest repetition: every round registers every row anew, so an
// unbounded count runs the machine out of memory before the first row runs.
constexpr int kMaxRounds = 1000;
constexpr int kMaxProcesses = 100;
// The most processes a run that stops by itself starts (bench.h: target).
constexpr int kMaxAdaptiveProcesses = 30;
constexpr double kMaxSeconds = 24 * 3600;
constexpr double kMaxMinTime = 60;

std::string FormatTime(double value, absl::string_view unit) {
  // Three significant figures, in the row's unit.
  if (!std::isfinite(value)) return "—";
  int decimals = value >= 100 ? 0 : value >= 10 ? 1 : 2;
  return absl::StrFormat("%.*f %s", decimals, value, unit);
}

// The console view: one line per row from the finished JSON, and the key
// ratios paired by round.
void PrintSummary(const nlohmann::json& doc, const BenchDefaults& defaults, std::ostream& out) {
  struct Row {
    std::string name, unit, skipped, error;
    double median = NAN, min = NAN, cv = NAN;
    int n = 0;
    std::pair<int, int> order;  // family_index, per_family_instance_index
  };
  std::vector<Row> rows;
  std::map<std::string, size_t> index;
  for (const nlohmann::json& b : doc["benchmarks"]) {
    absl::StatusOr<BenchName> parsed = ParseBenchName(b.value("run_name", b.value("name", "")));
    const std::string name = parsed.ok() ? parsed->canonical : b.value("name", "");
    if (!index.count(name)) {
      index[name] = rows.size();
      rows.emplace_back();
      rows.back().name = name;
      rows.back().order = {b.value("family_index", 0), b.value("per_family_instance_index", 0)};
    }
    Row& r = rows[index[name]];
    if (b.value("error_occurred", false)) {
      std::string m = b.value("error_message", "");
      (absl::StartsWith(m, kSkippedPrefix) ? r.skipped : r.error) = m;
      continue;
    }
    auto value = [&b] {
      return b.contains("real_time") && b["real_time"].is_number() ? b["real_time"].get<double>()
                                                                   : NAN;
    };
    r.unit = b.value("time_unit", "");
    const std::string agg = b.value("aggregate_name", "");
    if (agg == "median") r.median = value();
    if (agg == "min") r.min = value();
    if (agg == "cv") r.cv = value();
    if (b.value("run_type", "") == "iteration") ++r.n;
  }
  // In the order the bench registered them (an interleaved run writes them
  // in the order their last round happened to end).
  std::map<std::string, std::pair<int, int>> order;
  for (const Row& r : rows) order[r.name] = r.order;
  std::stable_sort(rows.begin(), rows.end(),
                   [](const Row& a, const Row& b) { return a.order < b.order; });
  size_t width = 20;
  for (const Row& r : rows) width = std::max(width, r.name.size());
  out << absl::StrFormat("%-*s %12s %12s %7s %4s\n", width, "row", "median", "min", "cv", "n");
  for (const Row& r : rows) {
    if (!r.error.empty()) {
      out << absl::StrFormat("%-*s FAILED: %s\n", width, r.name, r.error);
    } else if (!r.skipped.empty()) {
      out << absl::StrFormat("%-*s %s\n", width, r.name, r.skipped);
    } else {
      out << absl::StrFormat("%-*s %12s %12s %6.1f%% %4d\n", width, r.name,
                             FormatTime(r.median, r.unit), FormatTime(r.min, r.unit), 100 * r.cv,
                             r.n);
    }
  }
  for (const RatioBaseline& by : defaults.ratio_baselines) {
    std::vector<PairedRatio> ratios = PairedRatios(doc, by);
    std::stable_sort(ratios.begin(), ratios.end(),
                     [&order](const PairedRatio& a, const PairedRatio& b) {
                       return order[a.row] < order[b.row];
                     });
    if (!ratios.empty()) {
      out << "\nkey ratios: each row over the row with " << by.dimension << ":" << by.value
          << ", taken within each round, then the median and a 95% interval over rounds\n";
      for (const PairedRatio& r : ratios) {
        out << absl::StrFormat("%-*s %7.3f  [%.3f, %.3f]  %d rounds\n", width, r.row, r.median,
                               r.low, r.high, r.rounds);
      }
    }
  }
}

// The temporary results file and its private folder, removed if the run is
// interrupted: a signal handler may only use what is async-signal-safe, so
// fixed buffers.
char g_tmp_path[4096];
char g_tmp_dir[4096];

void RemoveTmpAndDie(int sig) {
  if (g_tmp_path[0] != '\0') unlink(g_tmp_path);
  if (g_tmp_dir[0] != '\0') rmdir(g_tmp_dir);
  signal(sig, SIG_DFL);
  raise(sig);
}

// ---- Phase 1: the command line ----------------------------------------------

// The command line split in two: Google Benchmark's flags (--benchmark_*),
// read once here by name, and spawnlab's, for Abseil.
struct CommandLine {
  std::vector<std::string> args;          // as given, argv[0] first
  std::vector<std::string> gb_args;       // --benchmark_*, as given
  std::vector<std::string> own_args;      // the rest, argv[0] first
  std::map<std::string, std::string> gb;  // "benchmark_*" -> value (the last given)
  std::string help;                       // a help flag, if one was given

  std::optional<std::string> Gb(const std::string& name) const {
    auto it = gb.find(name);
    if (it == gb.end()) return std::nullopt;
    return it->second;
  }
  bool GbBool(const std::string& name) const {
    const std::string v = Gb(name).value_or("false");
    return v != "false" && v != "0" && v != "no";
  }
};

CommandLine SplitCommandLine(int argc, char** argv) {
  CommandLine cl;
  cl.args.assign(argv, argv + argc);
  cl.own_args.push_back(cl.args[0]);
  for (size_t i = 1; i < cl.args.size(); ++i) {
    absl::string_view a = cl.args[i];
    if (a == "--help" || a == "-help" || a == "--helpfull" || a == "--helpshort" || a == "-h") {
      cl.help = a == "-h" ? "--help" : std::string(a);
      continue;
    }
    absl::string_view name = a;
    if (!absl::ConsumePrefix(&name, "--benchmark_") && !absl::ConsumePrefix(&name, "-benchmark_")) {
      cl.own_args.push_back(cl.args[i]);
      continue;
    }
    cl.gb_args.push_back(cl.args[i]);
    const size_t eq = name.find('=');
    cl.gb[absl::StrCat("benchmark_", name.substr(0, eq))] =
        eq == absl::string_view::npos ? "true" : std::string(name.substr(eq + 1));
  }
  return cl;
}

void SetUsage(absl::string_view experiment) {
  absl::SetProgramUsageMessage(absl::StrCat(
      "spawnlab bench '", experiment,
      "': measures, then writes Google Benchmark JSON with the machine's record.\n"
      "Google Benchmark's own --benchmark_* flags work too (--benchmark_filter=REGEX, "
      "--benchmark_repetitions=N (rounds, 1 to ",
      kMaxRounds,
      "), --benchmark_min_time=S, "
      "--benchmark_format=console|json|csv, --benchmark_color, --benchmark_counters_tabular, "
      "--benchmark_list_tests, ...)."));
  // --help lists spawnlab's flags (this file's and the bench's own), not Abseil's.
  absl::FlagsUsageConfig usage;
  usage.contains_help_flags = [](absl::string_view file) {
    return absl::StartsWith(file, "bench/") || absl::StrContains(file, "experiments/");
  };
  usage.contains_helpshort_flags = usage.contains_help_flags;
  absl::SetFlagsUsageConfig(usage);
}

// Parses spawnlab's flags with Abseil, which prints --help and exits.
absl::Status ParseOwnFlags(const CommandLine& cl) {
  std::vector<std::string> own = cl.own_args;
  if (!cl.help.empty()) own.push_back(cl.help);
  std::vector<char*> argv;
  for (std::string& a : own) argv.push_back(a.data());
  std::vector<char*> rest = absl::ParseCommandLine(static_cast<int>(argv.size()), argv.data());
  if (rest.size() > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("unexpected argument '", rest[1], "' (see --help)"));
  }
  return absl::OkStatus();
}

// ---- Phase 2: the plan -------------------------------------------------------

// What this process will do, from the command line and the bench's defaults.
struct Plan {
  std::string experiment;
  bool quick = false, list_tests = false;
  bool we_write = false;     // spawnlab writes the results file (not the user's --benchmark_out)
  bool own_display = false;  // Google Benchmark's reporter shows the rows
  std::optional<std::string> filter, format;
  int worker = 0, workers = 0;  // process K of N of a run made by its parent
  int processes = 1;            // how many processes this one runs (1: it measures)
  bool adaptive = false;        // processes is a most: the stopping rule ends the run
  double target = 0, max_seconds = 0;
  double own_max_seconds = 0;  // the bench's cap for this kind of run (--max_seconds aside)
  int rounds = 1;
  int rounds_per_process = 1;
  bool headline_rows = false;  // only the bench's default_rows (no --full, no filter)
  // The key ratios are the answer's rows' (default_rows): a bench with an
  // answer, in a run the user did not filter (which has its own rows').
  bool answer_ratios = false;
  std::string default_rows;
  std::string worker_rows;  // --spawnlab_rows: only these rows (a pattern), else all

  double min_time = 0;
  std::string run_kind, out, pinned = "none", lock_mode, lock_file;
  int argc = 0;
  char** argv = nullptr;
};

absl::Status ParseWorker(Plan& plan) {
  plan.worker_rows = absl::GetFlag(FLAGS_spawnlab_rows);
  if (!plan.worker_rows.empty() && !RE2(plan.worker_rows, RE2::Quiet).ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--spawnlab_rows=", plan.worker_rows, ": not a regular expression"));
  }
  const std::string w = absl::GetFlag(FLAGS_spawnlab_worker);
  if (w.empty()) return absl::OkStatus();
  std::vector<std::string> kn = absl::StrSplit(w, '/');
  if (kn.size() != 2 || !absl::SimpleAtoi(kn[0], &plan.worker) ||
      !absl::SimpleAtoi(kn[1], &plan.workers) || plan.worker < 1 || plan.worker > plan.workers) {
    return absl::InvalidArgumentError(
        absl::StrCat("--spawnlab_worker=", w, ": expected K/N with 1 <= K <= N"));
  }
  return absl::OkStatus();
}

// The stopping rule of a run that sets no --processes: as many processes as
// it takes, each with the rounds the bench's default plan gives one.
absl::Status PlanStopping(const BenchDefaults& defaults, int asked, Plan& plan) {
  const double target = absl::GetFlag(FLAGS_target);
  const double max_seconds = absl::GetFlag(FLAGS_max_seconds);
  if (!(target >= 0 && target <= 1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--target=", target, ": expected a fraction from 0 to 1 (0.01: ±1%; 0: the default)"));
  }
  if (!(max_seconds >= 0 && max_seconds <= kMaxSeconds)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--max_seconds=", max_seconds, ": expected 0 (the default) to ", kMaxSeconds));
  }
  if (asked > 0 && (target > 0 || max_seconds > 0)) {
    return absl::InvalidArgumentError(
        "--target and --max_seconds set when a run stops; --processes=N fixes it at N "
        "processes: give one or the other");
  }
  plan.target = target > 0 ? target : defaults.target;
  // A run of every row of a bench with an answer has a cap of its own (bench.h).
  const bool every_row = plan.answer_ratios && !plan.headline_rows;
  plan.own_max_seconds =
      every_row && defaults.full_max_seconds > 0 ? defaults.full_max_seconds : defaults.max_seconds;
  plan.max_seconds = max_seconds > 0 ? max_seconds : plan.own_max_seconds;
  if (asked > 0 || plan.processes <= 1) return absl::OkStatus();
  plan.adaptive = true;
  const int default_processes = std::max(1, defaults.processes);
  plan.rounds_per_process = (plan.rounds + default_processes - 1) / default_processes;
  plan.processes = kMaxAdaptiveProcesses;
  return absl::OkStatus();
}

// Rounds, minimum time and processes, each within its documented bounds.
absl::Status PlanSizes(const CommandLine& cl, const BenchDefaults& defaults, Plan& plan) {
  plan.rounds = plan.quick ? 2 : std::max(1, defaults.rounds);
  if (std::optional<std::string> r = cl.Gb("benchmark_repetitions")) {
    if (!absl::SimpleAtoi(*r, &plan.rounds) || plan.rounds < 1 || plan.rounds > kMaxRounds) {
      return absl::InvalidArgumentError(
          absl::StrCat("--benchmark_repetitions=", *r,
                       ": expected a whole number of rounds from 1 to ", kMaxRounds));
    }
  }
  if (plan.list_tests) plan.rounds = 1;
  plan.min_time = plan.quick ? defaults.quick_min_time : defaults.min_time;
  if (std::optional<std::string> t = cl.Gb("benchmark_min_time")) {
    if (!absl::SimpleAtod(*t, &plan.min_time) || !(plan.min_time > 0) ||
        plan.min_time > kMaxMinTime) {
      return absl::InvalidArgumentError(absl::StrCat("--benchmark_min_time=", *t,
                                                     ": expected seconds, more than 0 and at most ",
                                                     kMaxMinTime));
    }
  }
  const int asked = absl::GetFlag(FLAGS_processes);
  if (asked < 0 || asked > kMaxProcesses) {
    return absl::InvalidArgumentError(absl::StrCat("--processes=", asked, ": expected 1 to ",
                                                   kMaxProcesses, " (0: the bench's default)"));
  }
  plan.processes = asked > 0                       ? asked
                   : plan.quick || plan.worker > 0 ? 1
                                                   : std::max(1, defaults.processes);
  if (plan.processes > 1 && (!plan.we_write || plan.own_display)) {
    if (asked > 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--processes=", asked,
          " merges the processes' results into spawnlab's own file; it does not go with "
          "--benchmark_out, --benchmark_format or --benchmark_list_tests"));
    }
    plan.processes = 1;
  }
  plan.processes = std::min(plan.processes, plan.rounds);
  plan.rounds_per_process = (plan.rounds + plan.processes - 1) / plan.processes;
  return PlanStopping(defaults, asked, plan);
}

// Where the results go: never over a full run unless --out says so, never
// through a link, never into a directory (found now, not after the run).
absl::Status PlanOutput(Plan& plan) {
  plan.run_kind = plan.quick           ? "quick"
                  : plan.filter        ? "filtered"
                  : plan.headline_rows ? "headline"
                                       : "full";
  plan.out = FromWorkingDirectory(absl::GetFlag(FLAGS_out));
  if (plan.out.empty()) {
    const char* workspace = std::getenv("BUILD_WORKSPACE_DIRECTORY");
    plan.out = DefaultResultsPath(workspace != nullptr ? workspace : "", plan.experiment,
                                  plan.run_kind == "full" ? "" : absl::StrCat(".", plan.run_kind));
  }
  if (!plan.we_write) return absl::OkStatus();
  std::error_code ec;
  const std::filesystem::path folder = std::filesystem::path(plan.out).parent_path();
  if (!folder.empty()) std::filesystem::create_directories(folder, ec);
  if (ec) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot create the folder for ", plan.out, ": ", ec.message()));
  }
  absl::StatusOr<WriteTarget> target = CheckWriteTarget(plan.out);
  if (!target.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--out: ", target.status().message()));
  }
  return absl::OkStatus();
}

absl::Status PlanCpu(Plan& plan) {
  const std::string flag = absl::GetFlag(FLAGS_cpu);
  if (flag == "none") return absl::OkStatus();
  int cpu;
  if (!absl::SimpleAtoi(flag, &cpu)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--cpu=", flag, ": expected a CPU number, -1 or none"));
  }
  absl::StatusOr<int> got = PinToCpu(cpu);
  if (!got.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--cpu: ", got.status().ToString()));
  }
  plan.pinned = absl::StrCat(*got);
  return absl::OkStatus();
}

absl::StatusOr<Plan> MakePlan(const CommandLine& cl, absl::string_view experiment,
                              const BenchDefaults& defaults) {
  Plan plan;
  plan.experiment = std::string(experiment);
  plan.quick = absl::GetFlag(FLAGS_quick);
  plan.list_tests = cl.GbBool("benchmark_list_tests");
  plan.filter = cl.Gb("benchmark_filter");
  plan.answer_ratios = !plan.filter && !defaults.default_rows.empty();
  plan.headline_rows = plan.answer_ratios && !plan.quick && !absl::GetFlag(FLAGS_full);
  plan.default_rows = defaults.default_rows;
  plan.format = cl.Gb("benchmark_format");
  if (plan.format && *plan.format != "console" && *plan.format != "json" && *plan.format != "csv") {
    return absl::InvalidArgumentError(
        absl::StrCat("--benchmark_format=", *plan.format, ": expected console, json or csv"));
  }
  plan.we_write = !cl.Gb("benchmark_out") && !plan.list_tests;
  plan.own_display = plan.format || cl.Gb("benchmark_out") || plan.list_tests;
  plan.lock_mode = absl::GetFlag(FLAGS_lock);
  if (plan.lock_mode != "wait" && plan.lock_mode != "fail" && plan.lock_mode != "none") {
    return absl::InvalidArgumentError(
        absl::StrCat("--lock=", plan.lock_mode, ": expected wait, fail or none"));
  }
  plan.lock_file = absl::GetFlag(FLAGS_lock_file);
  if (absl::Status s = ParseWorker(plan); !s.ok()) return s;
  if (absl::Status s = PlanSizes(cl, defaults, plan); !s.ok()) return s;
  if (absl::Status s = PlanOutput(plan); !s.ok()) return s;
  if (absl::Status s = PlanCpu(plan); !s.ok()) return s;
  if (defaults.check_flags) {
    if (absl::Status s = defaults.check_flags(); !s.ok()) return s;
  }
  return plan;
}

// Google Benchmark's flags: spawnlab's settings, then the user's, which win
// (it takes the last of each), but for the repetitions: a run is made of
// rounds, each row registered once per round and run once.
std::vector<std::string> GoogleBenchmarkArgs(const CommandLine& cl, const Plan& plan,
                                             const std::string& tmp) {
  std::vector<std::string> a = {cl.args[0], "--benchmark_display_aggregates_only=true",
                                absl::StrCat("--benchmark_min_time=", plan.min_time)};
  for (const std::string& arg : cl.gb_args) {
    if (!absl::StrContains(arg, "benchmark_repetitions") &&
        !absl::StrContains(arg, "benchmark_enable_random_interleaving") &&
        !absl::StrContains(arg, "benchmark_min_time")) {
      a.push_back(arg);
    }
  }
  if (plan.headline_rows) a.push_back("--benchmark_filter=" + plan.default_rows);
  a.push_back("--benchmark_repetitions=1");
  a.push_back("--benchmark_enable_random_interleaving=false");
  if (plan.we_write) {
    a.push_back(absl::StrCat("--benchmark_out=", tmp));
    a.push_back("--benchmark_out_format=json");
  }
  return a;
}

// ---- Phase 3: the rounds -----------------------------------------------------

void AddRunContext(const Plan& plan, const BenchDefaults& defaults) {
  if (plan.worker > 0) {
    benchmark::AddCustomContext(keys::kProcess, absl::StrCat(plan.worker, "/", plan.workers));
  }
  for (const auto& [key, value] : CollectEnvironment()) benchmark::AddCustomContext(key, value);
  benchmark::AddCustomContext(keys::kExperiment, plan.experiment);
  benchmark::AddCustomContext(keys::kQuick, plan.quick ? "true" : "false");
  benchmark::AddCustomContext(keys::kRunKind, plan.run_kind);
  if (plan.filter) benchmark::AddCustomContext(keys::kFilter, *plan.filter);
  benchmark::AddCustomContext(keys::kPinnedCpu, plan.pinned);
  benchmark::AddCustomContext(keys::kRandomInterleaving, "false");
  benchmark::AddCustomContext(keys::kRounds, absl::StrCat(plan.rounds));
  if (plan.worker == 0) {  // a run of this one process (a merged run says its own plan)
    benchmark::AddCustomContext(keys::kProcesses, "1");
    benchmark::AddCustomContext(keys::kStoppingRule,
                                plan.quick ? "fixed: one process (--quick)" : "fixed: one process");
  }
  // The answer's declaration, so that the report's findings show the table
  // the bench's last screen did.
  if (!defaults.headline.empty()) {
    benchmark::AddCustomContext(keys::kHeadline, HeadlineToJson(defaults.headline).dump());
  }
  // The key ratios' baseline, so that //analysis:compare --self_check finds
  // the ratios to compare without being told.
  if (!defaults.ratio_baselines.empty()) {
    benchmark::AddCustomContext(
        keys::kRatioBaseline,
        absl::StrJoin(defaults.ratio_baselines, ",", [](std::string* out, const RatioBaseline& by) {
          absl::StrAppend(out, by.dimension, ":", by.value);
        }));
    if (!defaults.ratio_baselines[0].rows.empty()) {
      benchmark::AddCustomContext(keys::kKeyRows, defaults.ratio_baselines[0].rows);
    }
  }
}

// Registers every row once per round; returns the rows in their natural order.
std::vector<std::string> RegisterRounds(const Plan& plan,
                                        const std::function<void(const BenchOptions&)>& reg) {
  BenchOptions options;
  options.quick = plan.quick;
  options.min_time = plan.min_time;
  options.rounds = plan.rounds;
  options.argc = plan.argc;
  options.argv = plan.argv;
  if (plan.headline_rows) options.row_filter = plan.default_rows;
  if (!plan.worker_rows.empty()) options.row_filter = plan.worker_rows;
  if (plan.worker > 0) options.shuffle_offset = (plan.worker - 1) * plan.rounds;
  std::vector<std::string> row_order;
  for (int r = 0; r < plan.rounds; ++r) {
    options.round = r;
    options.row_order = r == 0 ? &row_order : nullptr;
    reg(options);
  }
  return row_order;
}

// Google Benchmark's own reporter, when a format was asked for (or the user
// took the file); else none: spawnlab prints one line per row at the end.
std::unique_ptr<benchmark::BenchmarkReporter> UserReporter(const CommandLine& cl,
                                                           const Plan& plan) {
  if (!plan.own_display) return nullptr;
  const std::string format = plan.format.value_or("console");
  if (format == "json") return std::make_unique<benchmark::JSONReporter>();
  if (format == "csv") {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    return std::make_unique<benchmark::CSVReporter>();  // deprecated upstream, still the format
#pragma GCC diagnostic pop
  }
  int output = benchmark::ConsoleReporter::OO_None;
  const std::string color = cl.Gb("benchmark_color").value_or("auto");
  const char* term = std::getenv("TERM");
  if (color == "true" || color == "yes" || color == "1" ||
      (color == "auto" && isatty(STDOUT_FILENO) && term != nullptr &&
       std::string(term) != "dumb")) {
    output |= benchmark::ConsoleReporter::OO_Color;
  }
  if (cl.GbBool("benchmark_counters_tabular")) output |= benchmark::ConsoleReporter::OO_Tabular;
  // Debian's libbenchmark was built without NDEBUG and its console header
  // says so; the timing loop is inline in this bench, compiled -O2.
  std::cerr << "(Google Benchmark's \"Library was built as DEBUG\" below is about Debian's "
               "build of the library's bookkeeping; the timed loop is compiled into this "
               "bench, optimised.)"
            << std::endl;
  return std::make_unique<benchmark::ConsoleReporter>(
      static_cast<benchmark::ConsoleReporter::OutputOptions>(output));
}

struct Measured {
  size_t matched = 0;
  MachineSample before, after;
};

// Runs every registered row, with progress on stderr.
Measured RunRounds(const Plan& plan, benchmark::BenchmarkReporter* inner,
                   const BenchDefaults& defaults) {
  RowReporter reporter(inner);
  if (plan.worker == 0 && !plan.own_display) {
    std::cout << plan.experiment << ": " << rows_registered.load() / plan.rounds << " rows in "
              << plan.rounds << " rounds, each round every row once, shuffled"
              << (plan.filter ? " (registered; --benchmark_filter picks among them)" : "")
              << ", pinned to CPU " << plan.pinned << "; results: " << plan.out << std::endl;
  }
  Measured m;
  m.before = SampleMachine();
  {
    ProgressTicker ticker(reporter.repetitions_done());
    m.matched = benchmark::RunSpecifiedBenchmarks(&reporter);
  }
  if (defaults.after_run) defaults.after_run();
  m.after = SampleMachine();
  benchmark::Shutdown();
  return m;
}

// ---- Phase 4: the results file -------------------------------------------------

// Reads what Google Benchmark wrote to `tmp`, merges the rounds, adds the
// run's record and writes it over plan.out whole. FailedPrecondition when no
// row measured.
absl::StatusOr<nlohmann::json> WriteResults(const Plan& plan, const std::string& tmp,
                                            const std::vector<std::string>& row_order,
                                            const Measured& m, const std::string& lock_story,
                                            const BenchDefaults& defaults) {
  absl::StatusOr<nlohmann::json> read = ReadBenchmarkJsonFile(tmp);
  if (!read.ok() || !read->contains("context")) {
    return absl::DataLossError(absl::StrCat("Google Benchmark wrote no readable JSON (",
                                            read.ok() ? "no context" : read.status().message(),
                                            "); ", plan.out, " is as it was"));
  }
  nlohmann::json& doc = *read;
  MergeRounds(doc, row_order);
  const RowCounts counts = CountRows(doc);
  if (counts.measured == 0) {
    if (!plan.own_display) PrintSummary(doc, defaults, std::cout);
    return absl::FailedPreconditionError(
        absl::StrCat("no row measured (", counts.skipped, " skipped, ", counts.failed,
                     " failed); nothing written, ", plan.out, " is as it was"));
  }
  nlohmann::json& context = doc["context"];
  context.erase("host_name");  // the machine's name: spawnlab records host.id instead
  for (const auto& [key, value] : DescribeRun(m.before, m.after)) context[key] = value;
  context["run.lock"] = lock_story;
  RecordNoise(doc, defaults.canary_row);
  if (absl::Status s = WriteFileAtomically(plan.out, doc.dump(2) + "\n"); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat(s.message(), "; ", plan.out, " is as it was"));
  }
  return doc;
}

// ---- Phase 5: the answer -------------------------------------------------------

// The last screen: the rows (unless Google Benchmark's reporter showed them),
// the run, where the results went; returns the exit code.
int Conclude(const Plan& plan, const nlohmann::json& doc, const BenchDefaults& defaults,
             absl::string_view how) {
  const RowCounts counts = CountRows(doc);
  const nlohmann::json& context = doc["context"];
  std::ostream& say = plan.own_display ? std::cerr : std::cout;
  if (!plan.own_display) {
    // The answer last, where the user looks; every row behind --rows.
    const bool answered = !absl::GetFlag(FLAGS_rows) && !defaults.headline.empty() &&
                          PrintHeadline(ResultsOf(doc), defaults.headline, say);
    if (!answered) PrintSummary(doc, defaults, say);
    if (answered)
      say << "\n(every row and key ratio: --rows; everything: the results file below)\n";
  }
  // The noise verdict can run long: its reasons one to a line.
  say << "\nrun: " << context.value("run.seconds", "?") << " s" << how << "\nnoisy: "
      << absl::StrReplaceAll(context.value("run.noisy", "?"), {{"; ", ";\n  "}})
      << "\nresults: " << plan.out << " ("
      << plan.run_kind << " run: " << counts.measured << " rows measured, " << counts.skipped
      << " skipped, " << counts.failed << " failed)" << std::endl;
  if (counts.failed > 0 || context.value("run.a_process_failed", "") == "yes") {
    std::cerr << "error: " << counts.failed << " row(s) failed; see error_message in the JSON\n";
    return 1;
  }
  return 0;
}

// What the last run of this kind here took, read from the results file it
// left at plan.out: "" if there is none to read.
std::string LastRunHere(const Plan& plan) {
  const absl::StatusOr<nlohmann::json> doc = ReadBenchmarkJsonFile(plan.out);
  if (!doc.ok() || !doc->contains("context")) return "";
  const nlohmann::json& c = (*doc)["context"];
  double seconds = 0;
  if (!absl::SimpleAtod(c.value("run.seconds", ""), &seconds)) return "";
  return absl::StrFormat("about %.0f s, as the last %s run here (%s processes, stopped by %s)",
                         seconds, plan.run_kind, c.value(keys::kProcesses, "?"),
                         c.value(keys::kStoppedBy, "a fixed plan"));
}

// The parent of a run made of fresh processes (a fixed plan.processes of
// them, or as many as the stopping rule takes): runs them and writes their
// merged results.
int RunInProcesses(const CommandLine& cl, const Plan& plan, const std::string& lock_story,
                   const BenchDefaults& defaults) {
  const int per_process = plan.rounds_per_process;
  if (plan.adaptive) {
    const std::string last = LastRunHere(plan);
    std::cout << plan.experiment << ": processes of " << per_process
              << " rounds, one after another, until every key ratio's 95% interval is within ±"
              << 100 * plan.target << "% (at least " << kMinProcesses << " processes, at most "
              << plan.max_seconds << " s), pinned to CPU " << plan.pinned
              << (plan.headline_rows ? "; the answer's rows only (every row: --full)" : "")
              << "\n  expect " << (last.empty() ? "at most that (no earlier run here)" : last)
              << "\n  results: " << plan.out << std::endl;
  } else {
    std::cout << plan.experiment << ": " << plan.processes << " processes, one after another, "
              << "each " << per_process << " rounds, pinned to CPU " << plan.pinned
              << "; results: " << plan.out << std::endl;
  }
  const std::vector<std::string> flags = {
      "--processes",       "--out",           "--lock",   "--lock_file",  "--benchmark_repetitions",
      "--spawnlab_worker", "--spawnlab_rows", "--target", "--max_seconds"};
  const StopLimits limits{plan.target, plan.processes, plan.max_seconds, plan.own_max_seconds};
  StopRecord record;
  absl::StatusOr<nlohmann::json> merged = RunProcesses(
      WithoutFlags(cl.args, flags), plan.processes, plan.out,
      [&plan, &record, per_process](int k, const std::string& part) {
        std::vector<std::string> args = {
            absl::StrCat("--spawnlab_worker=", k, "/", plan.processes), "--processes=1",
            absl::StrCat("--benchmark_repetitions=", per_process), "--lock=none", "--out=" + part};
        if (k > kMinProcesses && !record.later_rows.empty()) {
          args.push_back("--spawnlab_rows=" + record.later_rows);
        }
        return args;
      },
      defaults.canary_row,
      plan.adaptive ? MakeStopRule(limits, defaults.ratio_baselines, defaults.canary_row, &record)
                    : StopRule());
  if (!merged.ok()) {
    std::cerr << "error: " << merged.status().message() << "; nothing written, " << plan.out
              << " is as it was\n";
    return absl::IsInvalidArgument(merged.status()) ? 2 : 1;
  }
  nlohmann::json& context = (*merged)["context"];
  int processes = 0;
  absl::SimpleAtoi(context.value(keys::kProcesses, ""), &processes);
  context["run.lock"] = lock_story;
  context[keys::kRepetitionsPerProcess] = absl::StrCat(per_process);
  context[keys::kRunKind] = plan.run_kind;
  context[keys::kRounds] = absl::StrCat(processes * per_process);
  RecordStopping(limits, plan.adaptive, record, *merged, defaults.ratio_baselines, &context);
  if (absl::Status s = WriteFileAtomically(plan.out, merged->dump(2) + "\n"); !s.ok()) {
    std::cerr << "error: " << s.message() << "; " << plan.out << " is as it was\n";
    return 1;
  }
  return Conclude(plan, *merged, defaults, absl::StrCat(" in ", processes, " processes"));
}

// Measures in this process: registers the rounds, runs them into a file in a
// private folder, and writes the results file from it.
int RunHere(const CommandLine& cl, const Plan& plan, const std::string& lock_story,
            const BenchDefaults& defaults, const std::function<void(const BenchOptions&)>& reg) {
  std::optional<TempDir> scratch;
  std::string tmp;
  if (plan.we_write) {
    absl::StatusOr<TempDir> made = TempDir::Make("spawnlab-bench");
    if (!made.ok() || made->path().size() + 10 >= sizeof(g_tmp_path)) {
      std::cerr << "error: a private folder for the raw results: "
                << (made.ok() ? "$TMPDIR is too long" : made.status().ToString()) << "\n";
      return 1;
    }
    scratch.emplace(*std::move(made));
    tmp = scratch->path() + "/raw.json";
    // From now on an interrupt removes the folder: registering the rounds
    // (the environment record runs commands) can take seconds.
    memcpy(g_tmp_path, tmp.c_str(), tmp.size() + 1);
    memcpy(g_tmp_dir, scratch->path().c_str(), scratch->path().size() + 1);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) signal(sig, RemoveTmpAndDie);
  }
  std::vector<std::string> gb = GoogleBenchmarkArgs(cl, plan, tmp);
  std::vector<char*> gb_argv;
  for (std::string& a : gb) gb_argv.push_back(a.data());
  int gb_argc = static_cast<int>(gb_argv.size());
  benchmark::Initialize(&gb_argc, gb_argv.data());
  if (benchmark::ReportUnrecognizedArguments(gb_argc, gb_argv.data())) return 2;

  AddRunContext(plan, defaults);
  const std::vector<std::string> row_order = RegisterRounds(plan, reg);
  std::unique_ptr<benchmark::BenchmarkReporter> inner = UserReporter(cl, plan);
  const Measured m = RunRounds(plan, inner.get(), defaults);
  if (plan.list_tests) return 0;
  if (m.matched == 0) {
    std::cerr << "error: no row ran: --benchmark_filter=" << plan.filter.value_or("")
              << " matched no row or is not a valid regular expression (see the message "
                 "above). Nothing was written"
              << (plan.we_write && plan.worker == 0 ? absl::StrCat("; ", plan.out, " is as it was")
                                                    : "")
              << ".\n";
    return 2;
  }
  if (!plan.we_write) return 0;  // the user's own --benchmark_out, as Google Benchmark wrote it
  absl::StatusOr<nlohmann::json> doc = WriteResults(plan, tmp, row_order, m, lock_story, defaults);
  if (!doc.ok()) {
    std::cerr << "error: " << doc.status().message() << "\n";
    return 1;
  }
  if (plan.worker > 0) return CountRows(*doc).failed > 0 ? 1 : 0;
  return Conclude(plan, *doc, defaults, "");
}

}  // namespace

benchmark::internal::Benchmark* Configure(benchmark::internal::Benchmark* b,
                                          const BenchOptions& /*options*/, Clock clock) {
  ++rows_registered;
  b->ComputeStatistics("min",
                       [](const std::vector<double>& v) { return v.empty() ? 0.0 : Min(v); });
  if (clock == Clock::kManual) return b->UseManualTime()->Unit(benchmark::kMicrosecond);
  return b->Unit(benchmark::kNanosecond);
}

std::vector<benchmark::internal::Benchmark*> RegisterRound(const BenchOptions& options,
                                                           std::vector<RoundRow> rows) {
  if (!options.row_filter.empty()) {
    const RE2 filter(options.row_filter);
    rows.erase(std::remove_if(rows.begin(), rows.end(),
                              [&](const RoundRow& r) {
                                return filter.ok() && !RE2::PartialMatch(r.name, filter);
                              }),
               rows.end());
  }
  if (options.row_order != nullptr) {
    for (const RoundRow& r : rows) options.row_order->push_back(r.name);
  }
  ShuffleForRound(rows, options.round + options.shuffle_offset);
  std::vector<benchmark::internal::Benchmark*> registered;
  for (RoundRow& r : rows) {
    benchmark::internal::Benchmark* b =
        Configure(benchmark::RegisterBenchmark(r.name.c_str(), std::move(r.run)), options, r.clock);
    if (r.configure) r.configure(b);
    registered.push_back(b);
  }
  return registered;
}

void SkipRow(benchmark::State& state, const absl::Status& why) {
  state.SkipWithError(absl::StrCat(kSkippedPrefix, why.message()).c_str());
}

void FailRow(benchmark::State& state, const absl::Status& error) {
  state.SkipWithError(error.ToString().c_str());
}

std::string DefaultResultsPath(absl::string_view root, absl::string_view experiment,
                               absl::string_view suffix) {
  return absl::StrCat(root, root.empty() ? "" : "/", "results/", KernelRelease(), "/", HostId(),
                      "/", experiment, suffix, ".json");
}

std::string FromWorkingDirectory(const std::string& path) {
  const char* cwd = std::getenv("BUILD_WORKING_DIRECTORY");
  if (path.empty() || path[0] == '/' || cwd == nullptr || *cwd == '\0') return path;
  return absl::StrCat(cwd, "/", path);
}

}  // namespace spawnlab

// The experiment's report.json, compiled into its bench by spawnlab_bench
// (bench.bzl); absent (null) in a binary built without one.
extern "C" const char kSpawnlabReportSpec[] __attribute__((weak));

namespace spawnlab {

absl::StatusOr<Headline> EmbeddedHeadline() {
  if (kSpawnlabReportSpec == nullptr) return absl::NotFoundError("no report spec compiled in");
  const nlohmann::json spec =
      nlohmann::json::parse(kSpawnlabReportSpec, nullptr, /*allow_exceptions=*/false);
  if (!spec.is_object()) return absl::InvalidArgumentError("report.json: not a JSON object");
  if (!spec.contains("headline")) return absl::NotFoundError("report.json declares no headline");
  return ParseHeadline(spec["headline"].dump());
}

int BenchMain(int argc, char** argv, absl::string_view experiment,
              const std::function<void(const BenchOptions&)>& register_benchmarks,
              BenchDefaults defaults) {
  SetUsage(experiment);
  if (defaults.headline.empty()) {
    // One declaration of the answer, the report spec's: the report's findings
    // and this bench's last screen show the same table.
    absl::StatusOr<Headline> h = EmbeddedHeadline();
    if (h.ok()) {
      defaults.headline = *std::move(h);
    } else if (!absl::IsNotFound(h.status())) {
      std::cerr << "error: " << h.status().message() << "\n";
      return 2;
    }
  }
  const CommandLine cl = SplitCommandLine(argc, argv);
  absl::Status parsed = ParseOwnFlags(cl);
  absl::StatusOr<Plan> plan =
      parsed.ok() ? MakePlan(cl, experiment, defaults) : absl::StatusOr<Plan>(parsed);
  if (!plan.ok()) {
    std::cerr << "error: " << plan.status().message() << "\n";
    return 2;
  }
  plan->argc = argc;
  plan->argv = argv;
  // In a --full run the rows outside the answer are in no key ratio and get
  // the fewest processes only.
  if (plan->answer_ratios) {
    for (RatioBaseline& by : defaults.ratio_baselines) by.rows = defaults.default_rows;
  }
  if (plan->worker > 0) {
    // Nothing outlives the run: a parent that dies takes this process along.
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() == 1) return 1;
    g_progress_prefix = absl::StrCat("[progress, process ", plan->worker, "/", plan->workers, "]");
  }
  std::optional<BenchLock> lock;
  absl::StatusOr<std::string> lock_story = std::string("none taken (listing only)");
  if (!plan->list_tests) {
    lock_story =
        TakeBenchLock(absl::StrCat(experiment, " bench"), plan->lock_mode, plan->lock_file, lock);
  }
  if (!lock_story.ok()) {
    std::cerr << "error: " << lock_story.status().message() << "\n";
    return absl::IsFailedPrecondition(lock_story.status()) ? 3 : 1;
  }
  if (plan->processes > 1) return RunInProcesses(cl, *plan, *lock_story, defaults);
  return RunHere(cl, *plan, *lock_story, defaults, register_benchmarks);
}

}  // namespace spawnlab
