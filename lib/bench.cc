// bench.cc: see bench.h.

#include "lib/bench.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <set>
#include <sstream>
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
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "lib/bench_lock.h"
#include "lib/bench_name.h"
#include "lib/bench_processes.h"
#include "lib/bench_results.h"
#include "lib/benchmark_json.h"
#include "lib/environment.h"
#include "lib/pin.h"
#include "lib/run_record.h"
#include "lib/runfiles.h"
#include "lib/spawn.h"

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
          "The lock file (default: $SPAWNLAB_LOCK_FILE, else /tmp/spawnlab-bench.lock).");
ABSL_FLAG(int, processes, 0,
          "Measure in this many fresh processes, one after another, each with its share of the "
          "repetitions (rounds), merged into one results file: the process is the sample unit "
          "of //analysis:compare. 0: the bench's default (10; 1 with --quick).");
ABSL_FLAG(std::string, spawnlab_worker, "",
          "Internal: K/N, this is process K of N of a run made by its parent (--processes).");

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

// Rows registered through Configure: the denominator of the progress line.
std::atomic<int> rows_registered{0};
// Runs of a row finished (Google Benchmark's Teardown hook: each repetition,
// and the first repetition's runs that find the iteration count), and the
// repetitions a row makes: with random interleaving no row is reported before
// the last round, so the progress line counts these there. Elsewhere it
// counts the repetitions reported: a run made in rounds finds each row's
// iteration count anew every round, three or four runs a repetition.
std::atomic<int> runs_done{0};
std::atomic<int> repetitions_per_row{1};
void CountRun(const benchmark::State&) { ++runs_done; }

// Prints "[progress] 45 s: 120 of ~270 repetitions (44%), ETA ~57 s" to
// stderr every 15 s while the benchmarks run, counting `done`: with
// interleaved repetitions no row is reported before the last round, and a long
// row is silent for a while in any case.
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
      const int expected = rows_registered.load() * repetitions_per_row.load();
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

double Min(const std::vector<double>& v) {
  return v.empty() ? 0.0 : *std::min_element(v.begin(), v.end());
}

// The temporary results file, removed if the run is interrupted: a signal
// handler may only use what is async-signal-safe, so a fixed buffer.
char g_tmp_path[4096];

void RemoveTmpAndDie(int sig) {
  if (g_tmp_path[0] != '\0') unlink(g_tmp_path);
  signal(sig, SIG_DFL);
  raise(sig);
}

// The value of a Google Benchmark flag on the command line, if given
// ("--benchmark_filter=x" or "--benchmark_filter x" is not accepted by it).
std::optional<std::string> FlagValue(int argc, char** argv, absl::string_view name) {
  std::optional<std::string> value;
  const std::string prefix = absl::StrCat("--", name, "=");
  for (int i = 1; i < argc; ++i) {
    absl::string_view arg = argv[i];
    if (absl::ConsumePrefix(&arg, prefix)) value = std::string(arg);
    if (arg == absl::StrCat("--", name)) value = "true";
  }
  return value;
}

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

absl::Status WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) return absl::DataLossError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

// The parent of a BenchMain run made of `plan.processes` processes.
struct ProcessPlan {
  std::vector<std::string> args;  // the command line as given, argv[0] first
  std::string experiment, out, lock_story, run_kind, pinned;
  int processes = 1, per_process = 1;
  bool in_rounds = false;
};

int RunInProcesses(const ProcessPlan& plan, const BenchDefaults& defaults) {
  std::cout << plan.experiment << ": " << plan.processes << " processes, one after another, each "
            << plan.per_process << (plan.in_rounds ? " rounds" : " repetitions of every row")
            << ", pinned to CPU " << plan.pinned << "; results: " << plan.out << std::endl;
  const std::vector<std::string> flags = {
      "--processes", "--out", "--lock", "--lock_file", "--benchmark_repetitions",
      "--spawnlab_worker"};
  absl::StatusOr<nlohmann::json> merged = RunProcesses(
      WithoutFlags(plan.args, flags), plan.processes, plan.out,
      [&plan](int k, const std::string& part) {
        return std::vector<std::string>{
            absl::StrCat("--spawnlab_worker=", k, "/", plan.processes), "--processes=1",
            absl::StrCat("--benchmark_repetitions=", plan.per_process), "--lock=none",
            "--out=" + part};
      },
      defaults.canary_row);
  if (!merged.ok()) {
    std::cerr << "error: " << merged.status().message() << "; nothing written, " << plan.out
              << " is as it was\n";
    return absl::IsInvalidArgument(merged.status()) ? 2 : 1;
  }
  nlohmann::json& doc = *merged;
  nlohmann::json& context = doc["context"];
  context["run.lock"] = plan.lock_story;
  context["spawnlab.repetitions_per_process"] = absl::StrCat(plan.per_process);
  context["spawnlab.run_kind"] = plan.run_kind;
  if (plan.in_rounds) context["spawnlab.rounds"] = absl::StrCat(plan.processes * plan.per_process);
  if (absl::Status s = WriteResultsFile(plan.out, doc); !s.ok()) {
    std::cerr << "error: " << s.message() << "; " << plan.out << " is as it was\n";
    return 1;
  }
  const RowCounts counts = CountRows(doc);
  PrintSummary(doc, defaults, std::cout);
  std::cout << "\nrun: " << context["run.seconds"].get<std::string>() << " s in "
            << plan.processes << " processes, noisy: " << context["run.noisy"].get<std::string>()
            << "\nresults: " << plan.out << " (" << plan.run_kind << " run: " << counts.measured
            << " rows measured, " << counts.skipped << " skipped, " << counts.failed
            << " failed)" << std::endl;
  if (counts.failed > 0 || context.value("run.a_process_failed", "") == "yes") {
    std::cerr << "error: " << counts.failed << " row(s) failed; see error_message in the JSON\n";
    return 1;
  }
  return 0;
}

}  // namespace

benchmark::internal::Benchmark* Configure(benchmark::internal::Benchmark* b,
                                          const BenchOptions& /*options*/, Clock clock) {
  ++rows_registered;
  b->ComputeStatistics("min", Min);
  b->Teardown(CountRun);
  if (clock == Clock::kManual) return b->UseManualTime()->Unit(benchmark::kMicrosecond);
  return b->Unit(benchmark::kNanosecond);
}

std::map<std::string, benchmark::internal::Benchmark*> RegisterRound(const BenchOptions& options,
                                                                     std::vector<RoundRow> rows) {
  if (options.row_order != nullptr) {
    for (const RoundRow& r : rows) options.row_order->push_back(r.name);
  }
  ShuffleForRound(rows, options.round + options.shuffle_offset);
  std::map<std::string, benchmark::internal::Benchmark*> registered;
  for (RoundRow& r : rows) {
    registered[r.name] =
        Configure(benchmark::RegisterBenchmark(r.name.c_str(), std::move(r.run)), options, r.clock);
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

int BenchMain(int argc, char** argv, absl::string_view experiment,
              const std::function<void(const BenchOptions&)>& register_benchmarks,
              BenchDefaults bench_defaults) {
  // The command line as given: a run made of several processes passes it on.
  const std::vector<std::string> original_args(argv, argv + argc);
  // Google Benchmark's flags as given, read before Initialize consumes them.
  const std::optional<std::string> user_out = FlagValue(argc, argv, "benchmark_out");
  const std::optional<std::string> user_format = FlagValue(argc, argv, "benchmark_format");
  const std::optional<std::string> user_filter = FlagValue(argc, argv, "benchmark_filter");
  const std::optional<std::string> user_color = FlagValue(argc, argv, "benchmark_color");
  const std::optional<std::string> user_tabular =
      FlagValue(argc, argv, "benchmark_counters_tabular");
  const bool list_tests =
      FlagValue(argc, argv, "benchmark_list_tests").value_or("false") != "false";
  const std::optional<std::string> user_repetitions =
      FlagValue(argc, argv, "benchmark_repetitions");
  const bool user_chose_repetitions = user_repetitions.has_value();
  const std::optional<std::string> user_min_time = FlagValue(argc, argv, "benchmark_min_time");
  const bool user_chose_min_time = user_min_time.has_value();
  const bool user_chose_interleaving =
      FlagValue(argc, argv, "benchmark_enable_random_interleaving").has_value();

  absl::SetProgramUsageMessage(absl::StrCat(
      "spawnlab bench '", experiment,
      "': measures, then writes Google Benchmark JSON with the machine's record.\n"
      "Google Benchmark's own --benchmark_* flags work too (--benchmark_filter=REGEX, "
      "--benchmark_repetitions=N, --benchmark_min_time=S, --benchmark_format=console|json|csv, "
      "--benchmark_color, --benchmark_counters_tabular, --benchmark_list_tests, ...)."));
  // --help lists spawnlab's flags (this file's and the bench's own), not Abseil's.
  absl::FlagsUsageConfig usage;
  usage.contains_help_flags = [](absl::string_view file) {
    return absl::StrContains(file, "lib/bench") || absl::StrContains(file, "experiments/");
  };
  usage.contains_helpshort_flags = usage.contains_help_flags;
  absl::SetFlagsUsageConfig(usage);

  if (user_format && *user_format != "console" && *user_format != "json" && *user_format != "csv") {
    std::cerr << "error: --benchmark_format=" << *user_format
              << ": expected console, json or csv\n";
    return 2;
  }
  // --help is spawnlab's: Google Benchmark would print only its own flags and
  // exit. Hold it back from Google Benchmark, and give it to Abseil's parser,
  // which lists this bench's flags (the usage message names Google
  // Benchmark's).
  std::vector<char*> args(argv, argv + argc);
  char* help = nullptr;
  for (auto it = args.begin() + 1; it != args.end();) {
    absl::string_view a = *it;
    if (a == "--help" || a == "-help" || a == "--helpfull" || a == "--helpshort" || a == "-h") {
      help = *it;
      it = args.erase(it);
    } else {
      ++it;
    }
  }
  argc = static_cast<int>(args.size());
  args.push_back(nullptr);
  argv = args.data();
  benchmark::Initialize(&argc, argv);
  static char kHelp[] = "--help";
  std::vector<char*> for_absl(argv, argv + argc);
  if (help != nullptr) for_absl.push_back(std::string(help) == "-h" ? kHelp : help);
  std::vector<char*> rest =
      absl::ParseCommandLine(static_cast<int>(for_absl.size()), for_absl.data());
  if (rest.size() > 1) {
    std::cerr << "error: unexpected argument '" << rest[1] << "' (see --help)\n";
    return 2;
  }

  BenchOptions options;
  options.quick = absl::GetFlag(FLAGS_quick);

  // Process K of N of a run made by its parent (RunInProcesses)?
  int worker = 0, workers = 0;
  if (const std::string w = absl::GetFlag(FLAGS_spawnlab_worker); !w.empty()) {
    std::vector<std::string> kn = absl::StrSplit(w, '/');
    if (kn.size() != 2 || !absl::SimpleAtoi(kn[0], &worker) || !absl::SimpleAtoi(kn[1], &workers) ||
        worker < 1 || worker > workers) {
      std::cerr << "error: --spawnlab_worker=" << w << ": expected K/N with 1 <= K <= N\n";
      return 2;
    }
    // Nothing outlives the run: a parent that dies takes this process along.
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() == 1) return 1;
    g_progress_prefix = absl::StrCat("[progress, process ", worker, "/", workers, "]");
  }
  if (absl::GetFlag(FLAGS_processes) < 0) {
    std::cerr << "error: --processes=" << absl::GetFlag(FLAGS_processes)
              << ": expected 1 or more (0: the bench's default)\n";
    return 2;
  }

  const std::string lock_mode = absl::GetFlag(FLAGS_lock);
  if (lock_mode != "wait" && lock_mode != "fail" && lock_mode != "none") {
    std::cerr << "error: --lock=" << lock_mode << ": expected wait, fail or none\n";
    return 2;
  }

  std::string cpu_flag = absl::GetFlag(FLAGS_cpu);
  std::string pinned = "none";
  if (cpu_flag != "none") {
    int cpu;
    if (!absl::SimpleAtoi(cpu_flag, &cpu)) {
      std::cerr << "error: --cpu=" << cpu_flag << ": expected a CPU number, -1 or none\n";
      return 2;
    }
    absl::StatusOr<int> got = PinToCpu(cpu);
    if (!got.ok()) {
      std::cerr << "error: --cpu: " << got.status() << "\n";
      return 2;
    }
    pinned = absl::StrCat(*got);
  }

  // Where the results go: never over a full run unless --out says so.
  const char* run_kind = options.quick ? "quick" : user_filter ? "filtered" : "full";
  std::string out = FromWorkingDirectory(absl::GetFlag(FLAGS_out));
  if (out.empty()) {
    const char* workspace = std::getenv("BUILD_WORKSPACE_DIRECTORY");
    out = DefaultResultsPath(workspace != nullptr ? workspace : "", experiment,
                             options.quick ? ".quick"
                             : user_filter ? ".filtered"
                                           : "");
  }
  const bool we_write = !user_out.has_value() && !list_tests;
  const std::string tmp = absl::StrCat(out, ".tmp-", getpid());

  // spawnlab's defaults, given to Google Benchmark as its own flags.
  std::vector<std::string> defaults = {"--benchmark_display_aggregates_only=true"};
  const bool in_rounds = bench_defaults.rounds > 0;
  int rounds = 1;
  if (in_rounds) {
    rounds = options.quick ? 2 : bench_defaults.rounds;
    int r;
    if (user_repetitions && absl::SimpleAtoi(*user_repetitions, &r)) rounds = std::max(1, r);
    if (list_tests) rounds = 1;
    // Each registered copy of a row runs once; the rounds are the repetitions.
    defaults.push_back("--benchmark_repetitions=1");
    defaults.push_back("--benchmark_enable_random_interleaving=false");
  } else if (!user_chose_repetitions) {
    defaults.push_back(
        absl::StrCat("--benchmark_repetitions=", options.quick ? 2 : bench_defaults.repetitions));
    repetitions_per_row = options.quick ? 2 : bench_defaults.repetitions;
  } else {
    int r;
    if (absl::SimpleAtoi(user_repetitions.value_or("1"), &r)) {
      repetitions_per_row = std::max(1, r);
    }
  }
  options.min_time = options.quick ? bench_defaults.quick_min_time : bench_defaults.min_time;
  if (!user_chose_min_time) {
    defaults.push_back(absl::StrCat("--benchmark_min_time=", options.min_time));
  } else if (double t; absl::SimpleAtod(*user_min_time, &t) && t > 0) {
    options.min_time = t;
  }
  const bool interleaved =
      in_rounds ? false
      : user_chose_interleaving
          ? FlagValue(argc, argv, "benchmark_enable_random_interleaving") != "false"
          : bench_defaults.random_interleaving;
  if (!in_rounds && !user_chose_interleaving && bench_defaults.random_interleaving) {
    defaults.push_back("--benchmark_enable_random_interleaving=true");
  }
  if (we_write) {
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(out).parent_path(), ec);
    if (ec) {
      std::cerr << "error: cannot create the folder for " << out << ": " << ec.message() << "\n";
      return 2;
    }
    if (tmp.size() >= sizeof(g_tmp_path)) {
      std::cerr << "error: --out is too long\n";
      return 2;
    }
    defaults.push_back(absl::StrCat("--benchmark_out=", tmp));
    defaults.push_back("--benchmark_out_format=json");
  }
  std::vector<char*> extra = {argv[0]};
  for (std::string& flag : defaults) extra.push_back(flag.data());
  int extra_argc = static_cast<int>(extra.size());
  benchmark::Initialize(&extra_argc, extra.data());

  // One bench at a time: the lock, unless a suite that holds it started us.
  std::optional<BenchLock> lock;
  std::string lock_story = "none taken (--lock=none)";
  const char* held_by = std::getenv("SPAWNLAB_LOCK_HELD_BY");
  if (list_tests) {
    lock_story = "none taken (listing only)";
  } else if (held_by != nullptr && *held_by != '\0') {
    lock_story = absl::StrCat("held for it by ", held_by);
  } else if (lock_mode != "none") {
    std::string path = absl::GetFlag(FLAGS_lock_file);
    if (path.empty()) path = DefaultBenchLockPath();
    absl::StatusOr<BenchLock> got =
        BenchLock::Acquire(path, absl::StrCat(experiment, " bench"),
                           lock_mode == "fail" ? BenchLock::kFail : BenchLock::kWait, &std::cerr);
    if (!got.ok()) {
      std::cerr << "error: " << got.status().message() << "\n";
      return 3;
    }
    lock.emplace(*std::move(got));
    lock_story = lock->waited_for().empty()
                     ? "acquired at once"
                     : absl::StrFormat("waited %.0f s for %s",
                                       absl::ToDoubleSeconds(lock->waited()), lock->waited_for());
  }

  // A full run is made of several processes (BenchDefaults::processes): this
  // one, holding the lock, runs them and merges what they write.
  int processes = absl::GetFlag(FLAGS_processes) > 0 ? absl::GetFlag(FLAGS_processes)
                  : options.quick || worker > 0      ? 1
                                                     : std::max(1, bench_defaults.processes);
  if (processes > 1 && (!we_write || user_format.has_value() || user_out.has_value() || list_tests)) {
    if (absl::GetFlag(FLAGS_processes) > 1) {
      std::cerr << "error: --processes=" << processes
                << " merges the processes' results into spawnlab's own file; it does not go "
                   "with --benchmark_out, --benchmark_format or --benchmark_list_tests\n";
      return 2;
    }
    processes = 1;
  }
  if (processes > 1) {
    // The repetitions (rounds) asked for, shared out: each process measures
    // every row ceil(total / processes) times.
    const int total = in_rounds ? rounds : repetitions_per_row.load();
    ProcessPlan plan;
    plan.args = original_args;
    plan.experiment = std::string(experiment);
    plan.out = out;
    plan.lock_story = lock_story;
    plan.run_kind = run_kind;
    plan.pinned = pinned;
    plan.processes = std::min(processes, std::max(1, total));
    plan.per_process = (total + plan.processes - 1) / plan.processes;
    plan.in_rounds = in_rounds;
    return RunInProcesses(plan, bench_defaults);
  }
  if (worker > 0) {
    options.shuffle_offset = (worker - 1) * rounds;
    benchmark::AddCustomContext("spawnlab.process", absl::StrCat(worker, "/", workers));
  }

  for (const auto& [key, value] : CollectEnvironment()) {
    benchmark::AddCustomContext(key, value);
  }
  benchmark::AddCustomContext("spawnlab.experiment", std::string(experiment));
  benchmark::AddCustomContext("spawnlab.quick", options.quick ? "true" : "false");
  benchmark::AddCustomContext("spawnlab.run_kind", run_kind);
  if (user_filter) benchmark::AddCustomContext("spawnlab.filter", *user_filter);
  benchmark::AddCustomContext("spawnlab.pinned_cpu", pinned);
  benchmark::AddCustomContext("spawnlab.random_interleaving", interleaved ? "true" : "false");
  benchmark::AddCustomContext("spawnlab.rounds", in_rounds ? absl::StrCat(rounds) : "none");
  // The key ratios' baseline, so that //analysis:compare --self_check finds
  // the ratios to compare without being told.
  if (!bench_defaults.ratio_baselines.empty()) {
    benchmark::AddCustomContext("spawnlab.ratio_baseline",
                                absl::StrJoin(bench_defaults.ratio_baselines, ",",
                                              [](std::string* out, const RatioBaseline& by) {
                                                absl::StrAppend(out, by.dimension, ":", by.value);
                                              }));
  }

  std::vector<std::string> row_order;
  for (int r = 0; r < rounds; ++r) {
    options.round = r;
    options.rounds = rounds;
    options.row_order = r == 0 ? &row_order : nullptr;
    register_benchmarks(options);
  }

  // The display: Google Benchmark's own reporter when a format was asked for
  // (or the user took the file), else spawnlab's one line per row at the end.
  const bool own_display = user_format.has_value() || user_out.has_value() || list_tests;
  benchmark::ConsoleReporter::OutputOptions output = benchmark::ConsoleReporter::OO_None;
  const std::string color = user_color.value_or("auto");
  if (color == "true" || color == "yes" || color == "1" ||
      (color == "auto" && isatty(STDOUT_FILENO) && std::getenv("TERM") != nullptr &&
       std::string(std::getenv("TERM")) != "dumb")) {
    output = static_cast<benchmark::ConsoleReporter::OutputOptions>(
        output | benchmark::ConsoleReporter::OO_Color);
  }
  if (user_tabular.value_or("false") != "false") {
    output = static_cast<benchmark::ConsoleReporter::OutputOptions>(
        output | benchmark::ConsoleReporter::OO_Tabular);
  }
  std::unique_ptr<benchmark::BenchmarkReporter> inner;
  if (own_display) {
    const std::string format = user_format.value_or("console");
    if (format == "json") {
      inner = std::make_unique<benchmark::JSONReporter>();
    } else if (format == "csv") {
      // Deprecated upstream, still what --benchmark_format=csv gives.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
      inner = std::make_unique<benchmark::CSVReporter>();
#pragma GCC diagnostic pop
    } else {
      inner = std::make_unique<benchmark::ConsoleReporter>(output);
    }
  }
  RowReporter reporter(inner.get());
  std::ostream& say = own_display ? std::cerr : std::cout;
  if (worker > 0) {
    // Process K of N: its parent says what the run is and prints the merged rows.
  } else if (!own_display) {
    say << experiment << ": "
        << (in_rounds ? absl::StrCat(rows_registered.load() / rounds, " rows in ", rounds,
                                     " rounds, each round every row once, shuffled")
                      : absl::StrCat(rows_registered.load(), " rows, ",
                                     interleaved ? "repetitions randomly interleaved"
                                                 : "rows one after another"))
        << (user_filter ? " (registered; --benchmark_filter picks among them)" : "")
        << ", pinned to CPU " << pinned << "; results: " << out << std::endl;
  } else if (user_format.value_or("console") == "console") {
    // Debian's libbenchmark was built without NDEBUG and its console header
    // says so; its timing loop is inline in this bench, compiled -O2.
    std::cerr << "(Google Benchmark's \"Library was built as DEBUG\" below is about Debian's "
                 "build of the library's bookkeeping; the timed loop is compiled into this "
                 "bench, optimised.)"
              << std::endl;
  }

  if (we_write) {
    memcpy(g_tmp_path, tmp.c_str(), tmp.size() + 1);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) signal(sig, RemoveTmpAndDie);
  }
  const MachineSample before = SampleMachine();
  size_t matched;
  {
    ProgressTicker ticker(interleaved ? &runs_done : reporter.repetitions_done());
    matched = benchmark::RunSpecifiedBenchmarks(&reporter);
  }
  if (bench_defaults.after_run) bench_defaults.after_run();
  const MachineSample after = SampleMachine();
  benchmark::Shutdown();

  if (list_tests) return 0;
  if (matched == 0) {
    if (we_write) unlink(tmp.c_str());
    std::cerr << "error: no row ran: --benchmark_filter=" << (user_filter ? *user_filter : "")
              << " matched no row or is not a valid "
              << "regular expression (see the message above). Nothing was written"
              << (we_write && worker == 0 ? absl::StrCat("; ", out, " is as it was") : "")
              << ".\n";
    return 2;
  }
  if (!we_write) return 0;  // the user's own --benchmark_out: left as Google Benchmark wrote it

  std::ifstream in(tmp, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  in.close();
  nlohmann::json doc = ParseBenchmarkJson(text.str());
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("context")) {
    unlink(tmp.c_str());
    std::cerr << "error: Google Benchmark wrote no readable JSON; " << out << " is as it was\n";
    return 1;
  }
  if (in_rounds) MergeRounds(doc, row_order);
  const RowCounts counts = CountRows(doc);
  if (counts.measured == 0) {
    unlink(tmp.c_str());
    std::cerr << "error: no row measured (" << counts.skipped << " skipped, " << counts.failed
              << " failed); nothing written, " << out << " is as it was\n";
    if (!own_display) PrintSummary(doc, bench_defaults, say);
    return 1;
  }

  nlohmann::json& context = doc["context"];
  context.erase("host_name");  // the machine's name: spawnlab records host.id instead
  for (const auto& [key, value] : DescribeRun(before, after)) context[key] = value;
  context["run.lock"] = lock_story;
  RecordNoise(doc, bench_defaults.canary_row);
  if (absl::Status s = WriteFile(tmp, doc.dump(2) + "\n"); !s.ok()) {
    unlink(tmp.c_str());
    std::cerr << "error: " << s.message() << "; " << out << " is as it was\n";
    return 1;
  }
  if (rename(tmp.c_str(), out.c_str()) != 0) {
    std::cerr << "error: rename " << tmp << " to " << out << ": " << strerror(errno) << "\n";
    unlink(tmp.c_str());
    return 1;
  }
  g_tmp_path[0] = '\0';

  if (worker > 0) return counts.failed > 0 ? 1 : 0;
  if (!own_display) PrintSummary(doc, bench_defaults, say);
  say << "\nrun: " << context["run.seconds"].get<std::string>()
      << " s, noisy: " << context["run.noisy"].get<std::string>() << "\nresults: " << out << " ("
      << run_kind << " run: " << counts.measured << " rows measured, " << counts.skipped
      << " skipped, " << counts.failed << " failed)" << std::endl;
  if (counts.failed > 0) {
    std::cerr << "error: " << counts.failed << " row(s) failed; see error_message in the JSON\n";
    return 1;
  }
  return 0;
}

}  // namespace spawnlab
