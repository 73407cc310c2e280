#include "experiments/accept/connection.h"

#include <errno.h>
#include <sys/socket.h>

namespace spawnlab::accept {

std::pair<Conn::Timeout, int64_t> Conn::Deadline() const {
  if (!in.empty()) return {Timeout::kHeader, head_started + limits.header_ns};
  if (!served && out.empty()) return {Timeout::kHeader, last_progress + limits.header_ns};
  return {Timeout::kIdle, last_progress + limits.idle_ns};
}

bool Conn::Expired(int64_t now) const {
  auto [kind, at] = Deadline();
  if (now < at) return false;
  (kind == Timeout::kHeader ? stats->header_timeouts : stats->idle_timeouts)++;
  return true;
}

void Conn::Received(const char* data, size_t n, int64_t now) {
  if (close_after) return;  // what follows a closing request is dropped
  if (in.empty()) head_started = now;
  in.append(data, n);
  last_progress = last_received = now;
}

bool Conn::Produce(int worker, bool force_close) {
  if (close_after || in.empty() || out.size() >= kHighWater) return false;
  spawnlab::http::Answered a =
      spawnlab::http::Respond(in, worker, force_close, kHighWater - out.size(), out.string());
  in.erase(0, a.consumed);
  if (limits.handler_spin > 0 && a.requests > 0) Spin(limits.handler_spin * a.requests);
  // What is left is the start of the next head, which came with the last
  // read at the earliest it can be known: a pipelining client's clock starts
  // anew with each request answered, not at its connection's first byte.
  if (a.consumed > 0) head_started = in.empty() ? 0 : last_received;
  if (a.requests > 0) served = true;
  if (a.rejected) stats->rejected++;
  if (a.close) {
    close_after = true;
    in.clear();
  }
  if (out.size() >= kHighWater) stats->output_high_water++;
  return a.requests > 0;
}

bool Flush(int fd, Conn& c, int64_t now) {
  while (!c.out.empty()) {
    ssize_t w = send(fd, c.out.data(), c.out.size(), MSG_NOSIGNAL);
    if (w > 0) {
      c.out.Consume(static_cast<size_t>(w));
      c.last_progress = now;
      continue;
    }
    if (w < 0 && errno == EINTR) continue;
    return w < 0 && errno == EAGAIN;
  }
  return true;
}

}  // namespace spawnlab::accept
