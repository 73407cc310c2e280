// server.cc: an HTTP/1.1 server on loopback with W worker processes, in one
// of three models and with one of five accept mechanisms, for the accept
// experiment and for wrk.
//
//   bazel run //experiments/accept:server -- --model=reuseport --mechanism=epoll --workers=2
//
// Models:
//   shared     one listening socket, made before the workers are forked; all
//              of them accept on it (pre-forked, as Apache and NGINX of old)
//   reuseport  one SO_REUSEPORT listener per worker on the same port: the
//              kernel spreads connections by hash
//   proxy      one relay process accepts and copies bytes to W backend
//              workers on loopback ports of their own, round robin
// Mechanisms (each worker; the proxy's relay is always epoll):
//   blocking         accept4 and serve one connection at a time; so that
//                    keep-alive clients cannot starve it, it answers one
//                    request per connection (Connection: close)
//   epoll            epoll on the listener and the connections
//   epoll-exclusive  the same with EPOLLEXCLUSIVE on the listener (Linux 4.5)
//   uring            io_uring: single-shot accept, recv and send
//   uring-multishot  io_uring with multishot accept (Linux 5.19)
//
// It binds 127.0.0.1 only, prints "listening on 127.0.0.1:PORT" and a line
// "workers PID..." when ready, and runs until SIGINT or SIGTERM, when it
// stops and reaps every worker and exits 0. Workers die with it
// (PR_SET_PDEATHSIG), and with --die_with_parent it dies with whatever
// started it (a bench or a test that is killed). Exit codes: 2 for bad flags or a port in use, 3 when
// the kernel lacks the mechanism (io_uring), 1 for anything else.

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "experiments/accept/http.h"
#include "lib/probes.h"

ABSL_FLAG(std::string, model, "shared", "shared, reuseport or proxy");
ABSL_FLAG(std::string, mechanism, "epoll",
          "blocking, epoll, epoll-exclusive, uring or uring-multishot");
ABSL_FLAG(int, workers, 0, "Worker processes; 0 means one per CPU.");
ABSL_FLAG(int, port, 8080, "TCP port on 127.0.0.1; 0 picks a free one.");
ABSL_FLAG(bool, die_with_parent, false,
          "Stop (as on SIGTERM) when the process that started the server dies: for harnesses.");

namespace {

constexpr int kExitBadInput = 2;
constexpr int kExitUnsupported = 3;

[[noreturn]] void Fail(int code, const std::string& message) {
  fprintf(stderr, "server: %s\n", message.c_str());
  fflush(stderr);
  _exit(code);
}

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

// ---- blocking -------------------------------------------------------------

void ServeBlocking(int listener, int worker) {
  while (true) {
    int fd = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      Fail(1, absl::StrCat("accept4: ", strerror(errno)));
    }
    std::string in, out;
    bool close_after = false;
    char buf[4096];
    while (!close_after) {
      ssize_t n = read(fd, buf, sizeof(buf));
      if (n <= 0) break;
      in.append(buf, static_cast<size_t>(n));
      in.erase(0, spawnlab::http::Respond(in, worker, /*force_close=*/true, &out, &close_after));
      size_t sent = 0;
      while (sent < out.size()) {
        ssize_t w = write(fd, out.data() + sent, out.size() - sent);
        if (w <= 0) break;
        sent += static_cast<size_t>(w);
      }
      out.clear();
    }
    close(fd);
  }
}

// ---- epoll ------------------------------------------------------------------

struct Conn {
  std::string in, out;
  bool close_after = false;
};

// Writes what it can; false if the connection is finished (closed or broken).
bool Flush(int ep, int fd, Conn& c) {
  while (!c.out.empty()) {
    ssize_t w = write(fd, c.out.data(), c.out.size());
    if (w < 0 && errno == EAGAIN) {
      struct epoll_event ev = {EPOLLIN | EPOLLOUT, {.fd = fd}};
      epoll_ctl(ep, EPOLL_CTL_MOD, fd, &ev);
      return true;
    }
    if (w <= 0) return false;
    c.out.erase(0, static_cast<size_t>(w));
  }
  if (c.close_after) return false;
  struct epoll_event ev = {EPOLLIN, {.fd = fd}};
  epoll_ctl(ep, EPOLL_CTL_MOD, fd, &ev);
  return true;
}

void ServeEpoll(int listener, int worker, bool exclusive) {
  int ep = epoll_create1(EPOLL_CLOEXEC);
  struct epoll_event lev = {EPOLLIN | (exclusive ? EPOLLEXCLUSIVE : 0u), {.fd = listener}};
  if (epoll_ctl(ep, EPOLL_CTL_ADD, listener, &lev) != 0) {
    Fail(exclusive ? kExitUnsupported : 1, absl::StrCat("epoll_ctl listener: ", strerror(errno)));
  }
  std::map<int, Conn> conns;
  struct epoll_event events[128];
  char buf[16384];
  while (true) {
    int n = epoll_wait(ep, events, 128, -1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) Fail(1, absl::StrCat("epoll_wait: ", strerror(errno)));
    for (int i = 0; i < n; ++i) {
      const int fd = events[i].data.fd;
      if (fd == listener) {
        while (true) {
          int c = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
          if (c < 0) break;  // EAGAIN: another worker got it, or none left
          struct epoll_event ev = {EPOLLIN, {.fd = c}};
          epoll_ctl(ep, EPOLL_CTL_ADD, c, &ev);
          conns[c];
        }
        continue;
      }
      Conn& c = conns[fd];
      bool alive = true;
      if (events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
        while (true) {
          ssize_t r = read(fd, buf, sizeof(buf));
          if (r > 0) {
            c.in.append(buf, static_cast<size_t>(r));
            continue;
          }
          if (r < 0 && errno == EAGAIN) break;
          alive = false;  // EOF or error
          break;
        }
        bool close_now = false;
        c.in.erase(0, spawnlab::http::Respond(c.in, worker, false, &c.out, &close_now));
        c.close_after = c.close_after || close_now;
      }
      if (alive || !c.out.empty()) alive = Flush(ep, fd, c) && alive;
      if (!alive) {
        epoll_ctl(ep, EPOLL_CTL_DEL, fd, nullptr);
        close(fd);
        conns.erase(fd);
      }
    }
  }
}

// ---- io_uring -------------------------------------------------------------

enum Op : uint64_t { kAccept = 1, kRecv = 2, kSend = 3 };
uint64_t Tag(Op op, int fd) { return (static_cast<uint64_t>(op) << 32) | static_cast<uint32_t>(fd); }

struct UringConn {
  char buf[16384];
  std::string in, out;
  bool close_after = false;
};

void ServeUring(int listener, int worker, bool multishot) {
  struct io_uring ring;
  int err = io_uring_queue_init(512, &ring, 0);
  if (err < 0) Fail(kExitUnsupported, absl::StrCat("io_uring_queue_init: ", strerror(-err)));
  std::map<int, std::unique_ptr<UringConn>> conns;
  auto sqe = [&]() {
    struct io_uring_sqe* s = io_uring_get_sqe(&ring);
    if (s == nullptr) {
      io_uring_submit(&ring);
      s = io_uring_get_sqe(&ring);
    }
    return s;
  };
  auto arm_accept = [&] {
    struct io_uring_sqe* s = sqe();
    if (multishot) {
      io_uring_prep_multishot_accept(s, listener, nullptr, nullptr, SOCK_CLOEXEC);
    } else {
      io_uring_prep_accept(s, listener, nullptr, nullptr, SOCK_CLOEXEC);
    }
    io_uring_sqe_set_data64(s, Tag(kAccept, listener));
  };
  auto arm_recv = [&](int fd, UringConn& c) {
    struct io_uring_sqe* s = sqe();
    io_uring_prep_recv(s, fd, c.buf, sizeof(c.buf), 0);
    io_uring_sqe_set_data64(s, Tag(kRecv, fd));
  };
  auto arm_send = [&](int fd, UringConn& c) {
    struct io_uring_sqe* s = sqe();
    io_uring_prep_send(s, fd, c.out.data(), c.out.size(), MSG_NOSIGNAL);
    io_uring_sqe_set_data64(s, Tag(kSend, fd));
  };
  auto drop = [&](int fd) {
    close(fd);
    conns.erase(fd);
  };
  arm_accept();
  bool first_accept = true;
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
      if (op == kAccept) {
        if (res >= 0) {
          auto& c = conns[res];
          c = std::make_unique<UringConn>();
          arm_recv(res, *c);
        } else if (first_accept && res == -EINVAL) {
          Fail(kExitUnsupported, multishot ? "multishot accept needs Linux 5.19 (EINVAL)"
                                           : "io_uring accept rejected (EINVAL)");
        }
        first_accept = false;
        if (!multishot || !(cqe->flags & IORING_CQE_F_MORE)) arm_accept();
        continue;
      }
      auto it = conns.find(fd);
      if (it == conns.end()) continue;
      UringConn& c = *it->second;
      if (op == kRecv) {
        if (res <= 0) {
          drop(fd);
          continue;
        }
        c.in.append(c.buf, static_cast<size_t>(res));
        bool close_now = false;
        c.in.erase(0, spawnlab::http::Respond(c.in, worker, false, &c.out, &close_now));
        c.close_after = c.close_after || close_now;
        if (!c.out.empty()) {
          arm_send(fd, c);
        } else {
          arm_recv(fd, c);
        }
      } else {  // kSend
        if (res < 0) {
          drop(fd);
          continue;
        }
        c.out.erase(0, static_cast<size_t>(res));
        if (!c.out.empty()) {
          arm_send(fd, c);
        } else if (c.close_after) {
          drop(fd);
        } else {
          arm_recv(fd, c);
        }
      }
    }
    io_uring_cq_advance(&ring, seen);
  }
}

// ---- the proxy's relay ------------------------------------------------------

void Relay(int listener, const std::vector<int>& backend_ports) {
  int ep = epoll_create1(EPOLL_CLOEXEC);
  struct epoll_event lev = {EPOLLIN, {.fd = listener}};
  epoll_ctl(ep, EPOLL_CTL_ADD, listener, &lev);
  struct Side {
    int peer;
    std::string pending;  // bytes waiting to be written to this side
  };
  std::map<int, Side> sides;
  size_t next = 0;
  auto close_pair = [&](int fd) {
    auto it = sides.find(fd);
    if (it == sides.end()) return;
    int peer = it->second.peer;
    for (int f : {fd, peer}) {
      epoll_ctl(ep, EPOLL_CTL_DEL, f, nullptr);
      close(f);
      sides.erase(f);
    }
  };
  auto write_to = [&](int fd, Side& s) -> bool {
    while (!s.pending.empty()) {
      ssize_t w = write(fd, s.pending.data(), s.pending.size());
      if (w < 0 && errno == EAGAIN) break;
      if (w <= 0) return false;
      s.pending.erase(0, static_cast<size_t>(w));
    }
    struct epoll_event ev = {EPOLLIN | (s.pending.empty() ? 0u : EPOLLOUT), {.fd = fd}};
    epoll_ctl(ep, EPOLL_CTL_MOD, fd, &ev);
    return true;
  };
  struct epoll_event events[128];
  char buf[16384];
  while (true) {
    int n = epoll_wait(ep, events, 128, -1);
    if (n < 0 && errno == EINTR) continue;
    for (int i = 0; i < n; ++i) {
      const int fd = events[i].data.fd;
      if (fd == listener) {
        while (true) {
          int c = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
          if (c < 0) break;
          int b = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
          struct sockaddr_in addr = {};
          addr.sin_family = AF_INET;
          addr.sin_port = htons(static_cast<uint16_t>(backend_ports[next++ % backend_ports.size()]));
          addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
          // Loopback connects complete at once: blocking is simplest.
          if (connect(b, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
            close(b);
            close(c);
            continue;
          }
          SetNonBlocking(b);
          int one = 1;
          setsockopt(b, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
          setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
          sides[c] = Side{b, ""};
          sides[b] = Side{c, ""};
          for (int f : {c, b}) {
            struct epoll_event ev = {EPOLLIN, {.fd = f}};
            epoll_ctl(ep, EPOLL_CTL_ADD, f, &ev);
          }
        }
        continue;
      }
      auto it = sides.find(fd);
      if (it == sides.end()) continue;
      const int peer = it->second.peer;
      bool alive = true;
      if (events[i].events & EPOLLOUT) alive = write_to(fd, it->second);
      if (alive && (events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))) {
        while (true) {
          ssize_t r = read(fd, buf, sizeof(buf));
          if (r > 0) {
            sides[peer].pending.append(buf, static_cast<size_t>(r));
            continue;
          }
          if (r < 0 && errno == EAGAIN) break;
          alive = false;
          break;
        }
        if (!write_to(peer, sides[peer])) alive = false;
      }
      if (!alive) close_pair(fd);
    }
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

// Forks a process that runs `body` and dies with the supervisor.
pid_t ForkChild(const sigset_t& original_mask, const std::function<void()>& body) {
  const pid_t supervisor = getpid();
  pid_t pid = fork();
  if (pid < 0) Fail(1, absl::StrCat("fork: ", strerror(errno)));
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != supervisor) _exit(1);  // the supervisor died already
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    sigprocmask(SIG_SETMASK, &original_mask, nullptr);
    body();
    _exit(1);
  }
  return pid;
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "HTTP server on 127.0.0.1 for the accept experiment: --model, --mechanism, --workers, "
      "--port. Runs until SIGINT or SIGTERM.");
  std::vector<char*> rest = absl::ParseCommandLine(argc, argv);
  if (rest.size() > 1) Fail(kExitBadInput, absl::StrCat("unexpected argument '", rest[1], "'"));
  const std::string model = absl::GetFlag(FLAGS_model);
  const std::string mech = absl::GetFlag(FLAGS_mechanism);
  if (model != "shared" && model != "reuseport" && model != "proxy") {
    Fail(kExitBadInput,
         absl::StrCat("unknown --model '", model, "': expected shared, reuseport or proxy"));
  }
  const std::map<std::string, Mechanism> mechanisms = {
      {"blocking", Mechanism::kBlocking}, {"epoll", Mechanism::kEpoll},
      {"epoll-exclusive", Mechanism::kEpollExclusive}, {"uring", Mechanism::kUring},
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
  if (port < 0 || port > 65535) Fail(kExitBadInput, absl::StrCat("--port=", port, ": out of range"));
  if (m->second == Mechanism::kUring || m->second == Mechanism::kUringMultishot) {
    if (absl::Status s = spawnlab::ProbeIoUringOpcode(IORING_OP_ACCEPT); !s.ok()) {
      Fail(kExitUnsupported, std::string(s.message()));
    }
  }
  if (absl::GetFlag(FLAGS_die_with_parent)) {
    const pid_t parent = getppid();
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) Fail(1, "the parent died before the server started");
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
      pids.push_back(ForkChild(original, [&, w] { RunWorker(m->second, fd, w); }));
    }
  } else if (model == "reuseport") {
    for (int w = 0; w < workers; ++w) {
      int fd = must(Listen(w == 0 ? port : public_port, true));
      if (nonblocking) SetNonBlocking(fd);
      if (w == 0) public_port = PortOf(fd);
      listeners.push_back(fd);
    }
    for (int w = 0; w < workers; ++w) {
      const int fd = listeners[w];
      pids.push_back(ForkChild(original, [&, w, fd] {
        for (int other : listeners) {
          if (other != fd) close(other);
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
      pids.push_back(ForkChild(original, [&, w, fd] {
        close(front);
        RunWorker(m->second, fd, w);
      }));
      close(fd);
    }
    pids.push_back(ForkChild(original, [&] { Relay(front, backend_ports); }));
  }
  printf("listening on 127.0.0.1:%d model=%s mechanism=%s workers=%d\n", public_port,
         model.c_str(), mech.c_str(), workers);
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
  return code;
}
