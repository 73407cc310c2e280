// clone3.h: clone3(2) with a function to run in the child.
//
// glibc 2.36 keeps its clone3 wrapper internal, and a raw syscall(SYS_clone3)
// cannot be used with CLONE_VM: the child wakes on a new stack with none of the
// caller's frames. spawnlab_clone3 (clone3_x86_64.S) calls fn(arg) on the
// child's stack and exits with its return value, as glibc's __clone3 does.
//
//   struct clone_args args = {};  // fork-like, with a pidfd
//   int pidfd = -1;
//   args.flags = CLONE_PIDFD;
//   args.pidfd = reinterpret_cast<uintptr_t>(&pidfd);
//   args.exit_signal = SIGCHLD;
//   long pid = spawnlab_clone3(&args, sizeof(args), ChildMain, nullptr);
//   if (pid < 0) return absl::ErrnoToStatus(-pid, "clone3");

#ifndef SPAWNLAB_LIB_CLONE3_H_
#define SPAWNLAB_LIB_CLONE3_H_

#include <linux/sched.h>
#include <stddef.h>

#if !defined(__x86_64__)
#error "spawnlab_clone3 (lib/clone3_x86_64.S) is written for x86_64 only"
#endif

// Returns the child's pid in the parent, or -errno. Never returns in the child.
extern "C" long spawnlab_clone3(struct clone_args* args, size_t size, int (*fn)(void*), void* arg);

#endif  // SPAWNLAB_LIB_CLONE3_H_
