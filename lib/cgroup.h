// cgroup.h: a cgroup v2 directory of one's own, for as long as an object
// lives, removed even when the process that made it is killed.
//
// ScopedCgroup::Create makes "<prefix>-<pid>" under this process's own cgroup
// v2 directory. A small watcher process removes it (killing what is left
// inside, cgroup.kill) if this process dies first, SIGKILL included; Create
// also removes what killed runs from before the watcher existed left behind.
//
//   absl::StatusOr<spawnlab::ScopedCgroup> cg = spawnlab::ScopedCgroup::Create("spawnlab-bench");
//   if (!cg.ok()) return Skip(cg.status());  // no writable cgroup v2 here
//   spawnlab::SpawnOptions options;
//   options.cgroup_fd = cg->fd();            // the child runs in cg->path()

#ifndef SPAWNLAB_LIB_CGROUP_H_
#define SPAWNLAB_LIB_CGROUP_H_

#include <sys/types.h>

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "lib/unique_fd.h"

namespace spawnlab {

// This process's cgroup v2 directory, as a path ("/sys/fs/cgroup/unified/" on
// a hybrid host whose process sits at the root). FailedPrecondition where no
// cgroup v2 hierarchy is mounted or this process is in none.
absl::StatusOr<std::string> OwnCgroupV2Dir();

class ScopedCgroup {
 public:
  // Makes "<prefix>-<pid>" under OwnCgroupV2Dir(). The watcher notices this
  // process's end by the end of a pipe only this process holds, and needs
  // cgroup.kill (Linux 5.14) to empty the directory. FailedPrecondition (with
  // the errno's words) where the directory cannot be made, e.g. a read-only
  // /sys/fs/cgroup in a container, or no permission.
  static absl::StatusOr<ScopedCgroup> Create(absl::string_view prefix);

  ScopedCgroup(ScopedCgroup&& other) noexcept;
  ScopedCgroup& operator=(ScopedCgroup&& other) = delete;
  ScopedCgroup(const ScopedCgroup&) = delete;
  ScopedCgroup& operator=(const ScopedCgroup&) = delete;
  // Kills what is still inside, removes the directory, ends the watcher.
  ~ScopedCgroup();

  const std::string& path() const { return path_; }
  // O_DIRECTORY | O_CLOEXEC: for SpawnOptions::cgroup_fd.
  int fd() const { return fd_.get(); }
  // The number of processes in it now (cgroup.procs lines), -1 if unreadable.
  int ProcessCount() const;
  // The watcher's pid (for tests), -1 once it has been reaped.
  pid_t watcher() const { return watcher_; }

 private:
  ScopedCgroup() = default;

  std::string path_;
  UniqueFd fd_;
  UniqueFd watcher_pipe_;  // the write end: its closing tells the watcher to clean up
  pid_t watcher_ = -1;
};

}  // namespace spawnlab

#endif  // SPAWNLAB_LIB_CGROUP_H_
