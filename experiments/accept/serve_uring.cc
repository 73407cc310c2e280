// The io_uring mechanisms: accept (single-shot or multishot), recv and send
// as requests on one ring, a timeout request as the sweep's tick.

#include <errno.h>
#include <liburing.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "experiments/accept/connection.h"
#include "experiments/accept/serve.h"
#include "experiments/accept/server_common.h"

namespace spawnlab::accept {
namespace {

// What a completion is for: the request's kind and its descriptor, in its
// user data.
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

class UringServer {
 public:
  UringServer(int listener, int worker, bool multishot)
      : listener_(listener), worker_(worker), multishot_(multishot) {
    int err = io_uring_queue_init(512, &ring_, 0);
    if (err < 0) Fail(kExitUnsupported, absl::StrCat("io_uring_queue_init: ", strerror(-err)));
    tick_ts_ = {limits.tick_ns / 1'000'000'000, limits.tick_ns % 1'000'000'000};
  }

  [[noreturn]] void Run() {
    MaybeAccept();
    ArmTick();
    while (true) {
      int r = io_uring_submit_and_wait(&ring_, 1);
      if (r < 0 && r != -EINTR) Fail(1, absl::StrCat("io_uring_submit_and_wait: ", strerror(-r)));
      struct io_uring_cqe* cqe;
      unsigned head, seen = 0;
      io_uring_for_each_cqe(&ring_, head, cqe) {
        ++seen;
        Complete(*cqe);
      }
      io_uring_cq_advance(&ring_, seen);
    }
  }

 private:
  struct io_uring_sqe* Sqe() {
    struct io_uring_sqe* s = io_uring_get_sqe(&ring_);
    if (s == nullptr) {
      io_uring_submit(&ring_);
      s = io_uring_get_sqe(&ring_);
    }
    return s;
  }

  void MaybeAccept() {
    if (accept_armed_ || resume_armed_ || conns_.size() >= limits.max_connections) return;
    struct io_uring_sqe* s = Sqe();
    if (multishot_) {
      io_uring_prep_multishot_accept(s, listener_, nullptr, nullptr, SOCK_CLOEXEC);
    } else {
      io_uring_prep_accept(s, listener_, nullptr, nullptr, SOCK_CLOEXEC);
    }
    io_uring_sqe_set_data64(s, Tag(kAccept, listener_));
    accept_armed_ = true;
  }

  // Stops accepting: a multishot accept is cancelled; `pause` also arms a
  // timer after which accepting resumes.
  void StopAccepting(bool pause) {
    stats->accept_pauses++;
    if (multishot_ && accept_armed_) {
      struct io_uring_sqe* s = Sqe();
      io_uring_prep_cancel64(s, Tag(kAccept, listener_), 0);
      io_uring_sqe_set_data64(s, Tag(kCancel, listener_));
    }
    if (pause && !resume_armed_) {
      struct io_uring_sqe* s = Sqe();
      io_uring_prep_timeout(s, &pause_ts_, 0, 0);
      io_uring_sqe_set_data64(s, Tag(kResume, listener_));
      resume_armed_ = true;
    }
  }

  void ArmTick() {
    struct io_uring_sqe* s = Sqe();
    io_uring_prep_timeout(s, &tick_ts_, 0, 0);
    io_uring_sqe_set_data64(s, Tag(kTick, listener_));
  }
  void ArmRecv(int fd, UringConn& u) {
    struct io_uring_sqe* s = Sqe();
    io_uring_prep_recv(s, fd, u.buf, sizeof(u.buf), 0);
    io_uring_sqe_set_data64(s, Tag(kRecv, fd));
  }
  void ArmSend(int fd, UringConn& u) {
    struct io_uring_sqe* s = Sqe();
    io_uring_prep_send(s, fd, u.conn.out.data(), u.conn.out.size(), MSG_NOSIGNAL);
    io_uring_sqe_set_data64(s, Tag(kSend, fd));
  }
  void Drop(int fd) {
    close(fd);
    conns_.erase(fd);
    MaybeAccept();
  }
  // After a completion: the connection's next request, or its end.
  void Next(int fd, UringConn& u) {
    Conn& c = u.conn;
    if (c.out.empty()) c.Produce(worker_, false);
    if (!c.out.empty()) return ArmSend(fd, u);
    if (u.expired || c.Finished()) return Drop(fd);
    ArmRecv(fd, u);
  }

  void Complete(const struct io_uring_cqe& cqe) {
    const uint64_t tag = io_uring_cqe_get_data64(&cqe);
    const Op op = static_cast<Op>(tag >> 32);
    const int fd = static_cast<int>(tag & 0xffffffff);
    const int64_t now = Now();
    switch (op) {
      case kAccept:
        return Accepted(cqe, now);
      case kResume:
        resume_armed_ = false;
        return MaybeAccept();
      case kCancel:
        return;
      case kTick:
        return Tick(now);
      case kRecv:
      case kSend:
        break;
    }
    auto it = conns_.find(fd);
    if (it == conns_.end()) return;
    if (op == kRecv) return Received(fd, *it->second, cqe.res, now);
    Sent(fd, *it->second, cqe.res, now);
  }

  void Accepted(const struct io_uring_cqe& cqe, int64_t now) {
    const int res = cqe.res;
    if (!multishot_ || !(cqe.flags & IORING_CQE_F_MORE)) accept_armed_ = false;
    if (res >= 0) {
      auto& u = conns_[res];
      u = std::make_unique<UringConn>(now);
      ArmRecv(res, *u);
      if (conns_.size() >= limits.max_connections) StopAccepting(/*pause=*/false);
    } else if (first_accept_ && res == -EINVAL) {
      Fail(kExitUnsupported, multishot_ ? "multishot accept needs Linux 5.19 (EINVAL)"
                                        : "io_uring accept rejected (EINVAL)");
    } else if (res != -ECANCELED && res != -EINTR && res != -ECONNABORTED && res != -EAGAIN) {
      StopAccepting(/*pause=*/true);  // EMFILE and the like: do not spin
    }
    first_accept_ = false;
    MaybeAccept();
  }

  void Tick(int64_t now) {
    for (auto& [cfd, u] : conns_) {
      if (!u->expired && u->conn.Expired(now)) {
        u->expired = true;
        shutdown(cfd, SHUT_RDWR);  // completes the request in flight
      }
    }
    ArmTick();
  }

  void Received(int fd, UringConn& u, int res, int64_t now) {
    if (res == -EINTR || res == -EAGAIN) return ArmRecv(fd, u);
    if (res < 0) return Drop(fd);
    if (res == 0) {
      u.conn.peer_eof = true;
    } else {
      u.conn.Received(u.buf, static_cast<size_t>(res), now);
    }
    Next(fd, u);
  }

  void Sent(int fd, UringConn& u, int res, int64_t now) {
    if (res == 0 || (res < 0 && res != -EINTR && res != -EAGAIN)) return Drop(fd);
    if (res > 0) {
      u.conn.out.Consume(static_cast<size_t>(res));
      u.conn.last_progress = now;
    }
    Next(fd, u);
  }

  const int listener_;
  const int worker_;
  const bool multishot_;
  struct io_uring ring_;
  std::unordered_map<int, std::unique_ptr<UringConn>> conns_;
  bool accept_armed_ = false;  // an accept request is in flight
  bool resume_armed_ = false;  // a pause timer is in flight
  bool first_accept_ = true;
  struct __kernel_timespec pause_ts_ = {0, kAcceptPauseNs};
  struct __kernel_timespec tick_ts_;
};

}  // namespace

void ServeUring(int listener, int worker, bool multishot) {
  UringServer(listener, worker, multishot).Run();
}

}  // namespace spawnlab::accept
