// server.cc: an HTTP/1.1 server on loopback with W worker processes, in one
// of three models (shared listener, SO_REUSEPORT, user-space proxy) and with
// one of five accept mechanisms (blocking, epoll, epoll-exclusive, uring,
// uring-multishot), for the accept experiment and for wrk.
//
//   bazel run //experiments/accept:server -- --model=reuseport --mechanism=epoll --workers=2
//
// It binds 127.0.0.1 only, bounds what each client may cost, prints
// "listening on 127.0.0.1:PORT" when ready and stops, reaping every worker,
// on SIGINT or SIGTERM. Its full contract (models, mechanisms, limits,
// output, exit codes): README.md, "The server".

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <linux/filter.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/flags/commandlineflag.h"
#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/flags/usage.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "absl/time/time.h"
#include "experiments/accept/http.h"
#include "lib/clock.h"
#include "lib/probes.h"

ABSL_FLAG(std::string, model, "shared", "shared, reuseport, reuseport-cpu or proxy");
ABSL_FLAG(std::string, mechanism, "epoll",
          "blocking, epoll, epoll-exclusive, uring or uring-multishot");
ABSL_FLAG(int, workers, 0, "Worker processes; 0 means one per CPU.");
ABSL_FLAG(int, port, 8080, "TCP port on 127.0.0.1; 0 picks a free one.");
ABSL_FLAG(bool, die_with_parent, false,
          "Stop (as on SIGTERM) when the process that started the server dies: for harnesses.");
ABSL_FLAG(int, expect_parent, 0,
          "With --die_with_parent: the pid the parent must have; any other parent (the harness "
          "died before the server started) is an error.");
ABSL_FLAG(absl::Duration, header_timeout, absl::Seconds(10),
          "A request head must arrive within this of the connection or of its first byte.");
ABSL_FLAG(absl::Duration, idle_timeout, absl::Seconds(60),
          "A connection with nothing read or written for this long is closed.");
ABSL_FLAG(int, nofile, 0,
          "If set, lower the descriptor limit (RLIMIT_NOFILE) to this: to see the server run out "
          "of descriptors.");
ABSL_FLAG(int, max_connections, 10000,
          "Open connections per worker (client connections for the proxy's relay); at the limit "
          "a worker stops accepting until one closes.");
ABSL_FLAG(int64_t, handler_spin, 0,
          "Rounds of a busy loop per request before its answer: a CPU-heavy handler.");

namespace {

constexpr int kExitBadInput = 2;
constexpr int kExitUnsupported = 3;
constexpr size_t kHighWater = 256 * 1024;  // pending output per connection
constexpr size_t kChunk = 16384;           // one read
constexpr int64_t kAcceptPauseNs = 100'000'000;

int64_t handler_spin = 0;  // --handler_spin

// The handler's work: `rounds` steps of a linear congruential generator that
// the compiler cannot skip.
void Spin(int64_t rounds) {
  uint64_t x = 1;
  for (int64_t i = 0; i < rounds; ++i) x = x * 6364136223846793005u + 1442695040888963407u;
  asm volatile("" : : "r"(x));
}
constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

[[noreturn]] void Fail(int code, const std::string& message) {
  fprintf(stderr, "server: %s\n", message.c_str());
  fflush(stderr);
  _exit(code);
}

// Abseil's parser exits 1 on a flag it cannot read, and the contract above is
// 2 for bad input: so every `--name=value` and `--name value` is tried first
// with the flag's own parser, and an unknown flag is refused the same way.
void CheckFlagsOrExit(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    absl::string_view arg = argv[i];
    if (arg == "--") break;
    if (!absl::ConsumePrefix(&arg, "--") && !absl::ConsumePrefix(&arg, "-")) continue;
    const size_t eq = arg.find('=');
    const absl::string_view name = arg.substr(0, eq);
    if (name == "help" || name == "helpfull" || name == "helpshort" || name == "helpon" ||
        name == "helpmatch" || name == "version") {
      continue;  // Abseil's own, which it answers
    }
    absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
    if (flag == nullptr && absl::StartsWith(name, "no")) {
      absl::CommandLineFlag* negated = absl::FindCommandLineFlag(name.substr(2));
      if (negated != nullptr && negated->IsOfType<bool>() && eq == absl::string_view::npos)
        continue;
    }
    if (flag == nullptr)
      Fail(kExitBadInput, absl::StrCat("unknown flag --", name, " (see --help)"));
    std::string value;
    if (eq != absl::string_view::npos) {
      value = std::string(arg.substr(eq + 1));
    } else if (flag->IsOfType<bool>()) {
      continue;
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      Fail(kExitBadInput, absl::StrCat("--", name, " needs a value"));
    }
    std::string error;
    if (!flag->ParseFrom(value, &error)) {
      Fail(kExitBadInput, absl::StrCat("--", name, "=", value, ": ", error));
    }
  }
}

// What every worker (and the relay) counts, in memory shared with the
// supervisor, which prints the sums when it stops.
struct Stats {
  std::atomic<int64_t> accept_pauses{0};      // accepting paused: EMFILE, ENFILE or the cap
  std::atomic<int64_t> header_timeouts{0};    // no complete request head in time
  std::atomic<int64_t> idle_timeouts{0};      // nothing read or written in time
  std::atomic<int64_t> rejected{0};           // answered 400 or 431
  std::atomic<int64_t> output_high_water{0};  // reading stopped: too much unread output
};

// Settings every worker shares.
struct Limits {
  int64_t header_ns;
  int64_t idle_ns;
  size_t max_connections;
  int64_t tick_ns;  // how often connections are checked for timeouts
};

Limits limits;
Stats* stats = nullptr;  // this process's slot

int64_t Now() { return spawnlab::MonotonicNanos(); }

absl::StatusOr<int> Listen(int port, bool reuseport) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::ErrnoToStatus(errno, "socket");
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (reuseport) setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one));
  struct sockaddr_in addr = {};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    int err = errno;
    close(fd);
    return absl::ErrnoToStatus(err, err == EADDRINUSE
                                        ? absl::StrCat("port ", port, " on 127.0.0.1 is in use")
                                        : absl::StrCat("bind 127.0.0.1:", port));
  }
  if (listen(fd, 4096) != 0) {
    int err = errno;
    close(fd);
    return absl::ErrnoToStatus(err, "listen");
  }
  return fd;
}

int PortOf(int fd) {
  struct sockaddr_in addr = {};
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  return ntohs(addr.sin_port);
}

void SetNonBlocking(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

// accept4's errors that mean "out of a resource": retrying at once would spin
// on a listener that stays readable.
bool OutOfResources(int err) {
  return err == EMFILE || err == ENFILE || err == ENOBUFS || err == ENOMEM;
}

// ---- one connection ---------------------------------------------------------

// A client connection's state, the same for every mechanism.
struct Conn {
  std::string in;
  spawnlab::http::OutputBuffer out;
  bool close_after = false;  // close once `out` is sent
  bool peer_eof = false;     // the client shut its writing side
  bool served = false;       // at least one request answered
  int64_t last_progress;     // last byte read or written (or the accept)
  int64_t head_started = 0;  // when `in` got the first byte of a head; 0 if empty
  int64_t last_received = 0;  // when bytes last came in

  explicit Conn(int64_t now) : last_progress(now) {}

  enum class Timeout { kNone, kHeader, kIdle };
  // The timeout that applies now, and when it expires.
  std::pair<Timeout, int64_t> Deadline() const {
    if (!in.empty()) return {Timeout::kHeader, head_started + limits.header_ns};
    if (!served && out.empty()) return {Timeout::kHeader, last_progress + limits.header_ns};
    return {Timeout::kIdle, last_progress + limits.idle_ns};
  }
  // Counts and says whether the connection has outlived its deadline.
  bool Expired(int64_t now) const {
    auto [kind, at] = Deadline();
    if (now < at) return false;
    (kind == Timeout::kHeader ? stats->header_timeouts : stats->idle_timeouts)++;
    return true;
  }
  void Received(const char* data, size_t n, int64_t now) {
    if (close_after) return;  // what follows a closing request is dropped
    if (in.empty()) head_started = now;
    in.append(data, n);
    last_progress = last_received = now;
  }
  // Answers the complete requests in `in`, up to the high-water mark.
  // True if it added output.
  bool Produce(int worker, bool force_close) {
    if (close_after || in.empty() || out.size() >= kHighWater) return false;
    spawnlab::http::Answered a =
        spawnlab::http::Respond(in, worker, force_close, kHighWater - out.size(), out.string());
    in.erase(0, a.consumed);
    if (handler_spin > 0 && a.requests > 0) Spin(handler_spin * a.requests);
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
  // Reading stops while the answers wait for the client, and after the end.
  bool WantsRead() const { return !peer_eof && !close_after && out.size() < kHighWater; }
  // Nothing more will be sent.
  bool Finished() const { return out.empty() && (close_after || peer_eof); }
};

// Writes what the socket takes. False on an error (the client is gone).
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

// ---- blocking -------------------------------------------------------------

void ServeBlocking(int listener, int worker) {
  const struct timeval send_timeout = {
      static_cast<time_t>(limits.idle_ns / 1'000'000'000),
      static_cast<suseconds_t>(limits.idle_ns % 1'000'000'000 / 1000)};
  char buf[kChunk];
  while (true) {
    int fd = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (OutOfResources(errno)) {
        stats->accept_pauses++;
        poll(nullptr, 0, static_cast<int>(kAcceptPauseNs / 1'000'000));
        continue;
      }
      if (errno == EINTR || errno == ECONNABORTED || errno == EPROTO || errno == EPERM) continue;
      Fail(1, absl::StrCat("accept4: ", strerror(errno)));
    }
    // A client that stops reading holds the worker for --idle_timeout.
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &send_timeout, sizeof(send_timeout));
    Conn c(Now());
    while (!c.Finished()) {
      // A slow or silent client holds the worker for --header_timeout at most.
      const int64_t wait_ns = c.Deadline().second - Now();
      struct pollfd pfd = {fd, POLLIN, 0};
      int r = wait_ns <= 0 ? 0 : poll(&pfd, 1, static_cast<int>((wait_ns + 999'999) / 1'000'000));
      if (r < 0 && errno == EINTR) continue;
      if (r == 0) {
        c.Expired(Now());
        break;
      }
      ssize_t n = read(fd, buf, sizeof(buf));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      c.Received(buf, static_cast<size_t>(n), Now());
      c.Produce(worker, /*force_close=*/true);
      // Blocking writes: a send timeout leaves output unsent.
      if (!Flush(fd, c, Now())) break;
      if (!c.out.empty()) {
        stats->idle_timeouts++;
        break;
      }
    }
    close(fd);
  }
}

// ---- epoll ------------------------------------------------------------------

// Accepting on a non-blocking listener through epoll, paused when out of
// descriptors or at the connection cap: the listener is taken out of the
// epoll set so that a level-triggered wakeup cannot spin.
class EpollAcceptor {
 public:
  EpollAcceptor(int ep, int listener, bool exclusive)
      : ep_(ep), listener_(listener), exclusive_(exclusive) {}

  // Adds the listener; the error of epoll_ctl, if any.
  int Arm() {
    struct epoll_event ev = {EPOLLIN | (exclusive_ ? EPOLLEXCLUSIVE : 0u), {.fd = listener_}};
    if (epoll_ctl(ep_, EPOLL_CTL_ADD, listener_, &ev) != 0) return errno;
    paused_ = false;
    resume_at_ = kNever;
    return 0;
  }
  int listener() const { return listener_; }

  // Accepts until none is left or `open` reaches the cap; `take` gets each new
  // descriptor (non-blocking) and returns the number now open. `ready`, if
  // given, is asked first: false (out of what a connection needs) pauses.
  void AcceptAll(size_t open, const std::function<size_t(int)>& take,
                 const std::function<bool()>& ready = nullptr) {
    while (open < limits.max_connections) {
      if (ready && !ready()) return Pause(Now() + kAcceptPauseNs);
      int fd = accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
      if (fd >= 0) {
        open = take(fd);
        continue;
      }
      if (errno == EAGAIN || errno == EWOULDBLOCK) return;
      if (OutOfResources(errno)) return Pause(Now() + kAcceptPauseNs);
      if (errno == EINTR || errno == ECONNABORTED || errno == EPROTO || errno == EPERM) continue;
      return Pause(Now() + kAcceptPauseNs);  // unexpected: do not spin on it either
    }
    Pause(kNever);  // at the cap: until a connection closes
  }

  // Called after connections close and when the timer passes.
  void MaybeResume(size_t open, int64_t now) {
    if (!paused_ || open >= limits.max_connections) return;
    if (resume_at_ != kNever && now < resume_at_ && !closed_since_pause_) return;
    Arm();
  }
  void ConnectionClosed() { closed_since_pause_ = true; }
  int64_t resume_at() const { return paused_ ? resume_at_ : kNever; }

 private:
  void Pause(int64_t until) {
    stats->accept_pauses++;
    epoll_ctl(ep_, EPOLL_CTL_DEL, listener_, nullptr);
    paused_ = true;
    resume_at_ = until;
    closed_since_pause_ = false;
  }

  int ep_;
  int listener_;
  bool exclusive_;
  bool paused_ = false;
  bool closed_since_pause_ = false;
  int64_t resume_at_ = kNever;
};

// The epoll_wait timeout until `at` (and at most one tick).
int WaitMs(int64_t at, int64_t next_sweep, int64_t now) {
  const int64_t until = std::min(at, next_sweep);
  if (until <= now) return 0;
  return static_cast<int>(std::min<int64_t>((until - now + 999'999) / 1'000'000, 1000));
}

void ServeEpoll(int listener, int worker, bool exclusive) {
  int ep = epoll_create1(EPOLL_CLOEXEC);
  EpollAcceptor acceptor(ep, listener, exclusive);
  if (int err = acceptor.Arm(); err != 0) {
    Fail(exclusive ? kExitUnsupported : 1, absl::StrCat("epoll_ctl listener: ", strerror(err)));
  }
  struct Entry {
    Conn conn;
    uint32_t events;  // the interest registered with epoll
  };
  std::unordered_map<int, Entry> conns;
  auto close_conn = [&](int fd) {
    close(fd);  // leaves the epoll set with its last reference
    conns.erase(fd);
    acceptor.ConnectionClosed();
  };
  // Reads, answers and writes as far as the connection allows; false when it
  // is to be closed.
  char buf[kChunk];
  auto serve = [&](int fd, Entry& e, uint32_t events) -> bool {
    Conn& c = e.conn;
    const int64_t now = Now();
    if (events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
      // A few reads per wakeup, so that one client cannot hold the worker.
      for (int i = 0; i < 4 && c.WantsRead(); ++i) {
        ssize_t r = read(fd, buf, sizeof(buf));
        if (r > 0) {
          c.Received(buf, static_cast<size_t>(r), now);
          c.Produce(worker, false);
          if (!Flush(fd, c, now)) return false;
          if (static_cast<size_t>(r) < sizeof(buf)) break;
          continue;
        }
        if (r == 0) c.peer_eof = true;
        if (r < 0 && errno == EINTR) continue;
        if (r < 0 && errno != EAGAIN) return false;
        break;
      }
    }
    // Answer what is buffered while the client keeps up.
    do {
      if (!Flush(fd, c, now)) return false;
    } while (c.out.empty() && c.Produce(worker, false));
    if (c.Finished()) return false;
    const uint32_t want = (c.WantsRead() ? EPOLLIN : 0u) | (c.out.empty() ? 0u : EPOLLOUT);
    if (want != e.events) {
      struct epoll_event ev = {want, {.fd = fd}};
      epoll_ctl(ep, EPOLL_CTL_MOD, fd, &ev);
      e.events = want;
    }
    return true;
  };
  struct epoll_event events[128];
  int64_t next_sweep = Now() + limits.tick_ns;
  while (true) {
    int n = epoll_wait(ep, events, 128, WaitMs(acceptor.resume_at(), next_sweep, Now()));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) Fail(1, absl::StrCat("epoll_wait: ", strerror(errno)));
    for (int i = 0; i < n; ++i) {
      const int fd = events[i].data.fd;
      if (fd == listener) {
        acceptor.AcceptAll(conns.size(), [&](int c) {
          struct epoll_event ev = {EPOLLIN, {.fd = c}};
          epoll_ctl(ep, EPOLL_CTL_ADD, c, &ev);
          conns.emplace(c, Entry{Conn(Now()), EPOLLIN});
          return conns.size();
        });
        continue;
      }
      auto it = conns.find(fd);
      if (it == conns.end()) continue;
      if (!serve(fd, it->second, events[i].events)) close_conn(fd);
    }
    const int64_t now = Now();
    if (now >= next_sweep) {
      next_sweep = now + limits.tick_ns;
      for (auto it = conns.begin(); it != conns.end();) {
        const int fd = it->first;
        ++it;
        if (conns.at(fd).conn.Expired(now)) close_conn(fd);
      }
    }
    acceptor.MaybeResume(conns.size(), now);
  }
}

// ---- io_uring -------------------------------------------------------------

enum Op : uint64_t { kAccept = 1, kRecv = 2, kSend = 3, kTick = 4, kResume = 5, kCancel = 6 };
uint64_t Tag(Op op, int fd) {
  return (static_cast<uint64_t>(op) << 32) | static_cast<uint32_t>(fd);
}

// Each connection has exactly one request in flight (a recv or a send), so
// its buffers are never touched by the kernel after it is dropped: a timeout
// shuts the socket down and the drop follows the request's completion.
struct UringConn {
  explicit UringConn(int64_t now) : conn(now) {}
  Conn conn;
  char buf[kChunk];
  bool expired = false;
};

void ServeUring(int listener, int worker, bool multishot) {
  struct io_uring ring;
  int err = io_uring_queue_init(512, &ring, 0);
  if (err < 0) Fail(kExitUnsupported, absl::StrCat("io_uring_queue_init: ", strerror(-err)));
  std::unordered_map<int, std::unique_ptr<UringConn>> conns;
  auto sqe = [&]() {
    struct io_uring_sqe* s = io_uring_get_sqe(&ring);
    if (s == nullptr) {
      io_uring_submit(&ring);
      s = io_uring_get_sqe(&ring);
    }
    return s;
  };
  bool accept_armed = false;  // an accept request is in flight
  bool resume_armed = false;  // a pause timer is in flight
  bool first_accept = true;
  auto maybe_accept = [&] {
    if (accept_armed || resume_armed || conns.size() >= limits.max_connections) return;
    struct io_uring_sqe* s = sqe();
    if (multishot) {
      io_uring_prep_multishot_accept(s, listener, nullptr, nullptr, SOCK_CLOEXEC);
    } else {
      io_uring_prep_accept(s, listener, nullptr, nullptr, SOCK_CLOEXEC);
    }
    io_uring_sqe_set_data64(s, Tag(kAccept, listener));
    accept_armed = true;
  };
  // Stops accepting: a multishot accept is cancelled; `pause` also arms a
  // 100 ms timer after which accepting resumes.
  struct __kernel_timespec pause_ts = {0, kAcceptPauseNs};
  auto stop_accepting = [&](bool pause) {
    stats->accept_pauses++;
    if (multishot && accept_armed) {
      struct io_uring_sqe* s = sqe();
      io_uring_prep_cancel64(s, Tag(kAccept, listener), 0);
      io_uring_sqe_set_data64(s, Tag(kCancel, listener));
    }
    if (pause && !resume_armed) {
      struct io_uring_sqe* s = sqe();
      io_uring_prep_timeout(s, &pause_ts, 0, 0);
      io_uring_sqe_set_data64(s, Tag(kResume, listener));
      resume_armed = true;
    }
  };
  struct __kernel_timespec tick_ts = {limits.tick_ns / 1'000'000'000,
                                      limits.tick_ns % 1'000'000'000};
  auto arm_tick = [&] {
    struct io_uring_sqe* s = sqe();
    io_uring_prep_timeout(s, &tick_ts, 0, 0);
    io_uring_sqe_set_data64(s, Tag(kTick, listener));
  };
  auto arm_recv = [&](int fd, UringConn& u) {
    struct io_uring_sqe* s = sqe();
    io_uring_prep_recv(s, fd, u.buf, sizeof(u.buf), 0);
    io_uring_sqe_set_data64(s, Tag(kRecv, fd));
  };
  auto arm_send = [&](int fd, UringConn& u) {
    struct io_uring_sqe* s = sqe();
    io_uring_prep_send(s, fd, u.conn.out.data(), u.conn.out.size(), MSG_NOSIGNAL);
    io_uring_sqe_set_data64(s, Tag(kSend, fd));
  };
  auto drop = [&](int fd) {
    close(fd);
    conns.erase(fd);
    maybe_accept();
  };
  // After a completion: the connection's next request, or its end.
  auto next = [&](int fd, UringConn& u) {
    Conn& c = u.conn;
    if (c.out.empty()) c.Produce(worker, false);
    if (!c.out.empty()) return arm_send(fd, u);
    if (u.expired || c.Finished()) return drop(fd);
    arm_recv(fd, u);
  };
  maybe_accept();
  arm_tick();
  while (true) {
    int r = io_uring_submit_and_wait(&ring, 1);
    if (r < 0 && r != -EINTR) Fail(1, absl::StrCat("io_uring_submit_and_wait: ", strerror(-r)));
    struct io_uring_cqe* cqe;
    unsigned head, seen = 0;
    io_uring_for_each_cqe(&ring, head, cqe) {
      ++seen;
      const uint64_t tag = io_uring_cqe_get_data64(cqe);
      const Op op = static_cast<Op>(tag >> 32);
      const int fd = static_cast<int>(tag & 0xffffffff);
      const int res = cqe->res;
      const int64_t now = Now();
      switch (op) {
        case kAccept:
          if (!multishot || !(cqe->flags & IORING_CQE_F_MORE)) accept_armed = false;
          if (res >= 0) {
            auto& u = conns[res];
            u = std::make_unique<UringConn>(now);
            arm_recv(res, *u);
            if (conns.size() >= limits.max_connections) stop_accepting(/*pause=*/false);
          } else if (first_accept && res == -EINVAL) {
            Fail(kExitUnsupported, multishot ? "multishot accept needs Linux 5.19 (EINVAL)"
                                             : "io_uring accept rejected (EINVAL)");
          } else if (res != -ECANCELED && res != -EINTR && res != -ECONNABORTED && res != -EAGAIN) {
            stop_accepting(/*pause=*/true);  // EMFILE and the like: do not spin
          }
          first_accept = false;
          maybe_accept();
          continue;
        case kResume:
          resume_armed = false;
          maybe_accept();
          continue;
        case kCancel:
          continue;
        case kTick:
          for (auto& [cfd, u] : conns) {
            if (!u->expired && u->conn.Expired(now)) {
              u->expired = true;
              shutdown(cfd, SHUT_RDWR);  // completes the request in flight
            }
          }
          arm_tick();
          continue;
        case kRecv:
        case kSend:
          break;
      }
      auto it = conns.find(fd);
      if (it == conns.end()) continue;
      UringConn& u = *it->second;
      Conn& c = u.conn;
      if (op == kRecv) {
        if (res == -EINTR || res == -EAGAIN) {
          arm_recv(fd, u);
          continue;
        }
        if (res < 0) {
          drop(fd);
          continue;
        }
        if (res == 0) {
          c.peer_eof = true;
        } else {
          c.Received(u.buf, static_cast<size_t>(res), now);
        }
        next(fd, u);
      } else {  // kSend
        if (res == 0 || (res < 0 && res != -EINTR && res != -EAGAIN)) {
          drop(fd);
          continue;
        }
        if (res > 0) {
          c.out.Consume(static_cast<size_t>(res));
          c.last_progress = now;
        }
        next(fd, u);
      }
    }
    io_uring_cq_advance(&ring, seen);
  }
}

// ---- the proxy's relay ------------------------------------------------------

// Copies bytes between each client and a backend, both ways, through epoll.
// A side's pending bytes are bounded: reading from its peer stops at the
// high-water mark. An end of stream on one side is passed on as a shutdown of
// the other's writing side once everything before it is written, so a client
// that half-closes still gets its answers. Backends are connected without
// blocking; a backend that refuses gets the client a 502.
constexpr char kBadGateway[] =
    "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";

void Relay(int listener, const std::vector<int>& backend_ports) {
  int ep = epoll_create1(EPOLL_CLOEXEC);
  EpollAcceptor acceptor(ep, listener, false);
  if (int err = acceptor.Arm(); err != 0) {
    Fail(1, absl::StrCat("epoll_ctl listener: ", strerror(err)));
  }
  struct Side {
    int peer = -1;
    bool is_client = false;
    spawnlab::http::OutputBuffer pending;  // bytes waiting to be written to this side
    bool connecting = false;               // a backend whose connect is in progress
    bool read_eof = false;                 // this side sent its end of stream
    bool shut_write = false;               // the end of stream is passed on to this side
    uint32_t events = 0;
    int64_t last_progress = 0;
  };
  std::unordered_map<int, Side> sides;
  size_t clients = 0;
  size_t next_backend = 0;
  auto close_pair = [&](int fd) {
    auto it = sides.find(fd);
    if (it == sides.end()) return;
    const int peer = it->second.peer;
    for (int f : {fd, peer}) {
      close(f);
      sides.erase(f);
    }
    --clients;
    acceptor.ConnectionClosed();
  };
  auto can_read = [&](const Side& s) {
    const Side& p = sides.at(s.peer);
    return !s.connecting && !s.read_eof && p.pending.size() < kHighWater;
  };
  auto update = [&](int fd) {
    Side& s = sides.at(fd);
    const uint32_t want =
        (can_read(s) ? EPOLLIN : 0u) | (s.connecting || !s.pending.empty() ? EPOLLOUT : 0u);
    if (want == s.events) return;
    struct epoll_event ev = {want, {.fd = fd}};
    epoll_ctl(ep, EPOLL_CTL_MOD, fd, &ev);
    s.events = want;
  };
  // Writes `fd`'s pending bytes, then passes an end of stream on. False on an
  // error.
  auto flush = [&](int fd, int64_t now) -> bool {
    Side& s = sides.at(fd);
    if (s.connecting) return true;
    while (!s.pending.empty()) {
      ssize_t w = send(fd, s.pending.data(), s.pending.size(), MSG_NOSIGNAL);
      if (w > 0) {
        s.pending.Consume(static_cast<size_t>(w));
        s.last_progress = sides.at(s.peer).last_progress = now;
        continue;
      }
      if (w < 0 && errno == EINTR) continue;
      if (w < 0 && errno == EAGAIN) return true;
      return false;
    }
    if (sides.at(s.peer).read_eof && !s.shut_write) {
      shutdown(fd, SHUT_WR);
      s.shut_write = true;
    }
    return true;
  };
  // The backend socket of the next client, made before accepting it: out of
  // descriptors, the relay pauses instead of accepting a client it must drop.
  int spare = -1;
  auto ready = [&] {
    if (spare < 0) spare = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    return spare >= 0;
  };
  auto new_client = [&](int c) -> size_t {
    const int64_t now = Now();
    const int b = spare;
    spare = -1;
    struct sockaddr_in addr = {};
    addr.sin_family = AF_INET;
    addr.sin_port =
        htons(static_cast<uint16_t>(backend_ports[next_backend++ % backend_ports.size()]));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const bool connected = connect(b, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
    if (!connected && errno != EINPROGRESS) {
      (void)!send(c, kBadGateway, sizeof(kBadGateway) - 1, MSG_NOSIGNAL);
      close(b);
      close(c);
      return clients;
    }
    int one = 1;
    setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (connected) setsockopt(b, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    Side& client = sides[c];
    client.peer = b;
    client.is_client = true;
    client.last_progress = now;
    Side& backend = sides[b];
    backend.peer = c;
    backend.is_client = false;
    backend.connecting = !connected;
    backend.last_progress = now;
    // The client is read at once (into the backend's pending bytes while it
    // connects); the backend's EPOLLOUT says its connect finished.
    client.events = EPOLLIN;
    backend.events = connected ? EPOLLIN : EPOLLOUT;
    for (int f : {c, b}) {
      struct epoll_event ev = {sides.at(f).events, {.fd = f}};
      epoll_ctl(ep, EPOLL_CTL_ADD, f, &ev);
    }
    return ++clients;
  };
  struct epoll_event events[128];
  char buf[kChunk];
  int64_t next_sweep = Now() + limits.tick_ns;
  while (true) {
    int n = epoll_wait(ep, events, 128, WaitMs(acceptor.resume_at(), next_sweep, Now()));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) Fail(1, absl::StrCat("epoll_wait: ", strerror(errno)));
    for (int i = 0; i < n; ++i) {
      const int fd = events[i].data.fd;
      if (fd == listener) {
        acceptor.AcceptAll(clients, new_client, ready);
        continue;
      }
      if (!sides.count(fd)) continue;  // closed with its peer in this batch
      const int64_t now = Now();
      const uint32_t ev = events[i].events;
      Side& s = sides.at(fd);
      const int peer = s.peer;
      bool alive = true;
      if (s.connecting) {
        int error = 0;
        if (ev & (EPOLLERR | EPOLLHUP)) {  // the connect failed: say why
          socklen_t len = sizeof(error);
          getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len);
          if (error == 0) error = ECONNREFUSED;
        }
        if (error != 0) {
          (void)!send(peer, kBadGateway, sizeof(kBadGateway) - 1, MSG_NOSIGNAL);
          alive = false;
        } else if (ev & EPOLLOUT) {
          s.connecting = false;
          int one = 1;
          setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        }
      }
      if (alive && (ev & EPOLLOUT)) alive = flush(fd, now);
      if (alive && (ev & (EPOLLIN | EPOLLHUP | EPOLLERR))) {
        for (int k = 0; k < 4 && can_read(sides.at(fd)); ++k) {
          ssize_t r = read(fd, buf, sizeof(buf));
          if (r > 0) {
            Side& to = sides.at(peer);
            to.pending.Append(absl::string_view(buf, static_cast<size_t>(r)));
            if (to.pending.size() >= kHighWater) stats->output_high_water++;
            sides.at(fd).last_progress = sides.at(peer).last_progress = now;
            if (static_cast<size_t>(r) < sizeof(buf)) break;
            continue;
          }
          if (r == 0) sides.at(fd).read_eof = true;
          if (r < 0 && errno == EINTR) continue;
          if (r < 0 && errno != EAGAIN) alive = false;
          break;
        }
        if (alive) alive = flush(peer, now);
      }
      if (alive) {
        const Side& a = sides.at(fd);
        const Side& b = sides.at(peer);
        // Both ends sent their end of stream and everything is written.
        if (a.read_eof && b.read_eof && a.pending.empty() && b.pending.empty()) alive = false;
      }
      if (!alive) {
        close_pair(fd);
        continue;
      }
      update(fd);
      update(peer);
    }
    const int64_t now = Now();
    if (now >= next_sweep) {
      next_sweep = now + limits.tick_ns;
      std::vector<int> idle;
      for (const auto& [fd, s] : sides) {
        if (s.is_client && now - s.last_progress >= limits.idle_ns) idle.push_back(fd);
      }
      for (int fd : idle) {
        stats->idle_timeouts++;
        close_pair(fd);
      }
    }
    acceptor.MaybeResume(clients, now);
  }
}

// ---- supervisor ---------------------------------------------------------------

enum class Mechanism { kBlocking, kEpoll, kEpollExclusive, kUring, kUringMultishot };

void RunWorker(Mechanism m, int listener, int worker) {
  switch (m) {
    case Mechanism::kBlocking:
      ServeBlocking(listener, worker);
      break;
    case Mechanism::kEpoll:
      ServeEpoll(listener, worker, false);
      break;
    case Mechanism::kEpollExclusive:
      ServeEpoll(listener, worker, true);
      break;
    case Mechanism::kUring:
      ServeUring(listener, worker, false);
      break;
    case Mechanism::kUringMultishot:
      ServeUring(listener, worker, true);
      break;
  }
  _exit(1);
}

// Forks a process that runs `body`, counts into `slot` and dies with the
// supervisor.
pid_t ForkChild(const sigset_t& original_mask, Stats* slot, const std::function<void()>& body) {
  const pid_t supervisor = getpid();
  pid_t pid = fork();
  if (pid < 0) Fail(1, absl::StrCat("fork: ", strerror(errno)));
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != supervisor) _exit(1);  // the supervisor died already
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    sigprocmask(SIG_SETMASK, &original_mask, nullptr);
    stats = slot;
    body();
    _exit(1);
  }
  return pid;
}

}  // namespace

int main(int argc, char** argv) {
  // Before anything else: the parent that --die_with_parent will watch.
  const pid_t parent_at_start = getppid();
  absl::SetProgramUsageMessage(
      "HTTP server on 127.0.0.1 for the accept experiment: --model, --mechanism, --workers, "
      "--port. Runs until SIGINT or SIGTERM.");
  CheckFlagsOrExit(argc, argv);
  std::vector<char*> rest = absl::ParseCommandLine(argc, argv);
  if (rest.size() > 1) Fail(kExitBadInput, absl::StrCat("unexpected argument '", rest[1], "'"));
  const std::string model = absl::GetFlag(FLAGS_model);
  const std::string mech = absl::GetFlag(FLAGS_mechanism);
  if (model != "shared" && model != "reuseport" && model != "reuseport-cpu" && model != "proxy") {
    Fail(kExitBadInput, absl::StrCat("unknown --model '", model,
                                     "': expected shared, reuseport, reuseport-cpu or proxy"));
  }
  handler_spin = absl::GetFlag(FLAGS_handler_spin);
  if (handler_spin < 0) Fail(kExitBadInput, "--handler_spin must be 0 or more");
  const std::map<std::string, Mechanism> mechanisms = {
      {"blocking", Mechanism::kBlocking},
      {"epoll", Mechanism::kEpoll},
      {"epoll-exclusive", Mechanism::kEpollExclusive},
      {"uring", Mechanism::kUring},
      {"uring-multishot", Mechanism::kUringMultishot}};
  auto m = mechanisms.find(mech);
  if (m == mechanisms.end()) {
    Fail(kExitBadInput, absl::StrCat("unknown --mechanism '", mech,
                                     "': expected blocking, epoll, epoll-exclusive, uring or "
                                     "uring-multishot"));
  }
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  int workers = absl::GetFlag(FLAGS_workers);
  if (workers == 0) workers = static_cast<int>(cpus);
  if (workers < 1 || workers > 256) {
    Fail(kExitBadInput, absl::StrCat("--workers=", workers, ": expected 1 to 256"));
  }
  const int port = absl::GetFlag(FLAGS_port);
  if (port < 0 || port > 65535)
    Fail(kExitBadInput, absl::StrCat("--port=", port, ": out of range"));
  const absl::Duration header_timeout = absl::GetFlag(FLAGS_header_timeout);
  const absl::Duration idle_timeout = absl::GetFlag(FLAGS_idle_timeout);
  for (const auto& [name, d] :
       {std::pair<const char*, absl::Duration>{"header_timeout", header_timeout},
        {"idle_timeout", idle_timeout}}) {
    if (d < absl::Milliseconds(1) || d > absl::Hours(24)) {
      Fail(kExitBadInput,
           absl::StrCat("--", name, "=", absl::FormatDuration(d), ": expected 1ms to 24h"));
    }
  }
  const int max_connections = absl::GetFlag(FLAGS_max_connections);
  if (max_connections < 1) {
    Fail(kExitBadInput,
         absl::StrCat("--max_connections=", max_connections, ": expected 1 or more"));
  }
  if (const int nofile = absl::GetFlag(FLAGS_nofile); nofile != 0) {
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    rl.rlim_cur = static_cast<rlim_t>(nofile);
    if (nofile < 8 || setrlimit(RLIMIT_NOFILE, &rl) != 0) {
      Fail(kExitBadInput,
           absl::StrCat("--nofile=", nofile, ": expected 8 up to the hard limit ", rl.rlim_max));
    }
  }
  limits.header_ns = absl::ToInt64Nanoseconds(header_timeout);
  limits.idle_ns = absl::ToInt64Nanoseconds(idle_timeout);
  limits.max_connections = static_cast<size_t>(max_connections);
  // Timeouts are checked four times per the shorter one (10 ms to 1 s apart).
  limits.tick_ns = std::clamp<int64_t>(std::min(limits.header_ns, limits.idle_ns) / 4, 10'000'000,
                                       1'000'000'000);
  if (m->second == Mechanism::kUring || m->second == Mechanism::kUringMultishot) {
    if (absl::Status s = spawnlab::ProbeIoUringOpcode(IORING_OP_ACCEPT); !s.ok()) {
      Fail(kExitUnsupported, std::string(s.message()));
    }
  }
  const int expect_parent = absl::GetFlag(FLAGS_expect_parent);
  if (expect_parent != 0 && !absl::GetFlag(FLAGS_die_with_parent)) {
    Fail(kExitBadInput, "--expect_parent needs --die_with_parent");
  }
  if (absl::GetFlag(FLAGS_die_with_parent)) {
    // PR_SET_PDEATHSIG watches the parent of the moment: if the harness died
    // before this line, the server was reparented and would run forever.
    int armed = 0;
    if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || prctl(PR_GET_PDEATHSIG, &armed) != 0 ||
        armed != SIGTERM) {
      Fail(1, absl::StrCat("--die_with_parent: PR_SET_PDEATHSIG did not take: ", strerror(errno)));
    }
    const pid_t parent = getppid();
    if (parent != parent_at_start) {
      Fail(1, absl::StrCat("--die_with_parent: the parent (pid ", parent_at_start,
                           ") died before the server started"));
    }
    if (expect_parent != 0 && parent != expect_parent) {
      Fail(1, absl::StrCat("--die_with_parent: the parent is pid ", parent,
                           ", not --expect_parent=", expect_parent,
                           ": the process that started the server is gone"));
    }
  }
  // A server uses every CPU, whatever a parent (a pinned bench) had.
  cpu_set_t all;
  CPU_ZERO(&all);
  for (long c = 0; c < cpus && c < CPU_SETSIZE; ++c) CPU_SET(c, &all);
  sched_setaffinity(0, sizeof(all), &all);

  // Signals go to the supervisor's sigwaitinfo, never to handlers.
  sigset_t waited, original;
  sigemptyset(&waited);
  sigaddset(&waited, SIGINT);
  sigaddset(&waited, SIGTERM);
  sigaddset(&waited, SIGCHLD);
  sigprocmask(SIG_BLOCK, &waited, &original);
  signal(SIGPIPE, SIG_IGN);

  // One Stats slot per child (the workers and the proxy's relay), shared.
  const size_t slots = static_cast<size_t>(workers) + 1;
  void* shared = mmap(nullptr, slots * sizeof(Stats), PROT_READ | PROT_WRITE,
                      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED) Fail(1, absl::StrCat("mmap: ", strerror(errno)));
  Stats* all_stats = new (shared) Stats[slots];

  std::vector<int> listeners;
  // A port in use is the caller's mistake (exit 2); anything else is not.
  auto must = [&](absl::StatusOr<int> fd) {
    if (!fd.ok()) {
      const std::string message(fd.status().message());
      Fail(absl::StrContains(message, "in use") ? kExitBadInput : 1, message);
    }
    return *fd;
  };
  int public_port = port;
  std::vector<pid_t> pids;
  const bool nonblocking = m->second != Mechanism::kBlocking;
  if (model == "shared") {
    int fd = must(Listen(port, false));
    if (nonblocking) SetNonBlocking(fd);
    public_port = PortOf(fd);
    for (int w = 0; w < workers; ++w) {
      pids.push_back(ForkChild(original, &all_stats[w], [&, w] { RunWorker(m->second, fd, w); }));
    }
  } else if (model == "reuseport" || model == "reuseport-cpu") {
    // The group's sockets are numbered in the order they listen: listener w
    // is index w, which the CPU program below returns for CPU w.
    for (int w = 0; w < workers; ++w) {
      int fd = must(Listen(w == 0 ? port : public_port, true));
      if (nonblocking) SetNonBlocking(fd);
      if (w == 0) public_port = PortOf(fd);
      listeners.push_back(fd);
    }
    const bool per_cpu = model == "reuseport-cpu";
    if (per_cpu) {
      if (workers > cpus) {
        Fail(kExitBadInput, absl::StrCat("--model=reuseport-cpu needs a worker per CPU at most (",
                                         workers, " workers, ", cpus, " CPUs)"));
      }
      struct sock_filter code[] = {
          {BPF_LD | BPF_W | BPF_ABS, 0, 0, static_cast<uint32_t>(SKF_AD_OFF + SKF_AD_CPU)},
          {BPF_RET | BPF_A, 0, 0, 0},
      };
      struct sock_fprog prog = {2, code};
      if (setsockopt(listeners[0], SOL_SOCKET, SO_ATTACH_REUSEPORT_CBPF, &prog, sizeof(prog)) !=
          0) {
        Fail(errno == EINVAL || errno == ENOPROTOOPT ? kExitUnsupported : 1,
             absl::StrCat("SO_ATTACH_REUSEPORT_CBPF (Linux 4.5): ", strerror(errno)));
      }
    }
    for (int w = 0; w < workers; ++w) {
      const int fd = listeners[w];
      pids.push_back(ForkChild(original, &all_stats[w], [&, w, fd, per_cpu] {
        for (int other : listeners) {
          if (other != fd) close(other);
        }
        if (per_cpu) {
          cpu_set_t one;
          CPU_ZERO(&one);
          CPU_SET(w, &one);
          if (sched_setaffinity(0, sizeof(one), &one) != 0) {
            Fail(1, absl::StrCat("pinning worker ", w, " to CPU ", w, ": ", strerror(errno)));
          }
        }
        RunWorker(m->second, fd, w);
      }));
    }
  } else {  // proxy
    int front = must(Listen(port, false));
    SetNonBlocking(front);
    public_port = PortOf(front);
    std::vector<int> backend_ports;
    for (int w = 0; w < workers; ++w) {
      int fd = must(Listen(0, false));
      if (nonblocking) SetNonBlocking(fd);
      backend_ports.push_back(PortOf(fd));
      pids.push_back(ForkChild(original, &all_stats[w], [&, w, fd] {
        close(front);
        RunWorker(m->second, fd, w);
      }));
      close(fd);
    }
    pids.push_back(ForkChild(original, &all_stats[workers], [&] { Relay(front, backend_ports); }));
  }
  printf("listening on 127.0.0.1:%d model=%s mechanism=%s workers=%d\n", public_port, model.c_str(),
         mech.c_str(), workers);
  std::vector<std::string> pid_strings;
  for (pid_t p : pids) pid_strings.push_back(std::to_string(p));
  printf("workers %s\n", absl::StrJoin(pid_strings, " ").c_str());
  fflush(stdout);

  int code = 0;
  while (true) {
    siginfo_t info;
    int sig = sigwaitinfo(&waited, &info);
    if (sig < 0) continue;
    if (sig == SIGCHLD) {
      int status;
      pid_t dead = waitpid(-1, &status, WNOHANG);
      if (dead <= 0) continue;
      for (pid_t& p : pids) {
        if (p == dead) p = -1;
      }
      code = WIFEXITED(status) && WEXITSTATUS(status) == kExitUnsupported ? kExitUnsupported : 1;
      fprintf(stderr, "server: worker %d ended unexpectedly (wait status %d); stopping\n", dead,
              status);
    }
    break;  // SIGINT, SIGTERM, or a worker lost: stop everything
  }
  for (pid_t p : pids) {
    if (p > 0) kill(p, SIGKILL);
  }
  for (pid_t p : pids) {
    if (p <= 0) continue;
    int status;
    while (waitpid(p, &status, 0) < 0 && errno == EINTR) {
    }
  }
  int64_t sums[5] = {};
  for (size_t i = 0; i < slots; ++i) {
    sums[0] += all_stats[i].accept_pauses;
    sums[1] += all_stats[i].header_timeouts;
    sums[2] += all_stats[i].idle_timeouts;
    sums[3] += all_stats[i].rejected;
    sums[4] += all_stats[i].output_high_water;
  }
  printf(
      "stats accept_pauses=%lld header_timeouts=%lld idle_timeouts=%lld rejected=%lld "
      "output_high_water=%lld\n",
      static_cast<long long>(sums[0]), static_cast<long long>(sums[1]),
      static_cast<long long>(sums[2]), static_cast<long long>(sums[3]),
      static_cast<long long>(sums[4]));
  fflush(stdout);
  return code;
}
