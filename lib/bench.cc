// bench.cc: see bench.h.

#include "lib/bench.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <iostream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "lib/environment.h"
#include "lib/pin.h"
#include "lib/runfiles.h"

ABSL_FLAG(bool, quick, false, "A smoke run of a few seconds: fewer repetitions, shorter rows.");
ABSL_FLAG(std::string, out, "",
          "Where to write the JSON results. Default: "
          "$BUILD_WORKSPACE_DIRECTORY/results/<kernel-release>/<experiment>.json");
ABSL_FLAG(std::string, cpu, "-1",
          "CPU to pin the bench to: a number, -1 for the last allowed CPU, or none.");

namespace spawnlab {
namespace {

// Counts the rows that failed (not those skipped), so that the exit code can say so.
class CountingConsoleReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    bool failed = false;
    for (const Run& run : runs) {
      if (run.error_occurred && !absl::StartsWith(run.error_message, kSkippedPrefix)) {
        failed = true;
      }
    }
    failed_ += failed;
    // Called with a row's repetitions and/or its aggregates (with
    // --benchmark_display_aggregates_only, the aggregates alone): a row is
    // done the first time it is reported at all.
    if (!runs.empty() && rows_seen_.insert(runs[0].run_name.str()).second) ++rows_done_;
    benchmark::ConsoleReporter::ReportRuns(runs);
  }
  int failed() const { return failed_; }
  const std::atomic<int>* rows_done() const { return &rows_done_; }

 private:
  int failed_ = 0;
  std::set<std::string> rows_seen_;
  std::atomic<int> rows_done_{0};
};

absl::Status MakeDirs(const std::string& file_path) {
  std::vector<std::string> parts = absl::StrSplit(file_path, '/');
  parts.pop_back();
  std::string dir;
  for (const std::string& part : parts) {
    if (part.empty()) {
      dir = dir.empty() ? "/" : dir;
      continue;
    }
    dir = (dir.empty() || dir == "/") ? absl::StrCat(dir, part) : absl::StrCat(dir, "/", part);
    if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
      return absl::ErrnoToStatus(errno, absl::StrCat("mkdir ", dir));
    }
  }
  return absl::OkStatus();
}

// Rows registered through Configure: the denominator of the progress line.
std::atomic<int> rows_registered{0};

// Prints "[progress] 45 s: 12 of 30 rows done" to stderr every 15 s while
// the benchmarks run: with interleaved repetitions no row is reported before
// the end, and a long row is silent for a while in any case.
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
      std::cerr << "[progress] " << absl::ToInt64Seconds(absl::Now() - start_) << " s: "
                << done_->load() << " of " << rows_registered.load() << " rows done"
                << std::endl;
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

}  // namespace

benchmark::internal::Benchmark* Configure(benchmark::internal::Benchmark* b,
                                          const BenchOptions& /*options*/, Clock clock) {
  ++rows_registered;
  b->ComputeStatistics("min", Min);
  if (clock == Clock::kManual) return b->UseManualTime()->Unit(benchmark::kMicrosecond);
  return b->Unit(benchmark::kNanosecond);
}

void SkipRow(benchmark::State& state, const absl::Status& why) {
  state.SkipWithError(absl::StrCat(kSkippedPrefix, why.message()).c_str());
}

void FailRow(benchmark::State& state, const absl::Status& error) {
  state.SkipWithError(error.ToString().c_str());
}

std::string RunfileOrExit(absl::string_view path) {
  absl::StatusOr<std::string> found = Runfile(path);
  if (!found.ok()) {
    std::cerr << "error: " << found.status().message() << "\n";
    std::exit(2);
  }
  return *found;
}

std::string DefaultResultsPath(absl::string_view root, absl::string_view experiment) {
  return absl::StrCat(root, root.empty() ? "" : "/", "results/", KernelRelease(), "/",
                      experiment, ".json");
}

int BenchMain(int argc, char** argv, absl::string_view experiment,
              const std::function<void(const BenchOptions&)>& register_benchmarks,
              BenchDefaults bench_defaults) {
  bool user_chose_out = false, user_chose_repetitions = false, user_chose_min_time = false,
       user_chose_interleaving = false;
  for (int i = 1; i < argc; ++i) {
    if (absl::StartsWith(argv[i], "--benchmark_enable_random_interleaving")) {
      user_chose_interleaving = true;
    }
    if (absl::StartsWith(argv[i], "--benchmark_out=")) user_chose_out = true;
    if (absl::StartsWith(argv[i], "--benchmark_repetitions=")) user_chose_repetitions = true;
    if (absl::StartsWith(argv[i], "--benchmark_min_time=")) user_chose_min_time = true;
  }
  absl::SetProgramUsageMessage(absl::StrCat(
      "spawnlab bench '", experiment,
      "'. Google Benchmark's --benchmark_* flags work too (e.g. --benchmark_filter=REGEX)."));
  benchmark::Initialize(&argc, argv);
  std::vector<char*> rest = absl::ParseCommandLine(argc, argv);
  if (rest.size() > 1) {
    std::cerr << "error: unexpected argument '" << rest[1] << "' (see --help)\n";
    return 2;
  }

  BenchOptions options;
  options.quick = absl::GetFlag(FLAGS_quick);

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

  std::string out = absl::GetFlag(FLAGS_out);
  if (out.empty()) {
    const char* workspace = std::getenv("BUILD_WORKSPACE_DIRECTORY");
    out = DefaultResultsPath(workspace != nullptr ? workspace : "", experiment);
  }
  // spawnlab's defaults, given to Google Benchmark as its own flags.
  std::vector<std::string> defaults = {"--benchmark_display_aggregates_only=true"};
  if (!user_chose_repetitions) {
    defaults.push_back(absl::StrCat("--benchmark_repetitions=",
                                    options.quick ? 2 : bench_defaults.repetitions));
  }
  if (!user_chose_min_time) {
    defaults.push_back(absl::StrCat("--benchmark_min_time=", options.quick
                                                                 ? bench_defaults.quick_min_time
                                                                 : bench_defaults.min_time));
  }
  if (!user_chose_interleaving && bench_defaults.random_interleaving) {
    defaults.push_back("--benchmark_enable_random_interleaving=true");
  }
  if (!user_chose_out) {
    if (absl::Status s = MakeDirs(out); !s.ok()) {
      std::cerr << "error: cannot create the folder for " << out << ": " << s << "\n";
      return 2;
    }
    defaults.push_back(absl::StrCat("--benchmark_out=", out));
    defaults.push_back("--benchmark_out_format=json");
  }
  std::vector<char*> extra = {argv[0]};
  for (std::string& flag : defaults) extra.push_back(flag.data());
  int extra_argc = static_cast<int>(extra.size());
  benchmark::Initialize(&extra_argc, extra.data());

  for (const auto& [key, value] : CollectEnvironment()) {
    benchmark::AddCustomContext(key, value);
  }
  benchmark::AddCustomContext("spawnlab.experiment", std::string(experiment));
  benchmark::AddCustomContext("spawnlab.quick", options.quick ? "true" : "false");
  benchmark::AddCustomContext("spawnlab.pinned_cpu", pinned);
  benchmark::AddCustomContext("spawnlab.random_interleaving",
                              bench_defaults.random_interleaving ? "true" : "false");

  register_benchmarks(options);
  CountingConsoleReporter console;
  {
    ProgressTicker ticker(console.rows_done());
    benchmark::RunSpecifiedBenchmarks(&console);
  }
  benchmark::Shutdown();
  if (!user_chose_out) std::cerr << "results: " << out << "\n";
  if (console.failed() > 0) {
    std::cerr << "error: " << console.failed() << " row(s) failed; see error_message in the JSON\n";
    return 1;
  }
  return 0;
}

}  // namespace spawnlab
