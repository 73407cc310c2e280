// reap.cc: see reap.h.

#include "experiments/io_uring_spawn/reap.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstring>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "lib/probes.h"

namespace spawnlab {
namespace {

constexpr std::array<ReapStrategy, 7> kAll = {ReapStrategy::kWaitpid,    ReapStrategy::kWaitidPidfd,
                                              ReapStrategy::kPollPidfd,  ReapStrategy::kSignalfd,
                                              ReapStrategy::kEpollPidfd, ReapStrategy::kUringPoll,
                                              ReapStrategy::kUringWaitid};

absl::Status CheckExit(pid_t pid, int status) {
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return absl::OkStatus();
  return absl::InternalError(absl::StrCat("child ", pid, " ended with wait status ", status));
}

}  // namespace

absl::Span<const ReapStrategy> AllReapStrategies() { return kAll; }

absl::string_view ReapStrategyName(ReapStrategy s) {
  switch (s) {
    case ReapStrategy::kWaitpid:
      return "waitpid";
    case ReapStrategy::kWaitidPidfd:
      return "waitid-pidfd";
    case ReapStrategy::kPollPidfd:
      return "poll-pidfd";
    case ReapStrategy::kSignalfd:
      return "signalfd";
    case ReapStrategy::kEpollPidfd:
      return "epoll-pidfd";
    case ReapStrategy::kUringPoll:
      return "uring-poll";
    case ReapStrategy::kUringWaitid:
      return "uring-waitid";
  }
  return "unknown";
}

bool NeedsPidfds(ReapStrategy s) {
  return s == ReapStrategy::kWaitidPidfd || s == ReapStrategy::kPollPidfd ||
         s == ReapStrategy::kEpollPidfd || s == ReapStrategy::kUringPoll;
}

Batch::~Batch() {
  for (size_t i = 0; i < pids_.size(); ++i) {
    if (reaped_[i]) continue;
    // Through the pidfd where there is one: it names this process and no
    // other, whatever happened to the pid.
    if (!pidfds_[i].valid() ||
        syscall(SYS_pidfd_send_signal, pidfds_[i].get(), SIGKILL, nullptr, 0) != 0) {
      kill(pids_[i], SIGKILL);
    }
    int status;
    while (waitpid(pids_[i], &status, 0) < 0 && errno == EINTR) {
    }
  }
}

void Batch::Add(pid_t pid, UniqueFd pidfd) {
  pids_.push_back(pid);
  pidfds_.push_back(std::move(pidfd));
  reaped_.push_back(false);
}

bool Batch::MarkReaped(size_t i) {
  if (reaped_[i]) return false;
  reaped_[i] = true;
  ++reaped_count_;
  return true;
}

int Batch::IndexOf(pid_t pid) const {
  for (size_t i = 0; i < pids_.size(); ++i) {
    if (pids_[i] == pid) return static_cast<int>(i);
  }
  return -1;
}

absl::StatusOr<std::unique_ptr<Reaper>> Reaper::Create(ReapStrategy strategy, int max_children) {
  std::unique_ptr<Reaper> r(new Reaper(strategy));
  switch (strategy) {
    case ReapStrategy::kWaitpid:
      break;
    case ReapStrategy::kWaitidPidfd:
      if (absl::Status s = ProbePidfdOpen(); !s.ok()) return s;
      if (absl::Status s = ProbeWaitidPidfd(); !s.ok()) return s;
      break;
    case ReapStrategy::kPollPidfd:
      if (absl::Status s = ProbePidfdOpen(); !s.ok()) return s;
      break;
    case ReapStrategy::kSignalfd: {
      sigset_t chld;
      sigemptyset(&chld);
      sigaddset(&chld, SIGCHLD);
      // SIGCHLD stays blocked (so that it queues for the signalfd) while the
      // Reaper lives; the old mask comes back when it goes.
      pthread_sigmask(SIG_BLOCK, &chld, &r->old_mask_);
      r->mask_changed_ = true;
      r->signalfd_.reset(signalfd(-1, &chld, SFD_CLOEXEC));
      if (!r->signalfd_.valid()) return absl::ErrnoToStatus(errno, "signalfd");
      break;
    }
    case ReapStrategy::kEpollPidfd:
      if (absl::Status s = ProbePidfdOpen(); !s.ok()) return s;
      r->epoll_.reset(epoll_create1(EPOLL_CLOEXEC));
      if (!r->epoll_.valid()) return absl::ErrnoToStatus(errno, "epoll_create1");
      break;
    case ReapStrategy::kUringPoll:
    case ReapStrategy::kUringWaitid: {
      const int op = strategy == ReapStrategy::kUringPoll ? IORING_OP_POLL_ADD : kIoringOpWaitid;
      if (absl::Status s = ProbeIoUringOpcode(op); !s.ok()) {
        return absl::Status(s.code(),
                            absl::StrCat(op == kIoringOpWaitid ? "IORING_OP_WAITID (Linux 6.7): "
                                                               : "IORING_OP_POLL_ADD: ",
                                         s.message()));
      }
      int err = io_uring_queue_init(static_cast<unsigned>(max_children), &r->ring_, 0);
      if (err < 0) return absl::ErrnoToStatus(-err, "io_uring_queue_init");
      r->has_ring_ = true;
      break;
    }
  }
  return r;
}

Reaper::~Reaper() {
  if (has_ring_) io_uring_queue_exit(&ring_);
  if (mask_changed_) pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
}

absl::Status Reaper::ReapOne(Batch& batch, size_t index) {
  int status;
  pid_t r;
  do {
    r = waitpid(batch.pid(index), &status, 0);
  } while (r < 0 && errno == EINTR);
  if (r < 0) return absl::ErrnoToStatus(errno, absl::StrCat("waitpid ", batch.pid(index)));
  batch.MarkReaped(index);
  return CheckExit(batch.pid(index), status);
}

// The state of one batch's io_uring requests. The kernel writes each child's
// siginfo into `infos` (WAITID) until its request completes: every request is
// completed or cancelled before the batch's call returns.
struct Reaper::UringBatch {
  explicit UringBatch(size_t n) : infos(n), in_flight(n, false) {}
  std::vector<siginfo_t> infos;
  std::vector<bool> in_flight;
  size_t pending = 0;
  static constexpr uint64_t kCancelTag = ~uint64_t{0};
};

absl::Status Reaper::SubmitReaps(Batch& batch, UringBatch& u) {
  const size_t n = batch.size();
  for (size_t i = 0; i < n; ++i) {
    struct io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
    if (sqe == nullptr) {
      return CancelInFlight(batch, u,
                            absl::ResourceExhaustedError(absl::StrCat(
                                "io_uring submission queue full at child ", i, " of ", n)));
    }
    if (strategy_ == ReapStrategy::kUringPoll) {
      io_uring_prep_poll_add(sqe, batch.pidfd(i), POLLIN);
    } else {
      // io_uring_prep_waitid(sqe, P_PID, pid, &info, WEXITED, 0), by hand:
      // the kernel reads idtype from len, the id from fd, the options from
      // file_index and the siginfo pointer from addr2.
      memset(sqe, 0, sizeof(*sqe));
      sqe->opcode = kIoringOpWaitid;
      sqe->fd = batch.pid(i);
      sqe->len = P_PID;
      sqe->file_index = WEXITED;
      sqe->addr2 = reinterpret_cast<uintptr_t>(&u.infos[i]);
    }
    io_uring_sqe_set_data64(sqe, i);
    u.in_flight[i] = true;
    ++u.pending;
  }
  int submitted = io_uring_submit(&ring_);
  if (submitted < 0) {
    // Nothing reached the kernel: nothing is in flight.
    io_uring_queue_exit(&ring_);
    has_ring_ = false;
    return absl::ErrnoToStatus(-submitted, "io_uring_submit");
  }
  return absl::OkStatus();
}

// A completion: the kernel reaped the child (WAITID, res >= 0) or says it can
// be reaped (POLL); or an error, or -ECANCELED. False for a cancellation's
// own completion.
bool Reaper::TakeCompletion(Batch& batch, UringBatch& u, struct io_uring_cqe* cqe, size_t* index,
                            int* res) {
  *index = static_cast<size_t>(io_uring_cqe_get_data64(cqe));
  *res = cqe->res;
  io_uring_cqe_seen(&ring_, cqe);
  if (*index == UringBatch::kCancelTag) return false;
  u.in_flight[*index] = false;
  --u.pending;
  if (strategy_ == ReapStrategy::kUringWaitid && *res >= 0) batch.MarkReaped(*index);
  return true;
}

// Any early return: cancel what is still in flight and wait for every
// completion, so that nothing writes into `infos` after it is freed and no
// stale completion reaches the next batch. Returns `status`.
absl::Status Reaper::CancelInFlight(Batch& batch, UringBatch& u, absl::Status status) {
  if (u.pending == 0) return status;
  for (size_t i = 0; i < batch.size(); ++i) {
    if (!u.in_flight[i]) continue;
    struct io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
    if (sqe == nullptr) break;  // cannot happen: the queue holds n entries
    io_uring_prep_cancel64(sqe, i, 0);
    io_uring_sqe_set_data64(sqe, UringBatch::kCancelTag);
  }
  io_uring_submit(&ring_);
  while (u.pending > 0) {
    struct io_uring_cqe* cqe;
    struct __kernel_timespec ten_s = {10, 0};
    int err = io_uring_wait_cqe_timeout(&ring_, &cqe, &ten_s);
    if (err == -EINTR) continue;
    if (err < 0) {
      // The ring cannot be trusted any more: closing it makes the kernel
      // cancel the rest. The Reaper refuses further batches.
      io_uring_queue_exit(&ring_);
      has_ring_ = false;
      return status;
    }
    size_t index;
    int res;
    TakeCompletion(batch, u, cqe, &index, &res);
  }
  return status;
}

absl::Status Reaper::ReapAllByUring(Batch& batch) {
  if (!has_ring_) return absl::FailedPreconditionError("the io_uring was torn down after an error");
  const size_t n = batch.size();
  UringBatch u(n);
  if (absl::Status s = SubmitReaps(batch, u); !s.ok()) return s;
  while (batch.reaped() < n) {
    struct io_uring_cqe* cqe;
    struct __kernel_timespec ten_s = {10, 0};
    int err = io_uring_wait_cqe_timeout(&ring_, &cqe, &ten_s);
    if (err == -EINTR) continue;
    if (err == -ETIME) {
      return CancelInFlight(batch, u, absl::DeadlineExceededError("no child exited in 10 s"));
    }
    if (err < 0) return CancelInFlight(batch, u, absl::ErrnoToStatus(-err, "io_uring_wait_cqe"));
    size_t i;
    int res;
    if (!TakeCompletion(batch, u, cqe, &i, &res)) continue;
    if (res < 0) {
      return CancelInFlight(batch, u,
                            absl::ErrnoToStatus(-res, absl::StrCat(ReapStrategyName(strategy_),
                                                                   " for ", batch.pid(i))));
    }
    if (strategy_ == ReapStrategy::kUringPoll) {
      if (absl::Status s = ReapOne(batch, i); !s.ok()) return CancelInFlight(batch, u, s);
    } else if (const siginfo_t& info = u.infos[i];
               info.si_pid != batch.pid(i) || info.si_code != CLD_EXITED || info.si_status != 0) {
      return CancelInFlight(batch, u,
                            absl::InternalError(absl::StrCat(
                                "waitid for ", batch.pid(i), " reported pid ", info.si_pid,
                                " code ", info.si_code, " status ", info.si_status)));
    }
  }
  return absl::OkStatus();
}

absl::Status Reaper::ReapAllByWaitpid(Batch& batch) {
  for (size_t i = 0; i < batch.size(); ++i) {
    if (absl::Status s = ReapOne(batch, i); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status Reaper::ReapAllBySignalfd(Batch& batch) {
  const size_t n = batch.size();
  while (batch.reaped() < n) {
    // Collect whatever has exited; then wait for the next SIGCHLD.
    int status;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
      int i = batch.IndexOf(pid);
      if (i < 0) continue;  // not ours: still reaped, as a handler would
      batch.MarkReaped(static_cast<size_t>(i));
      if (absl::Status s = CheckExit(pid, status); !s.ok()) return s;
    }
    if (batch.reaped() == n) break;
    // SIGCHLD is process-directed: a thread of this process that does not
    // block it takes it, and this signalfd never hears of it. Never wait
    // forever on that.
    struct pollfd pfd = {signalfd_.get(), POLLIN, 0};
    int ready = poll(&pfd, 1, 10000);
    if (ready == 0) {
      return absl::DeadlineExceededError(
          "no SIGCHLD reached the signalfd in 10 s (does another thread leave it unblocked?)");
    }
    struct signalfd_siginfo info;
    if (ready > 0 && read(signalfd_.get(), &info, sizeof(info)) < 0 && errno != EINTR) {
      return absl::ErrnoToStatus(errno, "read signalfd");
    }
  }
  return absl::OkStatus();
}

absl::Status Reaper::ReapAllByWaitidPidfd(Batch& batch) {
  for (size_t i = 0; i < batch.size(); ++i) {
    siginfo_t info = {};
    int r;
    do {
      r = waitid(static_cast<idtype_t>(3 /* P_PIDFD */), static_cast<id_t>(batch.pidfd(i)), &info,
                 WEXITED);
    } while (r < 0 && errno == EINTR);
    if (r < 0) return absl::ErrnoToStatus(errno, absl::StrCat("waitid P_PIDFD ", batch.pid(i)));
    batch.MarkReaped(i);
    if (info.si_code != CLD_EXITED || info.si_status != 0) {
      return absl::InternalError(absl::StrCat("child ", batch.pid(i), " ended with code ",
                                              info.si_code, ", status ", info.si_status));
    }
  }
  return absl::OkStatus();
}

absl::Status Reaper::ReapAllByPoll(Batch& batch) {
  const size_t n = batch.size();
  std::vector<struct pollfd> fds;
  std::vector<size_t> index;
  while (batch.reaped() < n) {
    fds.clear();
    index.clear();
    for (size_t i = 0; i < n; ++i) {
      if (batch.is_reaped(i)) continue;
      fds.push_back({batch.pidfd(i), POLLIN, 0});
      index.push_back(i);
    }
    int ready = poll(fds.data(), fds.size(), 10000);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) return absl::ErrnoToStatus(errno, "poll pidfds");
    if (ready == 0) return absl::DeadlineExceededError("no child exited in 10 s");
    for (size_t k = 0; k < fds.size(); ++k) {
      if (fds[k].revents == 0) continue;
      if (absl::Status s = ReapOne(batch, index[k]); !s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

absl::Status Reaper::ReapAllByEpoll(Batch& batch) {
  const size_t n = batch.size();
  // Whatever way this returns, no pidfd of this batch stays in the set,
  // where its readiness would reach the next batch under the same index.
  std::vector<bool> registered(n, false);
  absl::Cleanup unregister = [&] {
    for (size_t i = 0; i < n; ++i) {
      if (registered[i]) epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, batch.pidfd(i), nullptr);
    }
  };
  for (size_t i = 0; i < n; ++i) {
    struct epoll_event ev = {};
    ev.events = EPOLLIN;
    ev.data.u64 = i;
    if (epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, batch.pidfd(i), &ev) != 0) {
      return absl::ErrnoToStatus(errno, "epoll_ctl ADD pidfd");
    }
    registered[i] = true;
  }
  std::vector<struct epoll_event> events(n);
  while (batch.reaped() < n) {
    int ready = epoll_wait(epoll_.get(), events.data(), static_cast<int>(n), 10000);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) return absl::ErrnoToStatus(errno, "epoll_wait");
    if (ready == 0) return absl::DeadlineExceededError("no child exited in 10 s");
    for (int e = 0; e < ready; ++e) {
      const size_t i = events[e].data.u64;
      epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, batch.pidfd(i), nullptr);
      registered[i] = false;
      if (absl::Status s = ReapOne(batch, i); !s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

absl::Status Reaper::ReapAll(Batch& batch) {
  switch (strategy_) {
    case ReapStrategy::kWaitpid:
      return ReapAllByWaitpid(batch);
    case ReapStrategy::kSignalfd:
      return ReapAllBySignalfd(batch);
    case ReapStrategy::kWaitidPidfd:
      return ReapAllByWaitidPidfd(batch);
    case ReapStrategy::kPollPidfd:
      return ReapAllByPoll(batch);
    case ReapStrategy::kEpollPidfd:
      return ReapAllByEpoll(batch);
    case ReapStrategy::kUringPoll:
    case ReapStrategy::kUringWaitid:
      return ReapAllByUring(batch);
  }
  return absl::InvalidArgumentError("unknown strategy");
}

}  // namespace spawnlab
