// The epoll mechanisms: one epoll set for the listener and the connections,
// level-triggered; EPOLLEXCLUSIVE on the listener if asked.

#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "experiments/accept/connection.h"
#include "experiments/accept/epoll_acceptor.h"
#include "experiments/accept/serve.h"
#include "experiments/accept/server_common.h"

namespace spawnlab::accept {
namespace {

struct Entry {
  Conn conn;
  uint32_t events;  // the interest registered with epoll
};

// Reads, answers and writes as far as the connection allows; false when it
// is to be closed.
bool Serve(int ep, int fd, int worker, Entry& e, uint32_t events) {
  char buf[kChunk];
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
}

}  // namespace

void ServeEpoll(int listener, int worker, bool exclusive) {
  int ep = epoll_create1(EPOLL_CLOEXEC);
  EpollAcceptor acceptor(ep, listener, exclusive);
  if (int err = acceptor.Arm(); err != 0) {
    Fail(exclusive ? kExitUnsupported : 1, absl::StrCat("epoll_ctl listener: ", strerror(err)));
  }
  std::unordered_map<int, Entry> conns;
  auto close_conn = [&](int fd) {
    close(fd);  // leaves the epoll set with its last reference
    conns.erase(fd);
    acceptor.ConnectionClosed();
  };
  auto take = [&](int c) {
    struct epoll_event ev = {EPOLLIN, {.fd = c}};
    epoll_ctl(ep, EPOLL_CTL_ADD, c, &ev);
    conns.emplace(c, Entry{Conn(Now()), EPOLLIN});
    return conns.size();
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
        acceptor.AcceptAll(conns.size(), take);
        continue;
      }
      auto it = conns.find(fd);
      if (it == conns.end()) continue;
      if (!Serve(ep, fd, worker, it->second, events[i].events)) close_conn(fd);
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

}  // namespace spawnlab::accept
