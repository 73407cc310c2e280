// server_common.h: what every part of the accept experiment's server shares:
// the limits a worker enforces, the counters it keeps, the listening socket.
//
// The server (server.cc) is a supervisor that forks worker processes; each
// worker serves with one mechanism (serve.h). Its contract: README.md, "The
// server".
//
//   spawnlab::accept::limits.max_connections = 1000;
//   absl::StatusOr<int> fd = spawnlab::accept::Listen(0, /*reuseport=*/false);
//   if (fd.ok()) spawnlab::accept::ServeEpoll(*fd, /*worker=*/0, /*exclusive=*/false);

#ifndef SPAWNLAB_EXPERIMENTS_ACCEPT_SERVER_COMMON_H_
#define SPAWNLAB_EXPERIMENTS_ACCEPT_SERVER_COMMON_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "absl/status/statusor.h"

namespace spawnlab::accept {

inline constexpr int kExitBadInput = 2;
inline constexpr int kExitUnsupported = 3;
inline constexpr size_t kHighWater = 256 * 1024;  // pending output per connection
inline constexpr size_t kChunk = 16384;           // one read
inline constexpr int64_t kAcceptPauseNs = 100'000'000;
inline constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

// What every worker (and the relay) counts, in memory shared with the
// supervisor, which prints the sums when it stops.
struct Stats {
  std::atomic<int64_t> accept_pauses{0};      // accepting paused: EMFILE, ENFILE or the cap
  std::atomic<int64_t> header_timeouts{0};    // no complete request head in time
  std::atomic<int64_t> idle_timeouts{0};      // nothing read or written in time
  std::atomic<int64_t> rejected{0};           // answered 400 or 431
  std::atomic<int64_t> output_high_water{0};  // reading stopped: too much unread output
};

// Settings every worker shares, from the flags.
struct Limits {
  int64_t header_ns = 0;
  int64_t idle_ns = 0;
  size_t max_connections = 0;
  int64_t tick_ns = 0;       // how often connections are checked for timeouts
  int64_t handler_spin = 0;  // busy-loop rounds per request (--handler_spin)
};

// This process's: set by the supervisor before it forks (limits) and in each
// worker (stats, its slot of the shared counters).
extern Limits limits;
extern Stats* stats;

// Prints "server: message" and ends the process with `code`.
[[noreturn]] void Fail(int code, const std::string& message);

int64_t Now();  // CLOCK_MONOTONIC, ns

// The handler's work: `rounds` steps of a linear congruential generator that
// the compiler cannot skip.
void Spin(int64_t rounds);

// A TCP listener on 127.0.0.1:port (0: any free port), SO_REUSEADDR, and
// SO_REUSEPORT if asked. A port in use is an error whose message says so.
absl::StatusOr<int> Listen(int port, bool reuseport);
int PortOf(int fd);
void SetNonBlocking(int fd);

// accept4's errors that mean "out of a resource": retrying at once would spin
// on a listener that stays readable.
bool OutOfResources(int err);

// accept4's errors after which the next accept may succeed at once.
bool RetryAccept(int err);

}  // namespace spawnlab::accept

#endif  // SPAWNLAB_EXPERIMENTS_ACCEPT_SERVER_COMMON_H_
