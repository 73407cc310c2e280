// spawn.cc: see spawn.h. The measured path of every method is kept to the
// primitive itself plus the few syscalls needed to report an exec failure.

#include "lib/spawn.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <linux/sched.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/clock.h"
#include "lib/clone3.h"

extern char** environ;

// The inline experiment builds this file three ways (experiments/inline):
// SPAWNLAB_WRAPPER is then __attribute__((noinline)) or always_inline on the
// internal wrappers below. By default it is nothing: the compiler decides.
#ifndef SPAWNLAB_WRAPPER
#define SPAWNLAB_WRAPPER
#endif

namespace spawnlab {

struct Child::PendingExecReport {
  UniqueFd pipe;  // read end; the child writes {stage, errno} if its exec fails
  SpawnMethod method;
  std::string path;
  std::string working_dir;
};

struct ChildAccess {
  using Report = std::unique_ptr<Child::PendingExecReport>;
  // Made before the fork: what the parent writes between the fork and the
  // child's exec it must copy first (copy-on-write), and the heap is not
  // worth a page fault inside the spawn.
  static Report NewExecReport(UniqueFd pipe, SpawnMethod method, absl::string_view path,
                              absl::string_view working_dir) {
    return Report(new Child::PendingExecReport{std::move(pipe), method, std::string(path),
                                               std::string(working_dir)});
  }
  static void Attach(Child& child, Report report) { child.exec_report_ = std::move(report); }
};

namespace {

constexpr std::array<SpawnMethod, 6> kAllMethods = {
    SpawnMethod::kFork,   SpawnMethod::kVfork,     SpawnMethod::kClone,
    SpawnMethod::kClone3, SpawnMethod::kClone3Cow, SpawnMethod::kPosixSpawn,
};

// The child of a CLONE_VM method runs on this much of the parent's stack (the
// parent is suspended until the exec, as in musl's posix_spawn). execve needs
// little: the kernel copies argv and envp itself.
constexpr size_t kChildStackBytes = 32 * 1024;

#ifndef CLONE_CLEAR_SIGHAND
#define CLONE_CLEAR_SIGHAND 0x100000000ULL  // Linux 5.5
#endif

// The steps a child takes before its exec; where one fails, the child reports
// which and its errno, and exits 127.
enum Stage : int {
  kStageExec = 0,
  kStageDup2 = 1,
  kStageChdir = 2,
  kStageSetpgid = 3,
  kStageCgroup = 4,
};

#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL  // Linux 5.7
#endif

CloseOthersWay close_others_way = CloseOthersWay::kFastest;  // tests only

// What a child needs to exec, and where it leaves the errno of a failure.
// Everything is prepared by the parent: the child allocates nothing.
struct ExecArgs {
  const char* path;
  char* const* argv;
  char* const* envp;
  const std::pair<int, int>* fd_map = nullptr;
  size_t fd_map_size = 0;
  const char* working_dir = nullptr;  // nullptr: stay
  int exec_fd = -1;                   // >= 0: execveat(exec_fd, "", AT_EMPTY_PATH)
  bool reset_handlers_in_child = false;
  // clone3 with CLONE_CLEAR_SIGHAND: the kernel has reset every handler, so
  // only the ignored signals are left, and the parent has read which they are
  // (its /proc/self/status is at hand; a new child's costs tens of µs).
  bool only_ignored_left = false;
  uint64_t ignored_in_parent = 0;
  bool default_signals = false;            // SIG_IGN to SIG_DFL as well, empty mask
  bool restore_signals = false;            // SIGPIPE and SIGXFSZ to SIG_DFL, empty mask
  bool new_process_group = false;          // setpgid(0, 0)
  bool close_other_fds = false;            // only 0-2 and the fd_map targets reach exec
  int cgroup_fd = -1;                      // >= 0: write "0" to its cgroup.procs first
  const sigset_t* restore_mask = nullptr;  // unblock to this before exec
  int error_fd = -1;                       // copy-on-write methods: the O_CLOEXEC pipe
  volatile int failed_errno = 0;           // CLONE_VM methods: shared memory
  volatile int failed_stage = kStageExec;
};

// Whether the child keeps `fd` through close_other_fds: a target of the
// fd_map, the descriptor it execs, or the pipe that reports a failed exec.
__attribute__((no_sanitize("address"))) bool Kept(const ExecArgs* args, int fd) {
  if (fd < 3 || fd == args->exec_fd || fd == args->error_fd) return true;
  for (size_t i = 0; i < args->fd_map_size; ++i) {
    if (args->fd_map[i].second == fd) return true;
  }
  return false;
}

// close_other_fds without CLOSE_RANGE_CLOEXEC (before Linux 5.11): close
// every descriptor not kept, walking /proc/self/fd (getdents64 into the stack:
// nothing allocated), or, without /proc, trying each up to RLIMIT_NOFILE.
// Not inlined, for the reason ReadSignalDispositions gives.
__attribute__((no_sanitize("address"), noinline)) void CloseOthersByHand(const ExecArgs* args) {
  int dir = close_others_way == CloseOthersWay::kEveryDescriptor
                ? -1
                : static_cast<int>(syscall(SYS_openat, AT_FDCWD, "/proc/self/fd",
                                           O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir >= 0) {
    alignas(8) char buf[4096];
    long n;
    while ((n = syscall(SYS_getdents64, dir, buf, sizeof(buf))) > 0) {
      for (long off = 0; off < n;) {
        const auto* d = reinterpret_cast<const struct dirent64*>(buf + off);
        int fd = 0;
        const char* c = d->d_name;
        for (; *c >= '0' && *c <= '9'; ++c) fd = fd * 10 + (*c - '0');
        if (*c == '\0' && c != d->d_name && fd != dir && !Kept(args, fd)) close(fd);
        off += d->d_reclen;
      }
    }
    close(dir);
    return;
  }
  struct rlimit limit;
  const int top = getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < (1u << 20)
                      ? static_cast<int>(limit.rlim_cur)
                      : (1 << 20);
  for (int fd = 3; fd < top; ++fd) {
    if (!Kept(args, fd)) close(fd);
  }
}

// The SigCgt (a handler is installed) and SigIgn masks of /proc/self/status,
// bit n-1 for signal n; false if they cannot be read. Safe in a vfork child:
// raw system calls into a stack buffer, nothing allocated. Not inlined: its
// 4 KiB buffer would widen PrepareAndExec's frame by a stack page, and a fork
// child pays a copy-on-write fault for each page it writes before its exec,
// even when this never runs.
__attribute__((no_sanitize("address"), noinline)) bool ReadSignalDispositions(uint64_t* caught,
                                                                              uint64_t* ignored) {
  int fd =
      static_cast<int>(syscall(SYS_openat, AT_FDCWD, "/proc/self/status", O_RDONLY | O_CLOEXEC));
  if (fd < 0) return false;
  char buf[4096];
  size_t len = 0;
  for (;;) {
    long n = syscall(SYS_read, fd, buf + len, sizeof(buf) - 1 - len);
    if (n <= 0) break;
    len += static_cast<size_t>(n);
    if (len == sizeof(buf) - 1) break;
  }
  syscall(SYS_close, fd);
  buf[len] = '\0';
  int found = 0;
  for (size_t i = 0; i + 8 < len; ++i) {
    if (i != 0 && buf[i - 1] != '\n') continue;
    uint64_t* out = nullptr;
    if (memcmp(buf + i, "SigCgt:\t", 8) == 0) out = caught;
    if (memcmp(buf + i, "SigIgn:\t", 8) == 0) out = ignored;
    if (out == nullptr) continue;
    uint64_t v = 0;
    size_t j = i + 8, digits = 0;
    for (; j < len; ++j, ++digits) {
      const char c = buf[j];
      const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
      if (d < 0) break;
      v = (v << 4) | static_cast<uint64_t>(d);
    }
    if (digits != 16) return false;
    *out = v;
    ++found;
  }
  return found == 2;
}

// Runs in the child: the options, then the exec. Returns only on failure, with
// the errno, and the stage in *stage.
__attribute__((no_sanitize("address"))) int PrepareAndExec(ExecArgs* args, int* stage) {
  if (args->cgroup_fd >= 0) {
    // First, so that all the child does runs in its cgroup.
    const int procs = static_cast<int>(
        syscall(SYS_openat, args->cgroup_fd, "cgroup.procs", O_WRONLY | O_CLOEXEC));
    if (procs < 0 || syscall(SYS_write, procs, "0", 1) != 1) {
      const int err = errno;
      if (procs >= 0) syscall(SYS_close, procs);
      *stage = kStageCgroup;
      return err;
    }
    syscall(SYS_close, procs);
  }
  if (args->reset_handlers_in_child || args->default_signals) {
    // Only the signals that have a handler (or, for default_signals, are
    // ignored) need a sigaction; /proc/self/status names them in one read,
    // where asking each of the 64 costs 64 system calls.
    uint64_t caught = 0, ignored = args->ignored_in_parent;
    const bool known = args->only_ignored_left || ReadSignalDispositions(&caught, &ignored);
    struct sigaction dfl = {};
    dfl.sa_handler = SIG_DFL;
    for (int sig = 1; sig < NSIG; ++sig) {
      if (known) {
        const uint64_t bit = sig <= 64 ? uint64_t{1} << (sig - 1) : 0;
        if ((caught & bit) || (args->default_signals && (ignored & bit))) {
          sigaction(sig, &dfl, nullptr);
        }
        continue;
      }
      struct sigaction old;
      if (sigaction(sig, nullptr, &old) == 0 && old.sa_handler != SIG_DFL &&
          (old.sa_handler != SIG_IGN || args->default_signals)) {
        sigaction(sig, &dfl, nullptr);
      }
    }
  }
  if (args->restore_signals) {
    struct sigaction dfl = {};
    dfl.sa_handler = SIG_DFL;
    sigaction(SIGPIPE, &dfl, nullptr);
    sigaction(SIGXFSZ, &dfl, nullptr);
  }
  if (args->default_signals || args->restore_signals) {
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
  } else if (args->restore_mask != nullptr) {
    sigprocmask(SIG_SETMASK, args->restore_mask, nullptr);
  }
  if (args->new_process_group && setpgid(0, 0) != 0) {
    *stage = kStageSetpgid;
    return errno;
  }
  // The fastest safe way first: mark every descriptor close-on-exec in one
  // call (Linux 5.11); the dup2s below then clear the mark on their targets,
  // and the error pipe is close-on-exec anyway.
  const bool marked = args->close_other_fds && close_others_way == CloseOthersWay::kFastest &&
                      syscall(SYS_close_range, 3u, ~0u, CLOSE_RANGE_CLOEXEC) == 0;
  for (size_t i = 0; i < args->fd_map_size; ++i) {
    const auto [from, to] = args->fd_map[i];
    int r = from == to ? fcntl(to, F_SETFD, 0) : dup2(from, to);
    if (r < 0) {
      *stage = kStageDup2;
      return errno;
    }
  }
  if (args->close_other_fds && !marked) CloseOthersByHand(args);
  if (args->working_dir != nullptr && chdir(args->working_dir) != 0) {
    *stage = kStageChdir;
    return errno;
  }
  if (args->exec_fd >= 0) {
    syscall(SYS_execveat, args->exec_fd, "", args->argv, args->envp, AT_EMPTY_PATH);
  } else {
    execve(args->path, args->argv, args->envp);
  }
  *stage = kStageExec;
  return errno;
}

// Runs in a CLONE_VM child, on the stack the parent lent it.
__attribute__((no_sanitize("address"))) int ExecSharingMemory(void* p) {
  auto* args = static_cast<ExecArgs*>(p);
  int stage;
  int err = PrepareAndExec(args, &stage);
  args->failed_stage = stage;
  args->failed_errno = err;
  _exit(127);
}

// Runs in a copy-on-write child: memory writes would not reach the parent.
int ExecReportingOnPipe(void* p) {
  auto* args = static_cast<ExecArgs*>(p);
  int report[2];
  report[1] = PrepareAndExec(args, &report[0]);
  if (args->error_fd >= 0) {  // none with ExecErrors::kByExitStatus
    ssize_t ignored = write(args->error_fd, report, sizeof(report));
    (void)ignored;
  }
  _exit(127);
}

SPAWNLAB_WRAPPER pid_t WaitPidRetrying(pid_t pid, int* status, int options) {
  pid_t r;
  do {
    r = waitpid(pid, status, options);
  } while (r < 0 && errno == EINTR);
  return r;
}

// The error for a child that failed at `stage` (before or at its exec) with
// `err`, naming what failed.
absl::Status ExecFailure(int err, int stage, SpawnMethod method, absl::string_view path,
                         absl::string_view working_dir) {
  std::string what;
  switch (stage) {
    case kStageChdir:
      what = absl::StrCat("chdir ", working_dir, " for ", path);
      break;
    case kStageDup2:
      what = absl::StrCat("dup2 in the child of ", path);
      break;
    case kStageSetpgid:
      what = absl::StrCat("setpgid in the child of ", path);
      break;
    case kStageCgroup:
      what = absl::StrCat("moving the child of ", path, " into its cgroup (cgroup.procs)");
      break;
    default:
      what = absl::StrCat("exec ", path);
  }
  return absl::ErrnoToStatus(err, absl::StrCat(what, " (", SpawnMethodName(method), ")"));
}

// Reaps a child that failed before or at its exec, and turns the errno into
// the error, naming what failed.
absl::Status ChildFailed(pid_t pid, int err, int stage, SpawnMethod method, const ExecSpec& spec,
                         const SpawnOptions& options) {
  int status;
  WaitPidRetrying(pid, &status, 0);
  return ExecFailure(err, stage, method, spec.path(), options.working_dir);
}

// The spawn call itself failed (no child): the errno, naming the method and
// the program, and the cgroup where clone3 was to create the child in one.
absl::Status SpawnFailed(int err, SpawnMethod method, const ExecSpec& spec,
                         const SpawnOptions& options) {
  const bool into_cgroup = options.cgroup_fd >= 0 &&
                           (method == SpawnMethod::kClone3 || method == SpawnMethod::kClone3Cow);
  return absl::ErrnoToStatus(err,
                             absl::StrCat(SpawnMethodName(method), " ", spec.path(),
                                          into_cgroup ? " into a cgroup (CLONE_INTO_CGROUP)" : ""));
}

SPAWNLAB_WRAPPER ExecArgs MakeArgs(const ExecSpec& spec, const SpawnOptions& options) {
  ExecArgs args{spec.path(), spec.argv(), spec.envp()};
  args.fd_map = options.fd_map.data();
  args.fd_map_size = options.fd_map.size();
  if (!options.working_dir.empty()) args.working_dir = options.working_dir.c_str();
  args.exec_fd = options.exec_fd;
  args.default_signals = options.default_signals;
  args.restore_signals = options.restore_signals;
  args.new_process_group = options.new_process_group;
  args.close_other_fds = options.close_other_fds;
  args.cgroup_fd = options.cgroup_fd;  // clone3 and clone3-cow: CLONE_INTO_CGROUP instead
  return args;
}

// Blocks every signal for the life of the object (the CLONE_VM window).
class BlockedSignals {
 public:
  explicit BlockedSignals(bool block) : active_(block) {
    if (!active_) return;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old_);
  }
  ~BlockedSignals() {
    if (active_) pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  const sigset_t* old() const { return active_ ? &old_ : nullptr; }

 private:
  bool active_;
  sigset_t old_;
};

absl::StatusOr<Child> SpawnSharingMemory(SpawnMethod method, const ExecSpec& spec,
                                         const SpawnOptions& options) {
  ExecArgs args = MakeArgs(spec, options);
  // clone3 clears the handlers itself; vfork and clone need the signals
  // blocked until the child has reset them.
  // default_signals needs the window closed too: the ignored signals are
  // reset in the child, and clone3's CLONE_CLEAR_SIGHAND leaves those alone.
  // restore_signals does not: it names its two signals, and the child sets
  // them after the kernel has cleared every handler.
  const bool reset = options.reset_signal_handlers || options.restore_signals;
  const bool by_hand = (reset && method != SpawnMethod::kClone3) || options.default_signals;
  BlockedSignals blocked(by_hand);
  args.reset_handlers_in_child = by_hand;
  args.restore_mask = blocked.old();
  alignas(64) char stack[kChildStackBytes];
  pid_t pid = -1;
  int pidfd = -1;
  int saved_errno = 0;
  switch (method) {
    case SpawnMethod::kVfork:
      pid = vfork();
      if (pid == 0) {
        int stage;
        int err = PrepareAndExec(&args, &stage);
        args.failed_stage = stage;
        args.failed_errno = err;
        _exit(127);
      }
      saved_errno = errno;
      break;
    case SpawnMethod::kClone:
      pid =
          clone(ExecSharingMemory, stack + sizeof(stack), CLONE_VM | CLONE_VFORK | SIGCHLD, &args);
      saved_errno = errno;
      break;
    case SpawnMethod::kClone3: {
      struct clone_args ca = {};
      ca.flags = CLONE_VM | CLONE_VFORK;
      if (options.want_pidfd) ca.flags |= CLONE_PIDFD;
      if (reset || options.default_signals) ca.flags |= CLONE_CLEAR_SIGHAND;
      if (options.default_signals) {
        uint64_t caught;
        args.only_ignored_left = ReadSignalDispositions(&caught, &args.ignored_in_parent);
      }
      if (options.cgroup_fd >= 0) {
        ca.flags |= CLONE_INTO_CGROUP;
        ca.cgroup = static_cast<uint64_t>(options.cgroup_fd);
        args.cgroup_fd = -1;
      }
      ca.pidfd = reinterpret_cast<uintptr_t>(&pidfd);
      ca.exit_signal = SIGCHLD;
      ca.stack = reinterpret_cast<uintptr_t>(stack);
      ca.stack_size = sizeof(stack);
      long r = spawnlab_clone3(&ca, sizeof(ca), ExecSharingMemory, &args);
      if (r < 0) {
        saved_errno = static_cast<int>(-r);
      } else {
        pid = static_cast<pid_t>(r);
      }
      break;
    }
    default:
      return absl::InternalError("not a CLONE_VM method");
  }
  if (pid < 0) return SpawnFailed(saved_errno, method, spec, options);
  UniqueFd owned_pidfd(pidfd);
  if (args.failed_errno != 0) {
    return ChildFailed(pid, args.failed_errno, args.failed_stage, method, spec, options);
  }
  return Child(pid, std::move(owned_pidfd));
}

SPAWNLAB_WRAPPER absl::StatusOr<Child> SpawnCopyingMemory(SpawnMethod method, const ExecSpec& spec,
                                                          const SpawnOptions& options) {
  const bool with_pipe = options.exec_errors != ExecErrors::kByExitStatus;
  int pipe_fds[2] = {-1, -1};
  if (with_pipe && pipe2(pipe_fds, O_CLOEXEC) != 0) {
    return absl::ErrnoToStatus(errno, "pipe2 for exec errors");
  }
  UniqueFd read_end(pipe_fds[0]);
  UniqueFd write_end(pipe_fds[1]);
  // The child's dup2s must not land on the error pipe (a missing program
  // would then look like a success, and its report go to the caller's
  // descriptor): move the pipe above every target first, as Go's forkExec and
  // CPython's _posixsubprocess do.
  int highest_target = -1;
  for (const auto& [from, to] : options.fd_map) highest_target = std::max(highest_target, to);
  if (with_pipe && write_end.get() <= highest_target) {
    UniqueFd moved(fcntl(write_end.get(), F_DUPFD_CLOEXEC, highest_target + 1));
    if (!moved.valid()) return absl::ErrnoToStatus(errno, "F_DUPFD_CLOEXEC for exec errors");
    write_end = std::move(moved);
  }
  ExecArgs args = MakeArgs(spec, options);
  args.error_fd = write_end.get();
  // The child's memory is its own: a handler running there cannot hurt the
  // parent, so resetting them needs no blocked window.
  args.reset_handlers_in_child = options.reset_signal_handlers || options.restore_signals;
  ChildAccess::Report deferred_report;
  if (options.exec_errors == ExecErrors::kAtWait) {
    deferred_report =
        ChildAccess::NewExecReport(std::move(read_end), method, spec.path(), options.working_dir);
  }
  pid_t pid = -1;
  int pidfd = -1;
  int saved_errno = 0;
  if (method == SpawnMethod::kFork) {
    pid = fork();
    if (pid == 0) ExecReportingOnPipe(&args);
    saved_errno = errno;
  } else {
    struct clone_args ca = {};
    ca.flags = options.want_pidfd ? CLONE_PIDFD : 0;
    if (options.cgroup_fd >= 0) {
      ca.flags |= CLONE_INTO_CGROUP;
      ca.cgroup = static_cast<uint64_t>(options.cgroup_fd);
      args.cgroup_fd = -1;
    }
    ca.pidfd = reinterpret_cast<uintptr_t>(&pidfd);
    ca.exit_signal = SIGCHLD;
    long r = spawnlab_clone3(&ca, sizeof(ca), ExecReportingOnPipe, &args);
    if (r < 0) {
      saved_errno = static_cast<int>(-r);
    } else {
      pid = static_cast<pid_t>(r);
    }
  }
  if (pid < 0) return SpawnFailed(saved_errno, method, spec, options);
  UniqueFd owned_pidfd(pidfd);
  if (!with_pipe) return Child(pid, std::move(owned_pidfd));
  write_end.reset();
  if (deferred_report != nullptr) {
    Child child(pid, std::move(owned_pidfd));
    ChildAccess::Attach(child, std::move(deferred_report));
    return child;
  }
  int report[2] = {0, 0};  // stage, errno
  ssize_t n;
  do {
    n = read(read_end.get(), report, sizeof(report));
  } while (n < 0 && errno == EINTR);
  if (n == sizeof(report)) {
    return ChildFailed(pid, report[1], report[0], method, spec, options);
  }
  return Child(pid, std::move(owned_pidfd));
}

SPAWNLAB_WRAPPER absl::StatusOr<Child> SpawnPosix(const ExecSpec& spec,
                                                  const SpawnOptions& options) {
  if (options.exec_fd >= 0) {
    return absl::InvalidArgumentError("posix_spawn cannot exec a descriptor (exec_fd)");
  }
  if (options.cgroup_fd >= 0) {
    return absl::InvalidArgumentError(
        "posix_spawn cannot place its child in a cgroup (cgroup_fd; glibc 2.41's "
        "posix_spawnattr_setcgroup_np is newer than this library)");
  }
  // glibc's posix_spawn already blocks signals and resets handlers in its
  // child, so reset_signal_handlers needs nothing more here.
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_t* actions_ptr = nullptr;
  if (!options.fd_map.empty() || !options.working_dir.empty() || options.close_other_fds) {
    posix_spawn_file_actions_init(&actions);
    actions_ptr = &actions;
  }
  // Each file action can fail (EBADF for a descriptor out of range): a
  // dropped action would spawn the child without it.
  int err = 0;
  for (const auto& [from, to] : options.fd_map) {
    if (err == 0) err = posix_spawn_file_actions_adddup2(&actions, from, to);
    if (err != 0) {
      posix_spawn_file_actions_destroy(&actions);
      return absl::ErrnoToStatus(
          err, absl::StrCat("posix_spawn_file_actions_adddup2(", from, ", ", to, ")"));
    }
  }
  if (options.close_other_fds) {
    // After the dup2s: every descriptor above the highest target goes, and
    // those below it that are not targets (closing one that is not open is
    // not an error for posix_spawn).
    int highest = 2;
    for (const auto& [from, to] : options.fd_map) highest = std::max(highest, to);
    for (int fd = 3; fd <= highest && err == 0; ++fd) {
      bool target = false;
      for (const auto& [from, to] : options.fd_map) target = target || to == fd;
      if (!target) err = posix_spawn_file_actions_addclose(&actions, fd);
    }
    if (err == 0) err = posix_spawn_file_actions_addclosefrom_np(&actions, highest + 1);
    if (err != 0) {
      posix_spawn_file_actions_destroy(&actions);
      return absl::ErrnoToStatus(err, "posix_spawn_file_actions_addclosefrom_np");
    }
  }
  if (!options.working_dir.empty()) {
    err = posix_spawn_file_actions_addchdir_np(&actions, options.working_dir.c_str());
    if (err != 0) {
      posix_spawn_file_actions_destroy(&actions);
      return absl::ErrnoToStatus(err, "posix_spawn_file_actions_addchdir_np");
    }
  }
  posix_spawnattr_t attr;
  posix_spawnattr_t* attr_ptr = nullptr;
  if (options.default_signals || options.restore_signals || options.new_process_group) {
    posix_spawnattr_init(&attr);
    attr_ptr = &attr;
    short flags = 0;
    if (options.default_signals || options.restore_signals) {
      sigset_t to_default, none;
      if (options.default_signals) {
        sigfillset(&to_default);
      } else {
        sigemptyset(&to_default);
        sigaddset(&to_default, SIGPIPE);
        sigaddset(&to_default, SIGXFSZ);
      }
      sigemptyset(&none);
      posix_spawnattr_setsigdefault(&attr, &to_default);
      posix_spawnattr_setsigmask(&attr, &none);
      flags |= POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK;
    }
    if (options.new_process_group) {
      posix_spawnattr_setpgroup(&attr, 0);
      flags |= POSIX_SPAWN_SETPGROUP;
    }
    posix_spawnattr_setflags(&attr, flags);
  }
  pid_t pid;
  err = posix_spawn(&pid, spec.path(), actions_ptr, attr_ptr, spec.argv(), spec.envp());
  if (actions_ptr != nullptr) posix_spawn_file_actions_destroy(actions_ptr);
  if (attr_ptr != nullptr) posix_spawnattr_destroy(attr_ptr);
  if (err != 0) {
    // posix_spawn does not say which step failed: name the directory if it is gone.
    if (err == ENOENT && !options.working_dir.empty() &&
        access(options.working_dir.c_str(), F_OK) != 0) {
      return absl::ErrnoToStatus(
          err, absl::StrCat("chdir ", options.working_dir, " for ", spec.path(), " (posix_spawn)"));
    }
    return absl::ErrnoToStatus(err, absl::StrCat("exec ", spec.path(), " (posix_spawn)"));
  }
  return Child(pid, UniqueFd());
}

}  // namespace

void SetCloseOthersWayForTesting(CloseOthersWay way) { close_others_way = way; }

absl::Span<const SpawnMethod> AllSpawnMethods() { return kAllMethods; }

absl::string_view SpawnMethodName(SpawnMethod method) {
  switch (method) {
    case SpawnMethod::kFork:
      return "fork";
    case SpawnMethod::kVfork:
      return "vfork";
    case SpawnMethod::kClone:
      return "clone";
    case SpawnMethod::kClone3:
      return "clone3";
    case SpawnMethod::kClone3Cow:
      return "clone3-cow";
    case SpawnMethod::kPosixSpawn:
      return "posix_spawn";
  }
  return "unknown";
}

absl::StatusOr<SpawnMethod> ParseSpawnMethod(absl::string_view name) {
  for (SpawnMethod m : kAllMethods) {
    if (SpawnMethodName(m) == name) return m;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown spawn method '", name,
                   "'; expected fork, vfork, clone, clone3, clone3-cow or posix_spawn"));
}

bool ExitStatus::exited() const { return WIFEXITED(wait_status_); }
int ExitStatus::exit_code() const { return WEXITSTATUS(wait_status_); }
bool ExitStatus::signaled() const { return WIFSIGNALED(wait_status_); }
int ExitStatus::term_signal() const { return WTERMSIG(wait_status_); }

std::string ExitStatus::ToString() const {
  if (exited()) return absl::StrCat("exit ", exit_code());
  if (signaled()) {
    return absl::StrCat("signal ", term_signal(), " (", strsignal(term_signal()), ")");
  }
  return absl::StrCat("wait status ", wait_status_);
}

struct ExecSpec::Data {
  std::string path;
  std::vector<std::string> argv;
  std::vector<std::string> env;
  bool has_env = false;
  std::vector<char*> argv_ptrs;
  std::vector<char*> env_ptrs;
};

namespace {
std::vector<char*> NullTerminated(const std::vector<std::string>& strings) {
  std::vector<char*> ptrs;
  ptrs.reserve(strings.size() + 1);
  for (const std::string& s : strings) ptrs.push_back(const_cast<char*>(s.c_str()));
  ptrs.push_back(nullptr);
  return ptrs;
}
}  // namespace

ExecSpec::ExecSpec(std::string path, std::vector<std::string> argv) {
  auto data = std::make_shared<Data>();
  data->path = std::move(path);
  data->argv = std::move(argv);
  data->argv_ptrs = NullTerminated(data->argv);
  data_ = std::move(data);
}

ExecSpec::ExecSpec(std::string path, std::vector<std::string> argv, std::vector<std::string> env) {
  auto data = std::make_shared<Data>();
  data->path = std::move(path);
  data->argv = std::move(argv);
  data->env = std::move(env);
  data->has_env = true;
  data->argv_ptrs = NullTerminated(data->argv);
  data->env_ptrs = NullTerminated(data->env);
  data_ = std::move(data);
}

const char* ExecSpec::path() const { return data_->path.c_str(); }
char* const* ExecSpec::argv() const { return data_->argv_ptrs.data(); }
char* const* ExecSpec::envp() const { return data_->has_env ? data_->env_ptrs.data() : environ; }

Child::Child(pid_t pid, UniqueFd pidfd) : pid_(pid), pidfd_(std::move(pidfd)) {}

Child::Child(Child&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)),
      pidfd_(std::move(other.pidfd_)),
      exec_report_(std::move(other.exec_report_)) {}

Child& Child::operator=(Child&& other) noexcept {
  if (this != &other) {
    KillAndReap();
    pid_ = std::exchange(other.pid_, -1);
    pidfd_ = std::move(other.pidfd_);
    exec_report_ = std::move(other.exec_report_);
  }
  return *this;
}

Child::~Child() { KillAndReap(); }

// Sends `signal` to `pid` through `pidfd` where there is one (a pidfd names
// one process and cannot be reused), else by pid.
int SignalChild(pid_t pid, int pidfd, int signal) {
  if (pidfd >= 0) {
    if (syscall(SYS_pidfd_send_signal, pidfd, signal, nullptr, 0) == 0) return 0;
    if (errno != ENOSYS) return -1;
  }
  return kill(pid, signal);
}

void Child::KillAndReap() {
  if (pid_ <= 0) return;
  // Our child, not yet reaped by us: its pid cannot have been reused (Wait
  // and WaitFor give the pid up if someone else reaped it: ECHILD).
  SignalChild(pid_, pidfd_.get(), SIGKILL);
  int status;
  WaitPidRetrying(pid_, &status, 0);
  pid_ = -1;
  pidfd_.reset();
  exec_report_.reset();
}

absl::StatusOr<ExitStatus> Child::Reaped(int status) {
  pid_ = -1;
  pidfd_.reset();
  if (exec_report_ == nullptr) return ExitStatus(status);
  std::unique_ptr<PendingExecReport> report = std::move(exec_report_);
  // The child is gone, and with it every write end: the read cannot block.
  int stage_and_errno[2];
  ssize_t n;
  do {
    n = read(report->pipe.get(), stage_and_errno, sizeof(stage_and_errno));
  } while (n < 0 && errno == EINTR);
  if (n != sizeof(stage_and_errno)) return ExitStatus(status);
  return ExecFailure(stage_and_errno[1], stage_and_errno[0], report->method, report->path,
                     report->working_dir);
}

absl::StatusOr<ExitStatus> Child::Wait() {
  if (pid_ <= 0) return absl::FailedPreconditionError("child already reaped");
  int status;
  if (WaitPidRetrying(pid_, &status, 0) < 0) {
    const int err = errno;
    // ECHILD: someone else reaped it (a SIGCHLD handler, waitpid(-1)); its
    // pid may already be another process's, so this Child lets go of it.
    const pid_t pid = err == ECHILD ? Release() : pid_;
    return absl::ErrnoToStatus(err, absl::StrCat("waitpid ", pid));
  }
  return Reaped(status);
}

absl::StatusOr<ExitStatus> Child::WaitFor(absl::Duration timeout) {
  if (pid_ <= 0) return absl::FailedPreconditionError("child already reaped");
  UniqueFd opened;
  int pidfd = pidfd_.get();
  if (pidfd < 0) {
    opened.reset(static_cast<int>(syscall(SYS_pidfd_open, pid_, 0)));
    pidfd = opened.get();
  }
  // A monotonic deadline: a wall-clock step must not stretch or cut the wait.
  // An infinite (or huge) timeout waits without a deadline.
  const bool forever = timeout >= absl::Hours(24 * 365);
  const int64_t deadline = forever ? 0 : MonotonicNanos() + absl::ToInt64Nanoseconds(timeout);
  while (true) {
    int status;
    pid_t r = WaitPidRetrying(pid_, &status, WNOHANG);
    if (r < 0) {
      const int err = errno;
      const pid_t pid = err == ECHILD ? Release() : pid_;  // as in Wait
      return absl::ErrnoToStatus(err, absl::StrCat("waitpid ", pid));
    }
    if (r == pid_) return Reaped(status);
    const int64_t left_ns = forever ? INT64_MAX : deadline - MonotonicNanos();
    if (left_ns <= 0) {
      return absl::DeadlineExceededError(
          absl::StrCat("child ", pid_, " still running after ", absl::FormatDuration(timeout)));
    }
    if (pidfd >= 0) {
      // pidfds become readable when the process exits (Linux 5.3+).
      struct pollfd pfd = {pidfd, POLLIN, 0};
      if (poll(&pfd, 1, PollTimeoutMs(left_ns)) < 0 && errno != EINTR) {
        return absl::ErrnoToStatus(errno, "poll on pidfd");
      }
    } else {
      // No pidfd_open (before 5.3): poll waitpid every millisecond.
      struct timespec ms = {0, 1000 * 1000};
      nanosleep(&ms, nullptr);
    }
  }
}

pid_t Child::Release() {
  pidfd_.reset();
  exec_report_.reset();
  return std::exchange(pid_, -1);
}

absl::Status Child::Kill(int signal) {
  if (pid_ <= 0) return absl::FailedPreconditionError("child already reaped");
  if (SignalChild(pid_, pidfd_.get(), signal) != 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat("kill ", pid_));
  }
  return absl::OkStatus();
}

absl::Status Child::KillGroup(int signal) {
  if (pid_ <= 0) return absl::FailedPreconditionError("child already reaped");
  if (kill(-pid_, signal) != 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat("kill process group ", pid_));
  }
  return absl::OkStatus();
}

int PollTimeoutMs(int64_t nanos) {
  if (nanos <= 0) return 0;
  const int64_t ms = nanos / 1000000 + 1;  // round up: never wake before the deadline
  return ms > INT_MAX ? INT_MAX : static_cast<int>(ms);
}

absl::StatusOr<Child> Spawn(SpawnMethod method, const ExecSpec& spec, const SpawnOptions& options) {
  switch (method) {
    case SpawnMethod::kFork:
    case SpawnMethod::kClone3Cow:
      return SpawnCopyingMemory(method, spec, options);
    case SpawnMethod::kVfork:
    case SpawnMethod::kClone:
    case SpawnMethod::kClone3:
      return SpawnSharingMemory(method, spec, options);
    case SpawnMethod::kPosixSpawn:
      return SpawnPosix(spec, options);
  }
  return absl::InvalidArgumentError("unknown spawn method");
}

}  // namespace spawnlab
