// The proxy model's relay: copies bytes between each client and a backend,
// both ways, through epoll. A side's pending bytes are bounded: reading from
// its peer stops at the high-water mark. An end of stream on one side is
// passed on as a shutdown of the other's writing side once everything before
// it is written, so a client that half-closes still gets its answers.
// Backends are connected without blocking; a backend that refuses gets the
// client a 502.

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <unordered_map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "experiments/accept/epoll_acceptor.h"
#include "experiments/accept/http.h"
#include "experiments/accept/serve.h"
#include "experiments/accept/server_common.h"

namespace spawnlab::accept {
namespace {

constexpr char kBadGateway[] =
    "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";

// One end of a relayed connection: the client's or the backend's socket.
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

void NoDelay(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

class Relayer {
 public:
  Relayer(int listener, const std::vector<int>& backend_ports)
      : ep_(epoll_create1(EPOLL_CLOEXEC)),
        listener_(listener),
        backend_ports_(backend_ports),
        acceptor_(ep_, listener, false) {
    if (int err = acceptor_.Arm(); err != 0) {
      Fail(1, absl::StrCat("epoll_ctl listener: ", strerror(err)));
    }
  }

  [[noreturn]] void Run() {
    struct epoll_event events[128];
    int64_t next_sweep = Now() + limits.tick_ns;
    while (true) {
      int n = epoll_wait(ep_, events, 128, WaitMs(acceptor_.resume_at(), next_sweep, Now()));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) Fail(1, absl::StrCat("epoll_wait: ", strerror(errno)));
      for (int i = 0; i < n; ++i) {
        const int fd = events[i].data.fd;
        if (fd == listener_) {
          acceptor_.AcceptAll(
              clients_, [this](int c) { return NewClient(c); }, [this] { return Ready(); });
        } else if (sides_.count(fd)) {  // else closed with its peer in this batch
          Event(fd, events[i].events);
        }
      }
      const int64_t now = Now();
      if (now >= next_sweep) {
        next_sweep = now + limits.tick_ns;
        CloseIdle(now);
      }
      acceptor_.MaybeResume(clients_, now);
    }
  }

 private:
  void ClosePair(int fd) {
    auto it = sides_.find(fd);
    if (it == sides_.end()) return;
    const int peer = it->second.peer;
    for (int f : {fd, peer}) {
      close(f);
      sides_.erase(f);
    }
    --clients_;
    acceptor_.ConnectionClosed();
  }

  bool CanRead(const Side& s) const {
    const Side& p = sides_.at(s.peer);
    return !s.connecting && !s.read_eof && p.pending.size() < kHighWater;
  }

  void Update(int fd) {
    Side& s = sides_.at(fd);
    const uint32_t want =
        (CanRead(s) ? EPOLLIN : 0u) | (s.connecting || !s.pending.empty() ? EPOLLOUT : 0u);
    if (want == s.events) return;
    struct epoll_event ev = {want, {.fd = fd}};
    epoll_ctl(ep_, EPOLL_CTL_MOD, fd, &ev);
    s.events = want;
  }

  // Writes `fd`'s pending bytes, then passes an end of stream on. False on an
  // error.
  bool Flush(int fd, int64_t now) {
    Side& s = sides_.at(fd);
    if (s.connecting) return true;
    while (!s.pending.empty()) {
      ssize_t w = send(fd, s.pending.data(), s.pending.size(), MSG_NOSIGNAL);
      if (w > 0) {
        s.pending.Consume(static_cast<size_t>(w));
        s.last_progress = sides_.at(s.peer).last_progress = now;
        continue;
      }
      if (w < 0 && errno == EINTR) continue;
      if (w < 0 && errno == EAGAIN) return true;
      return false;
    }
    if (sides_.at(s.peer).read_eof && !s.shut_write) {
      shutdown(fd, SHUT_WR);
      s.shut_write = true;
    }
    return true;
  }

  // The backend socket of the next client, made before accepting it: out of
  // descriptors, the relay pauses instead of accepting a client it must drop.
  bool Ready() {
    if (spare_ < 0) spare_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    return spare_ >= 0;
  }

  // Pairs the client `c` with the spare socket, connecting to the next
  // backend; the number of clients now.
  size_t NewClient(int c) {
    const int64_t now = Now();
    const int b = spare_;
    spare_ = -1;
    struct sockaddr_in addr = {};
    addr.sin_family = AF_INET;
    addr.sin_port =
        htons(static_cast<uint16_t>(backend_ports_[next_backend_++ % backend_ports_.size()]));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const bool connected = connect(b, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
    if (!connected && errno != EINPROGRESS) {
      (void)!send(c, kBadGateway, sizeof(kBadGateway) - 1, MSG_NOSIGNAL);
      close(b);
      close(c);
      return clients_;
    }
    NoDelay(c);
    if (connected) NoDelay(b);
    Side& client = sides_[c];
    client.peer = b;
    client.is_client = true;
    client.last_progress = now;
    Side& backend = sides_[b];
    backend.peer = c;
    backend.is_client = false;
    backend.connecting = !connected;
    backend.last_progress = now;
    // The client is read at once (into the backend's pending bytes while it
    // connects); the backend's EPOLLOUT says its connect finished.
    client.events = EPOLLIN;
    backend.events = connected ? EPOLLIN : EPOLLOUT;
    for (int f : {c, b}) {
      struct epoll_event ev = {sides_.at(f).events, {.fd = f}};
      epoll_ctl(ep_, EPOLL_CTL_ADD, f, &ev);
    }
    return ++clients_;
  }

  // A backend's connect has ended (EPOLLOUT) or failed (EPOLLERR, EPOLLHUP):
  // false if it failed, after the client is told so.
  bool Connected(int fd, Side& s, uint32_t ev) {
    int error = 0;
    if (ev & (EPOLLERR | EPOLLHUP)) {  // the connect failed: say why
      socklen_t len = sizeof(error);
      getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len);
      if (error == 0) error = ECONNREFUSED;
    }
    if (error != 0) {
      (void)!send(s.peer, kBadGateway, sizeof(kBadGateway) - 1, MSG_NOSIGNAL);
      return false;
    }
    if (ev & EPOLLOUT) {
      s.connecting = false;
      NoDelay(fd);
    }
    return true;
  }

  // Reads a few chunks from `fd` into its peer's pending bytes, then writes
  // them on. False on an error.
  bool Copy(int fd, int peer, int64_t now) {
    char buf[kChunk];
    for (int k = 0; k < 4 && CanRead(sides_.at(fd)); ++k) {
      ssize_t r = read(fd, buf, sizeof(buf));
      if (r > 0) {
        Side& to = sides_.at(peer);
        to.pending.Append(absl::string_view(buf, static_cast<size_t>(r)));
        if (to.pending.size() >= kHighWater) stats->output_high_water++;
        sides_.at(fd).last_progress = sides_.at(peer).last_progress = now;
        if (static_cast<size_t>(r) < sizeof(buf)) break;
        continue;
      }
      if (r == 0) sides_.at(fd).read_eof = true;
      if (r < 0 && errno == EINTR) continue;
      if (r < 0 && errno != EAGAIN) return false;
      break;
    }
    return Flush(peer, now);
  }

  void Event(int fd, uint32_t ev) {
    const int64_t now = Now();
    Side& s = sides_.at(fd);
    const int peer = s.peer;
    bool alive = !s.connecting || Connected(fd, s, ev);
    if (alive && (ev & EPOLLOUT)) alive = Flush(fd, now);
    if (alive && (ev & (EPOLLIN | EPOLLHUP | EPOLLERR))) alive = Copy(fd, peer, now);
    if (alive) {
      const Side& a = sides_.at(fd);
      const Side& b = sides_.at(peer);
      // Both ends sent their end of stream and everything is written.
      if (a.read_eof && b.read_eof && a.pending.empty() && b.pending.empty()) alive = false;
    }
    if (!alive) return ClosePair(fd);
    Update(fd);
    Update(peer);
  }

  void CloseIdle(int64_t now) {
    std::vector<int> idle;
    for (const auto& [fd, s] : sides_) {
      if (s.is_client && now - s.last_progress >= limits.idle_ns) idle.push_back(fd);
    }
    for (int fd : idle) {
      stats->idle_timeouts++;
      ClosePair(fd);
    }
  }

  const int ep_;
  const int listener_;
  const std::vector<int> backend_ports_;
  EpollAcceptor acceptor_;
  std::unordered_map<int, Side> sides_;
  size_t clients_ = 0;
  size_t next_backend_ = 0;
  int spare_ = -1;
};

}  // namespace

void Relay(int listener, const std::vector<int>& backend_ports) {
  Relayer(listener, backend_ports).Run();
}

}  // namespace spawnlab::accept
