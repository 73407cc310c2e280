// epoll_acceptor.h: accepting on a non-blocking listener through epoll,
// paused when out of descriptors or at the connection cap: the listener is
// taken out of the epoll set so that a level-triggered wakeup cannot spin.
// Shared by the epoll workers and the relay.
//
//   EpollAcceptor acceptor(ep, listener, /*exclusive=*/false);
//   if (int err = acceptor.Arm(); err != 0) ...;
//   // on the listener's event:
//   acceptor.AcceptAll(open, [&](int fd) { ...; return open + 1; });
//   // after each batch of events:
//   acceptor.MaybeResume(open, Now());

#ifndef SPAWNLAB_EXPERIMENTS_ACCEPT_EPOLL_ACCEPTOR_H_
#define SPAWNLAB_EXPERIMENTS_ACCEPT_EPOLL_ACCEPTOR_H_

#include <cstddef>
#include <cstdint>
#include <functional>

#include "experiments/accept/server_common.h"

namespace spawnlab::accept {

class EpollAcceptor {
 public:
  EpollAcceptor(int ep, int listener, bool exclusive)
      : ep_(ep), listener_(listener), exclusive_(exclusive) {}

  // Adds the listener; the error of epoll_ctl, if any.
  int Arm();
  int listener() const { return listener_; }

  // Accepts until none is left or `open` reaches the cap; `take` gets each new
  // descriptor (non-blocking) and returns the number now open. `ready`, if
  // given, is asked first: false (out of what a connection needs) pauses.
  void AcceptAll(size_t open, const std::function<size_t(int)>& take,
                 const std::function<bool()>& ready = nullptr);

  // Called after connections close and when the timer passes.
  void MaybeResume(size_t open, int64_t now);
  void ConnectionClosed() { closed_since_pause_ = true; }
  int64_t resume_at() const { return paused_ ? resume_at_ : kNever; }

 private:
  void Pause(int64_t until);

  int ep_;
  int listener_;
  bool exclusive_;
  bool paused_ = false;
  bool closed_since_pause_ = false;
  int64_t resume_at_ = kNever;
};

// The epoll_wait timeout until `at` or the next sweep, at most a second.
int WaitMs(int64_t at, int64_t next_sweep, int64_t now);

}  // namespace spawnlab::accept

#endif  // SPAWNLAB_EXPERIMENTS_ACCEPT_EPOLL_ACCEPTOR_H_
