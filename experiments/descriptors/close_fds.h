// close_fds.h: the ways a child closes the descriptors it inherited, before
// exec, as runtimes do it (see README.md for which runtime does which).
//
// Example, in a vfork or fork child:
//
//   CloseInChild(Way::kCloseRange, /*limit=*/1024);  // fds >= 3 closed
//   execve(path, argv, envp);

#ifndef SPAWNLAB_EXPERIMENTS_DESCRIPTORS_CLOSE_FDS_H_
#define SPAWNLAB_EXPERIMENTS_DESCRIPTORS_CLOSE_FDS_H_

namespace spawnlab {

enum class Way {
  kNone,        // nothing: the child inherits every descriptor
  kCloseRange,  // close_range(3, ~0U, 0), Linux 5.9
  kCloexec,     // close_range(3, ~0U, CLOSE_RANGE_CLOEXEC), Linux 5.11: exec closes them
  kProcWalk,    // getdents64 over /proc/self/fd, closing each (CPython's way)
  kLoop,        // close(fd) for every fd from 3 up to `limit` (the old way)
};

// "none", "close_range", "cloexec", "proc-walk", "loop": the `way:` dimension.
const char* WayName(Way way);

// Closes (or marks close-on-exec) every descriptor >= 3 by `way`; `limit` is
// RLIMIT_NOFILE's soft value, which only kLoop uses. Safe in a vfork child:
// system calls only, no allocation, no errno-dependent libc state. Best
// effort, as in a runtime: a way the kernel lacks leaves the descriptors open
// (probe first: lib/probes.h).
void CloseInChild(Way way, int limit);

}  // namespace spawnlab

#endif  // SPAWNLAB_EXPERIMENTS_DESCRIPTORS_CLOSE_FDS_H_
