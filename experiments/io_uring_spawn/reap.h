// reap.h: seven ways for a parent to collect a batch of exited children
// (ReapStrategy): waitpid, waitid on pidfds, poll, a signalfd, epoll, and
// io_uring's POLL_ADD and WAITID. A strategy the kernel lacks is Unimplemented
// at Create, with the reason.
//
//   absl::StatusOr<std::unique_ptr<Reaper>> r =
//       Reaper::Create(ReapStrategy::kUringWaitid, 128);
//   if (!r.ok()) ... (the status says what the kernel lacks)
//   absl::Status s = (*r)->ReapAll(batch);  // every child in `batch` reaped

#ifndef SPAWNLAB_EXPERIMENTS_IO_URING_SPAWN_REAP_H_
#define SPAWNLAB_EXPERIMENTS_IO_URING_SPAWN_REAP_H_

#include <liburing.h>
#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "lib/probes.h"
#include "lib/unique_fd.h"

namespace spawnlab {

enum class ReapStrategy {
  kWaitpid,      // waitpid() on each pid in turn
  kWaitidPidfd,  // waitid(P_PIDFD) on each child's pidfd in turn (Linux 5.4)
  kPollPidfd,    // one poll() over every unreaped pidfd; waitpid as each is ready
  // SIGCHLD through a signalfd, then waitpid(-1, WNOHANG) until nothing is
  // left: the SIGCHLD-handler loop an article on Go's exec.Command describes,
  // without a handler. Every thread must block SIGCHLD, or the kernel may hand
  // it to one that discards it.
  kSignalfd,
  kEpollPidfd,  // every child's pidfd in an epoll set; waitpid as each is ready
  kUringPoll,   // IORING_OP_POLL_ADD on every pidfd; waitpid as each completes
  // IORING_OP_WAITID (Linux 6.7) per child: the kernel reaps it. liburing 2.3
  // has no helper for it; the SQE is filled from the kernel's uapi by hand.
  kUringWaitid
};

absl::Span<const ReapStrategy> AllReapStrategies();
absl::string_view ReapStrategyName(ReapStrategy s);
bool NeedsPidfds(ReapStrategy s);

// IORING_OP_WAITID's number is kIoringOpWaitid, in lib/probes.h.

// A batch of children to reap: their pids, and their pidfds where the
// strategy needs them. Destroying a batch kills and reaps what is left.
class Batch {
 public:
  Batch() = default;
  Batch(Batch&&) = default;
  Batch& operator=(Batch&&) = default;
  ~Batch();
  void Add(pid_t pid, UniqueFd pidfd);
  size_t size() const { return pids_.size(); }
  pid_t pid(size_t i) const { return pids_[i]; }
  int pidfd(size_t i) const { return pidfds_[i].get(); }
  // Marks child i reaped; returns false if it already was.
  bool MarkReaped(size_t i);
  // The index of `pid` in the batch, or -1.
  int IndexOf(pid_t pid) const;
  size_t reaped() const { return reaped_count_; }
  bool is_reaped(size_t i) const { return reaped_[i]; }

 private:
  std::vector<pid_t> pids_;
  std::vector<UniqueFd> pidfds_;
  std::vector<bool> reaped_;
  size_t reaped_count_ = 0;
};

class Reaper {
 public:
  // Sets up what the strategy needs for batches of up to `max_children`.
  // Unimplemented (with the reason) where the kernel lacks it.
  static absl::StatusOr<std::unique_ptr<Reaper>> Create(ReapStrategy strategy, int max_children);
  ~Reaper();
  // Reaps every child of `batch`; an error if one ended other than exit 0.
  absl::Status ReapAll(Batch& batch);

 private:
  Reaper(ReapStrategy s) : strategy_(s) {}
  absl::Status ReapOne(Batch& batch, size_t index);  // waitpid on an exited child
  // One per strategy, as reap.h's list at the top says.
  absl::Status ReapAllByWaitpid(Batch& batch);
  absl::Status ReapAllBySignalfd(Batch& batch);
  absl::Status ReapAllByWaitidPidfd(Batch& batch);
  absl::Status ReapAllByPoll(Batch& batch);
  absl::Status ReapAllByEpoll(Batch& batch);
  absl::Status ReapAllByUring(Batch& batch);  // uring-poll, uring-waitid

  // The io_uring strategies' steps: a request per child; the completions
  // until every child is reaped; on an early return, the cancellation of
  // what is still in flight.
  struct UringBatch;
  absl::Status SubmitReaps(Batch& batch, UringBatch& u);
  bool TakeCompletion(Batch& batch, UringBatch& u, struct io_uring_cqe* cqe, size_t* index,
                      int* res);
  absl::Status CancelInFlight(Batch& batch, UringBatch& u, absl::Status status);

  ReapStrategy strategy_;
  UniqueFd epoll_, signalfd_;
  sigset_t old_mask_;
  bool mask_changed_ = false;
  struct io_uring ring_;
  bool has_ring_ = false;
};

}  // namespace spawnlab

#endif  // SPAWNLAB_EXPERIMENTS_IO_URING_SPAWN_REAP_H_
