// connection.h: a client connection's state in the accept experiment's
// server, the same for every accept mechanism: what came in, what waits to go
// out, and which timeout applies.
//
//   Conn c(Now());
//   c.Received(buf, n, Now());
//   c.Produce(worker, /*force_close=*/false);  // answers the complete requests
//   if (!Flush(fd, c, Now())) close(fd);       // the client is gone

#ifndef SPAWNLAB_EXPERIMENTS_ACCEPT_CONNECTION_H_
#define SPAWNLAB_EXPERIMENTS_ACCEPT_CONNECTION_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "experiments/accept/http.h"
#include "experiments/accept/server_common.h"

namespace spawnlab::accept {

struct Conn {
  std::string in;
  spawnlab::http::OutputBuffer out;
  bool close_after = false;   // close once `out` is sent
  bool peer_eof = false;      // the client shut its writing side
  bool served = false;        // at least one request answered
  int64_t last_progress;      // last byte read or written (or the accept)
  int64_t head_started = 0;   // when `in` got the first byte of a head; 0 if empty
  int64_t last_received = 0;  // when bytes last came in

  explicit Conn(int64_t now) : last_progress(now) {}

  enum class Timeout { kNone, kHeader, kIdle };
  // The timeout that applies now, and when it expires.
  std::pair<Timeout, int64_t> Deadline() const;
  // Counts and says whether the connection has outlived its deadline.
  bool Expired(int64_t now) const;
  void Received(const char* data, size_t n, int64_t now);
  // Answers the complete requests in `in`, up to the high-water mark.
  // True if it added output.
  bool Produce(int worker, bool force_close);
  // Reading stops while the answers wait for the client, and after the end.
  bool WantsRead() const { return !peer_eof && !close_after && out.size() < kHighWater; }
  // Nothing more will be sent.
  bool Finished() const { return out.empty() && (close_after || peer_eof); }
};

// Writes what the socket takes. False on an error (the client is gone).
bool Flush(int fd, Conn& c, int64_t now);

}  // namespace spawnlab::accept

#endif  // SPAWNLAB_EXPERIMENTS_ACCEPT_CONNECTION_H_
