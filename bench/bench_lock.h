// bench_lock.h: one measuring process at a time on this machine.
//
// On a 2-core machine two benches (or a bench and a build) share CPUs and move
// each other's figures. Every bench holds this lock while it measures. It is
// flock(2) on a file, so a killed bench never leaves it stale; the file names
// the holder, so a second bench can say whom it waits for. Opened O_NOFOLLOW,
// a regular file of this user's only: a planted link turns it against nothing.
//
//   absl::StatusOr<spawnlab::BenchLock> lock = spawnlab::BenchLock::Acquire(
//       spawnlab::DefaultBenchLockPath(), "clone3 bench", spawnlab::BenchLock::kWait);
//   if (!lock.ok()) ... another bench holds it (kFail), or the file cannot be opened ...
//   ... measure; the lock is released when `lock` goes away ...

#ifndef SPAWNLAB_BENCH_BENCH_LOCK_H_
#define SPAWNLAB_BENCH_BENCH_LOCK_H_

#include <optional>
#include <ostream>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "lib/unique_fd.h"

namespace spawnlab {

// $SPAWNLAB_LOCK_FILE, else /run/lock/spawnlab-bench.lock (/tmp where there is
// no /run/lock): machine-wide, since the CPUs are.
std::string DefaultBenchLockPath();

// The environment variable by which a holder (the suite) hands its lock to a
// bench it starts: the number of an inherited descriptor of the lock file.
inline constexpr char kInheritedLockEnv[] = "SPAWNLAB_LOCK_FD";
// ... and the pid of that holder, so that a child started just as its parent
// died can tell (PR_SET_PDEATHSIG is set only once the child runs).
inline constexpr char kInheritedLockHolderEnv[] = "SPAWNLAB_LOCK_HOLDER_PID";

class BenchLock {
 public:
  enum Mode {
    kWait,  // block until the holder lets go, saying for whom (every 30 s)
    kFail,  // FailedPrecondition at once, naming the holder
  };

  // Takes the lock at `path` for `what` (written into the file with this
  // process's pid and the time). Messages about waiting go to `log`.
  static absl::StatusOr<BenchLock> Acquire(const std::string& path, absl::string_view what,
                                           Mode mode, std::ostream* log = nullptr);

  // Takes over the lock a parent holds, from its inherited descriptor (the
  // value of kInheritedLockEnv): the lock then lasts while this process does,
  // even if the parent is killed.
  static absl::StatusOr<BenchLock> Inherited(absl::string_view fd_text);

  // The lock file's descriptor, for handing the lock to a child (kInheritedLockEnv).
  int fd() const { return fd_.get(); }

  // The holder's line as the file has it ("pid 123: clone3 bench, since ...").
  static std::string ReadHolder(int fd);

  // How long Acquire waited, and for whom ("" if it did not).
  absl::Duration waited() const { return waited_; }
  const std::string& waited_for() const { return waited_for_; }

 private:
  BenchLock(UniqueFd fd, absl::Duration waited, std::string waited_for)
      : fd_(std::move(fd)), waited_(waited), waited_for_(std::move(waited_for)) {}
  UniqueFd fd_;
  absl::Duration waited_;
  std::string waited_for_;
};

// The lock as a bench or harness takes it: handed down by a parent that holds
// it (kInheritedLockEnv; the variable is then cleared so that no grandchild
// takes it for its own, and this process dies with that parent, SIGTERM by
// PR_SET_PDEATHSIG), else by `mode` ("wait", "fail" or "none") on `path`
// (empty: DefaultBenchLockPath()), into `lock`. Returns what the results
// record of it ("acquired at once", "waited 12 s for ..."); FailedPrecondition
// when another holds it and `mode` is "fail", or the file is not one to trust.
absl::StatusOr<std::string> TakeBenchLock(absl::string_view what, absl::string_view mode,
                                          std::string path, std::optional<BenchLock>& lock);

}  // namespace spawnlab

#endif  // SPAWNLAB_BENCH_BENCH_LOCK_H_
