// loadgen.h: a bounded HTTP load generator for the accept experiment.
//
// `connections` sockets to 127.0.0.1:port on one epoll set per thread. In
// keep-alive mode each connection sends its next request as soon as the last
// response is in; otherwise each request opens a connection of its own. It
// stops starting requests after `duration` or `max_requests`, and counts a
// request still unanswered after `request_timeout` as a timeout.
//
//   spawnlab::LoadOptions o;
//   o.port = 8080;
//   o.duration = absl::Seconds(1);
//   absl::StatusOr<spawnlab::LoadResult> r = spawnlab::RunLoad(o);
//   // r->requests, r->Percentile(99), r->per_worker, r->errors ...

#ifndef SPAWNLAB_EXPERIMENTS_ACCEPT_LOADGEN_H_
#define SPAWNLAB_EXPERIMENTS_ACCEPT_LOADGEN_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace spawnlab {

// `threads` > 1: each thread pinned to its own CPU, holding its share of the
// connections and of max_requests, their results merged (on loopback the
// kernel handles a SYN on the CPU that sent it, so a load from one CPU looks
// like one CPU's clients to a per-CPU listener). Latency is from the
// request's first byte (keep-alive) or its connect (new connections) to the
// last byte of the response.
struct LoadOptions {
  int port = 0;
  bool keep_alive = true;
  int connections = 16;
  absl::Duration duration = absl::Seconds(1);
  int64_t max_requests = 1000000;
  absl::Duration request_timeout = absl::Seconds(5);
  int threads = 1;  // more than 1: one per CPU 0, 1, ... (wrapping), pinned
};

struct LoadResult {
  int64_t requests = 0;     // answered with a complete response
  int64_t non_2xx = 0;      // of which not 2xx
  int64_t errors = 0;       // connect, read or write failures, early closes
  int64_t timeouts = 0;     // no response within request_timeout
  int64_t connections = 0;  // connections opened
  double seconds = 0;       // from the first request to the last response
  std::vector<double> latency_us;
  std::map<int, int64_t> per_worker;  // responses by X-Worker
  std::string first_error;

  // Adds a load that ran after this one: the counts, latencies and workers'
  // responses add up, and so do the seconds; the first error stays.
  void Append(const LoadResult& later);

  double Percentile(double p) const;  // of latency_us; NaN if empty
  // Standard deviation and max/min of the per-worker counts over `workers`
  // workers (a worker that served nothing counts as 0).
  double SpreadStddev(int workers) const;
  double SpreadMaxOverMin(int workers) const;
};

// Runs the load; an error only if nothing could be set up.
absl::StatusOr<LoadResult> RunLoad(const LoadOptions& options);

}  // namespace spawnlab

#endif  // SPAWNLAB_EXPERIMENTS_ACCEPT_LOADGEN_H_
