// serve.h: the accept experiment's server, one worker's loop per accept
// mechanism, and the proxy model's relay. Each runs until the process is
// killed; an error it cannot serve past ends the process (Fail).
//
//   // in a forked worker, with spawnlab::accept::limits and stats set:
//   spawnlab::accept::ServeUring(listener, worker, /*multishot=*/true);

#ifndef SPAWNLAB_EXPERIMENTS_ACCEPT_SERVE_H_
#define SPAWNLAB_EXPERIMENTS_ACCEPT_SERVE_H_

#include <vector>

namespace spawnlab::accept {

// accept4 on a blocking listener, one connection at a time, one request per
// connection (Connection: close), so that keep-alive clients cannot starve it.
[[noreturn]] void ServeBlocking(int listener, int worker);

// epoll on a non-blocking listener and the connections; `exclusive` adds
// EPOLLEXCLUSIVE on the listener (Linux 4.5).
[[noreturn]] void ServeEpoll(int listener, int worker, bool exclusive);

// io_uring: accept (multishot: Linux 5.19), recv and send.
[[noreturn]] void ServeUring(int listener, int worker, bool multishot);

// The proxy model: accepts on `listener` and copies bytes both ways between
// each client and a backend on 127.0.0.1:backend_ports[i], round robin.
[[noreturn]] void Relay(int listener, const std::vector<int>& backend_ports);

}  // namespace spawnlab::accept

#endif  // SPAWNLAB_EXPERIMENTS_ACCEPT_SERVE_H_
