// bench.cc: how should a server share its port among workers, and how should
// each worker accept? Every model and mechanism of server.cc under the same
// bounded load on loopback.
//
//   bazel run //experiments/accept:bench [-- --quick] [-- --connections=32]
//
// Rows: accept/model:M/mechanism:X/workers:W/load:L, and per-CPU-client and
// spin-handler rows; a row's time is per request. Rows, rounds, groups, load
// and counters in full: README.md, "Rows and method".

#include "bench/bench.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "experiments/accept/loadgen.h"
#include "experiments/accept/server_process.h"
#include "lib/runfiles.h"
#include "bench/together.h"

ABSL_FLAG(int, connections, 16, "Concurrent client connections.");
ABSL_FLAG(double, load_seconds, 0.5,
          "How long each row is loaded in a round, in slices (0.1 with --quick).");
ABSL_FLAG(double, slice_seconds, 0.1,
          "How long one slice of a row's load runs before another row's (0.05 with --quick).");
ABSL_FLAG(int64_t, max_requests, 500000, "The most requests one slice sends.");

namespace spawnlab {
namespace {

std::string server_path;
double load_seconds = 0.5;
double slice_seconds = 0.1;

// How a row departs from the plain one: load threads, handler cost.
struct Variant {
  int load_threads = 1;
  int64_t handler_spin = 0;
};

// One row: the server it runs and the load it gets.
struct RowSpec {
  std::string name;
  std::string model;
  std::string mechanism;
  int workers = 1;
  bool keep_alive = false;
  Variant variant;
};

// What one row of a group got in one round.
struct RowLoad {
  absl::Status status;  // Unimplemented: skipped (the kernel lacks it)
  LoadResult load;      // its timed slices, added up
  std::map<std::string, int64_t> server_stats;
};

// Names the row in a status from its measurement.
absl::Status InRow(const RowSpec& row, const absl::Status& s) {
  return absl::Status(s.code(), absl::StrCat(row.name, ": ", s.message()));
}

// Starts every row's server, alternates the load between them in slices
// (Alternate), and stops them. A server that cannot start is its row's status
// alone; an error of the load fails every row of the group (they were measured
// together).
std::vector<RowLoad> MeasureGroup(const std::vector<RowSpec>& rows) {
  std::vector<RowLoad> out(rows.size());
  std::vector<std::optional<ServerProcess>> servers(rows.size());
  std::vector<size_t> started;  // indices into rows
  for (size_t i = 0; i < rows.size(); ++i) {
    std::vector<std::string> flags;
    if (rows[i].variant.handler_spin > 0)
      flags.push_back(absl::StrCat("--handler_spin=", rows[i].variant.handler_spin));
    absl::StatusOr<ServerProcess> s = ServerProcess::Start(
        server_path, rows[i].model, rows[i].mechanism, rows[i].workers, /*port=*/0, flags);
    if (!s.ok()) {
      out[i].status = s.status();
      continue;
    }
    servers[i].emplace(*std::move(s));
    started.push_back(i);
  }
  std::vector<std::function<absl::StatusOr<int64_t>()>> parts;
  std::vector<int> slices(rows.size(), 0);
  for (size_t i : started) {
    parts.push_back([&, i]() -> absl::StatusOr<int64_t> {
      LoadOptions o;
      o.port = servers[i]->port();
      o.keep_alive = rows[i].keep_alive;
      o.connections = absl::GetFlag(FLAGS_connections);
      o.duration = absl::Seconds(slice_seconds);
      o.max_requests = absl::GetFlag(FLAGS_max_requests);
      o.request_timeout = absl::Seconds(2);
      o.threads = rows[i].variant.load_threads;
      absl::StatusOr<LoadResult> r = RunLoad(o);
      if (!r.ok()) return InRow(rows[i], r.status());
      if (r->requests == 0) {
        return InRow(rows[i], absl::InternalError(
                                  absl::StrCat("no request was answered: ", r->first_error)));
      }
      // Alternate's first cycle, one call of each part, is its warm-up.
      if (slices[i]++ > 0) out[i].load.Append(*r);
      return static_cast<int64_t>(r->seconds * 1e9) + 1;
    });
  }
  absl::Status load_status;
  if (!parts.empty()) load_status = Alternate(parts, load_seconds).status();
  for (size_t i : started) {
    absl::StatusOr<ExitStatus> stopped = servers[i]->Stop();
    if (!load_status.ok()) {
      out[i].status = load_status;
    } else if (!stopped.ok() || !stopped->success()) {
      out[i].status = InRow(
          rows[i], stopped.ok() ? absl::InternalError(stopped->ToString()) : stopped.status());
    } else {
      out[i].server_stats = servers[i]->stats();
    }
  }
  return out;
}

// One group's measurement in one round, shared by its rows: the first of them
// to run measures the whole group.
class GroupRound {
 public:
  explicit GroupRound(std::vector<RowSpec> rows) : rows_(std::move(rows)) {}
  const RowSpec& row(size_t i) const { return rows_[i]; }
  size_t size() const { return rows_.size(); }
  const RowLoad& Get(size_t i) {
    if (loads_.empty()) loads_ = MeasureGroup(rows_);
    return loads_[i];
  }

 private:
  std::vector<RowSpec> rows_;
  std::vector<RowLoad> loads_;
};

void BM_Accept(benchmark::State& state, GroupRound& group, size_t i) {
  const RowLoad& got = group.Get(i);
  if (absl::IsUnimplemented(got.status)) return SkipRow(state, got.status);
  if (!got.status.ok()) return FailRow(state, got.status);
  const LoadResult& load = got.load;
  for (auto _ : state) state.SetIterationTime(load.seconds / static_cast<double>(load.requests));
  const int workers = group.row(i).workers;
  // Google Benchmark writes inf and nan unquoted, which is not JSON: a counter
  // that is not finite (max/min with an idle worker) is left out, and
  // idle_workers says why.
  auto set = [&](const char* name, double value) {
    if (std::isfinite(value)) state.counters[name] = value;
  };
  set("requests_per_s", static_cast<double>(load.requests) / load.seconds);
  set("p50_us", load.Percentile(50));
  set("p99_us", load.Percentile(99));
  set("max_us", load.Percentile(100));
  set("errors", static_cast<double>(load.errors));
  set("timeouts", static_cast<double>(load.timeouts));
  set("non_2xx", static_cast<double>(load.non_2xx));
  set("spread_stddev", load.SpreadStddev(workers));
  set("spread_max_over_min", load.SpreadMaxOverMin(workers));
  // The busiest worker's share of the requests: finite even when a worker
  // was idle (1 = one worker answered everything).
  int64_t busiest = 0;
  for (const auto& [worker, n] : load.per_worker) busiest = std::max(busiest, n);
  set("busiest_share", static_cast<double>(busiest) / static_cast<double>(load.requests));
  int idle = 0;
  for (int w = 0; w < workers; ++w) idle += load.per_worker.count(w) == 0;
  set("idle_workers", idle);
  // What the server itself counted (see server.cc): under this bounded load
  // all are 0; anything else means the row measured the server's defences.
  for (const char* name :
       {"accept_pauses", "header_timeouts", "idle_timeouts", "rejected", "output_high_water"}) {
    auto it = got.server_stats.find(name);
    if (it != got.server_stats.end()) set(name, static_cast<double>(it->second));
  }
}

std::string RowName(const std::string& model, const std::string& mechanism, int workers,
                    bool keep_alive) {
  return absl::StrCat("accept/model:", model, "/mechanism:", mechanism, "/workers:", workers,
                      "/load:", keep_alive ? "keepalive" : "connect");
}

void Register(const BenchOptions& options) {
  server_path = RunfileOrExit("experiments/accept/server");
  load_seconds = options.quick ? 0.1 : absl::GetFlag(FLAGS_load_seconds);
  slice_seconds = options.quick ? 0.05 : absl::GetFlag(FLAGS_slice_seconds);
  if (!(slice_seconds > 0) || !(load_seconds > 0)) {
    std::fprintf(stderr, "error: --load_seconds and --slice_seconds must be above 0\n");
    std::exit(2);
  }
  const int workers = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  if (options.round == 0) {  // Register runs once per round; the context is the run's
    benchmark::AddCustomContext("accept.connections",
                                absl::StrCat(absl::GetFlag(FLAGS_connections)));
    benchmark::AddCustomContext("accept.load_seconds", absl::StrCat(load_seconds));
    benchmark::AddCustomContext("accept.slice_seconds", absl::StrCat(slice_seconds));
    benchmark::AddCustomContext("accept.measured_together",
                                "each load's 15 rows, the per-cpu rows, the spin-1m rows: "
                                "servers started together, the load alternated in slices");
  }
  // The groups of this round; each row reads its part of its group.
  std::vector<std::shared_ptr<GroupRound>> groups;
  for (bool keep_alive : {false, true}) {
    std::vector<RowSpec> g;
    for (const char* model : {"shared", "reuseport", "proxy"}) {
      for (const char* mech : {"blocking", "epoll", "epoll-exclusive", "uring", "uring-multishot"})
        g.push_back({RowName(model, mech, workers, keep_alive), model, mech, workers, keep_alive,
                     Variant()});
    }
    groups.push_back(std::make_shared<GroupRound>(std::move(g)));
  }
  std::vector<RowSpec> per_cpu, heavy;
  for (const char* model : {"shared", "reuseport", "reuseport-cpu"}) {
    per_cpu.push_back({absl::StrCat(RowName(model, "epoll", workers, false), "/clients:per-cpu"),
                       model, "epoll", workers, false, Variant{.load_threads = workers}});
  }
  for (const char* model : {"shared", "reuseport"}) {
    heavy.push_back({absl::StrCat(RowName(model, "epoll", workers, false), "/handler:spin-1m"),
                     model, "epoll", workers, false, Variant{.handler_spin = 1000000}});
  }
  groups.push_back(std::make_shared<GroupRound>(std::move(per_cpu)));
  groups.push_back(std::make_shared<GroupRound>(std::move(heavy)));
  std::vector<RoundRow> rows;
  for (const std::shared_ptr<GroupRound>& g : groups) {
    for (size_t i = 0; i < g->size(); ++i) {
      rows.push_back(
          {g->row(i).name, [g, i](benchmark::State& state) { BM_Accept(state, *g, i); }});
    }
  }
  // One measurement per repetition: its group's, this round.
  for (benchmark::internal::Benchmark* b : RegisterRound(options, std::move(rows)))
    b->Iterations(1);
}

// The bench's declaration: its rounds, canary and key ratios (bench.h: BenchDefaults).
BenchDefaults Declare() {
  BenchDefaults defaults;
  // 35 rows, each round half a second of load per row (--load_seconds) in
  // slices. The key ratios (each model over the shared
  // listener, each mechanism over epoll, same load) are taken within a round
  // between rows whose slices alternated, so the machine's bursts fall on
  // both. Many rounds: a key ratio spreads widely from round to round
  // (server, workers and load generator share two CPUs), and only more rounds
  // narrow its median to the rerun target. --benchmark_repetitions gives a
  // quicker, looser run.
  defaults.rounds = 33;
  // A process of 2 rounds (the stopping rule's processes hold rounds /
  // processes each): at about 35 s of load a round, the time cap (the suite
  // gives each bench a share of its budget) can stop the run near it.
  defaults.processes = 17;
  defaults.ratio_baselines = {{"model", "shared"}, {"mechanism", "epoll"}};
  // Drift: this row, once per round (README, "Noisy runs").
  defaults.canary_row = RowName(
      "shared", "epoll", static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)), /*keep_alive=*/true);
  return defaults;
}

}  // namespace
}  // namespace spawnlab

SPAWNLAB_BENCH_MAIN("accept", spawnlab::Register, spawnlab::Declare)
