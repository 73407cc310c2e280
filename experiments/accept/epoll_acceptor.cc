#include "experiments/accept/epoll_acceptor.h"

#include <errno.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include <algorithm>

namespace spawnlab::accept {

int EpollAcceptor::Arm() {
  struct epoll_event ev = {EPOLLIN | (exclusive_ ? EPOLLEXCLUSIVE : 0u), {.fd = listener_}};
  if (epoll_ctl(ep_, EPOLL_CTL_ADD, listener_, &ev) != 0) return errno;
  paused_ = false;
  resume_at_ = kNever;
  return 0;
}

void EpollAcceptor::AcceptAll(size_t open, const std::function<size_t(int)>& take,
                              const std::function<bool()>& ready) {
  while (open < limits.max_connections) {
    if (ready && !ready()) return Pause(Now() + kAcceptPauseNs);
    int fd = accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd >= 0) {
      open = take(fd);
      continue;
    }
    if (errno == EAGAIN || errno == EWOULDBLOCK) return;
    if (OutOfResources(errno)) return Pause(Now() + kAcceptPauseNs);
    if (RetryAccept(errno)) continue;
    return Pause(Now() + kAcceptPauseNs);  // unexpected: do not spin on it either
  }
  Pause(kNever);  // at the cap: until a connection closes
}

void EpollAcceptor::MaybeResume(size_t open, int64_t now) {
  if (!paused_ || open >= limits.max_connections) return;
  if (resume_at_ != kNever && now < resume_at_ && !closed_since_pause_) return;
  Arm();
}

void EpollAcceptor::Pause(int64_t until) {
  stats->accept_pauses++;
  epoll_ctl(ep_, EPOLL_CTL_DEL, listener_, nullptr);
  paused_ = true;
  resume_at_ = until;
  closed_since_pause_ = false;
}

int WaitMs(int64_t at, int64_t next_sweep, int64_t now) {
  const int64_t until = std::min(at, next_sweep);
  if (until <= now) return 0;
  return static_cast<int>(std::min<int64_t>((until - now + 999'999) / 1'000'000, 1000));
}

}  // namespace spawnlab::accept
