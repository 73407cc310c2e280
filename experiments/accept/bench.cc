// bench.cc: how should a server share its port among workers, and how should
// each worker accept? Every model and mechanism of server.cc under the same
// bounded load on loopback.
//
//   bazel run //experiments/accept:bench [-- --quick] [-- --connections=32]
//
// Rows: accept/model:M/mechanism:X/workers:W/load:L
//   M  shared, reuseport, proxy           X  blocking, epoll, epoll-exclusive,
//   W  one worker per CPU                    uring, uring-multishot
//   L  connect (a new connection per request: connections/s) or keepalive
// Two more kinds of row, for the claims about per-CPU listeners and tails:
//   accept/model:M/mechanism:epoll/workers:W/load:connect/clients:per-cpu
//       M = shared, reuseport, reuseport-cpu (one SO_REUSEPORT listener per
//       CPU, chosen by a CBPF program, workers pinned): the load from one
//       pinned thread per CPU, as clients on every CPU would be (on loopback
//       the SYN is handled on the sending CPU, so one load thread would look
//       like one CPU's clients and a per-CPU listener would send it all to
//       one worker)
//   accept/model:M/mechanism:epoll/workers:W/load:connect/handler:spin-1m
//       M = shared, reuseport: each request costs its worker a million
//       rounds of a busy loop (server --handler_spin), a CPU-heavy handler
// Each repetition starts the server, drives it for --load_seconds (0.1 s with
// --quick) or --max_requests with --connections concurrent clients from this
// process, and stops it. The row's time is per request (the load's duration
// over its requests). Counters: requests_per_s, p50_us, p99_us, max_us,
// errors, timeouts, non_2xx, spread_stddev and spread_max_over_min (of the
// requests each worker answered; left out when a worker answered none),
// busiest_share (the busiest worker's share of the requests),
// idle_workers, and the server's own counts of its defences (accept_pauses,
// header_timeouts, idle_timeouts, rejected, output_high_water: all 0 when the
// load is what it should be). A mechanism the kernel lacks is skipped with the
// reason.

#include "lib/bench.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "experiments/accept/loadgen.h"
#include "experiments/accept/server_process.h"
#include "lib/runfiles.h"

ABSL_FLAG(int, connections, 16, "Concurrent client connections.");
ABSL_FLAG(double, load_seconds, 0.5, "How long each repetition's load runs (0.1 with --quick).");
ABSL_FLAG(int64_t, max_requests, 500000, "The most requests one repetition sends.");

namespace spawnlab {
namespace {

std::string server_path;
double load_seconds = 0.5;

// How a row departs from the plain one: load threads, handler cost.
struct Variant {
  int load_threads = 1;
  int64_t handler_spin = 0;
};

void BM_Accept(benchmark::State& state, std::string model, std::string mechanism, int workers,
               bool keep_alive, Variant variant) {
  std::vector<std::string> flags;
  if (variant.handler_spin > 0)
    flags.push_back(absl::StrCat("--handler_spin=", variant.handler_spin));
  absl::StatusOr<ServerProcess> server =
      ServerProcess::Start(server_path, model, mechanism, workers, /*port=*/0, flags);
  if (absl::IsUnimplemented(server.status())) return SkipRow(state, server.status());
  if (!server.ok()) return FailRow(state, server.status());
  LoadOptions o;
  o.port = server->port();
  o.keep_alive = keep_alive;
  o.connections = absl::GetFlag(FLAGS_connections);
  o.duration = absl::Seconds(load_seconds);
  o.max_requests = absl::GetFlag(FLAGS_max_requests);
  o.request_timeout = absl::Seconds(2);
  o.threads = variant.load_threads;
  LoadResult last;
  for (auto _ : state) {
    absl::StatusOr<LoadResult> r = RunLoad(o);
    if (!r.ok()) return FailRow(state, r.status());
    if (r->requests == 0) {
      return FailRow(
          state, absl::InternalError(absl::StrCat("no request was answered: ", r->first_error)));
    }
    state.SetIterationTime(r->seconds / static_cast<double>(r->requests));
    last = *std::move(r);
  }
  absl::StatusOr<ExitStatus> stopped = server->Stop();
  if (!stopped.ok() || !stopped->success()) {
    return FailRow(state,
                   stopped.ok() ? absl::InternalError(stopped->ToString()) : stopped.status());
  }
  // Google Benchmark writes inf and nan unquoted, which is not JSON: a counter
  // that is not finite (max/min with an idle worker) is left out, and
  // idle_workers says why.
  auto set = [&](const char* name, double value) {
    if (std::isfinite(value)) state.counters[name] = value;
  };
  set("requests_per_s", static_cast<double>(last.requests) / last.seconds);
  set("p50_us", last.Percentile(50));
  set("p99_us", last.Percentile(99));
  set("max_us", last.Percentile(100));
  set("errors", static_cast<double>(last.errors));
  set("timeouts", static_cast<double>(last.timeouts));
  set("non_2xx", static_cast<double>(last.non_2xx));
  set("spread_stddev", last.SpreadStddev(workers));
  set("spread_max_over_min", last.SpreadMaxOverMin(workers));
  // The busiest worker's share of the requests: finite even when a worker
  // was idle (1 = one worker answered everything).
  int64_t busiest = 0;
  for (const auto& [worker, n] : last.per_worker) busiest = std::max(busiest, n);
  set("busiest_share", static_cast<double>(busiest) / static_cast<double>(last.requests));
  int idle = 0;
  for (int w = 0; w < workers; ++w) idle += last.per_worker.count(w) == 0;
  set("idle_workers", idle);
  // What the server itself counted (see server.cc): under this bounded load
  // all are 0; anything else means the row measured the server's defences.
  for (const char* name :
       {"accept_pauses", "header_timeouts", "idle_timeouts", "rejected", "output_high_water"}) {
    auto it = server->stats().find(name);
    if (it != server->stats().end()) set(name, static_cast<double>(it->second));
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
  const int workers = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  if (options.round == 0) {  // Register runs once per round; the context is the run's
    benchmark::AddCustomContext("accept.connections",
                                absl::StrCat(absl::GetFlag(FLAGS_connections)));
    benchmark::AddCustomContext("accept.load_seconds", absl::StrCat(load_seconds));
  }
  std::vector<RoundRow> rows;
  for (const char* model : {"shared", "reuseport", "proxy"}) {
    for (const char* mech : {"blocking", "epoll", "epoll-exclusive", "uring", "uring-multishot"}) {
      for (bool keep_alive : {false, true}) {
        rows.push_back({RowName(model, mech, workers, keep_alive),
                        [model = std::string(model), mech = std::string(mech), workers,
                         keep_alive](benchmark::State& state) {
                          BM_Accept(state, model, mech, workers, keep_alive, Variant());
                        }});
      }
    }
  }
  for (const char* model : {"shared", "reuseport", "reuseport-cpu"}) {
    Variant per_cpu;
    per_cpu.load_threads = workers;
    rows.push_back({absl::StrCat(RowName(model, "epoll", workers, false), "/clients:per-cpu"),
                    [model = std::string(model), workers, per_cpu](benchmark::State& state) {
                      BM_Accept(state, model, "epoll", workers, false, per_cpu);
                    }});
  }
  for (const char* model : {"shared", "reuseport"}) {
    Variant heavy;
    heavy.handler_spin = 1000000;
    rows.push_back({absl::StrCat(RowName(model, "epoll", workers, false), "/handler:spin-1m"),
                    [model = std::string(model), workers, heavy](benchmark::State& state) {
                      BM_Accept(state, model, "epoll", workers, false, heavy);
                    }});
  }
  // One load per repetition: it runs for --load_seconds itself.
  for (const auto& [name, b] : RegisterRound(options, std::move(rows))) b->Iterations(1);
}

}  // namespace
}  // namespace spawnlab

int main(int argc, char** argv) {
  spawnlab::BenchDefaults defaults;
  // 35 rows of half-second loads (--load_seconds), 9 rounds: the repetitions
  // compare's U test needs, in about the 3 minutes that 5 rounds of 1-second
  // loads took, and a round short enough that the machine drifts less within
  // it. Each round runs every row once, shuffled; the key ratios (each model
  // over the shared listener, each mechanism over epoll, same load) are taken
  // within a round, so the machine's drift over the run cancels.
  defaults.rounds = 9;
  defaults.ratio_baselines = {{"model", "shared"}, {"mechanism", "epoll"}};
  // Drift: this row, once per round (README, "Noisy runs").
  defaults.canary_row = spawnlab::RowName(
      "shared", "epoll", static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)), /*keep_alive=*/true);
  return spawnlab::BenchMain(argc, argv, "accept", spawnlab::Register, defaults);
}
