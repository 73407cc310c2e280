// spawn.h: one interface over every way Linux offers to start a program.
//
// Each SpawnMethod is the bare primitive (fork, vfork, clone, clone3,
// clone3-cow, posix_spawn: see the enum), with only what is needed to report an
// exec failure and reap the child; that is what the clone3 experiment measures.
// Errors name the path: NotFound, PermissionDenied, or Unimplemented for a
// method the kernel lacks. A Child is reaped by Wait, or killed and reaped
// when destroyed. SpawnOptions adds what a real caller wants (signal handlers
// reset, a cgroup, a pidfd, when exec errors are reported); command.h builds
// the convenient interface on it.
//
//   spawnlab::ExecSpec true_cmd("/bin/true", {"true"});
//   absl::StatusOr<spawnlab::Child> child =
//       spawnlab::Spawn(spawnlab::SpawnMethod::kVfork, true_cmd);
//   absl::StatusOr<spawnlab::ExitStatus> status = child->Wait();  // exit 0

#ifndef SPAWNLAB_LIB_SPAWN_H_
#define SPAWNLAB_LIB_SPAWN_H_

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "lib/unique_fd.h"

namespace spawnlab {

enum class SpawnMethod {
  kFork,        // fork() then execve(); an O_CLOEXEC pipe carries an exec error back
  kVfork,       // vfork() then execve(): the parent sleeps until the exec
  kClone,       // clone(CLONE_VM | CLONE_VFORK) on a stack of its own, as posix_spawn
  kClone3,      // clone3(CLONE_VM | CLONE_VFORK | CLONE_PIDFD): clone plus a pidfd
  kClone3Cow,   // clone3(CLONE_PIDFD) without CLONE_VM: fork's copy-on-write, a pidfd
  kPosixSpawn,  // glibc's posix_spawn()
};

// Every method, in the order reports list them.
absl::Span<const SpawnMethod> AllSpawnMethods();

// "fork", "vfork", "clone", "clone3", "clone3-cow", "posix_spawn": the values of
// the `method:` dimension in benchmark names.
absl::string_view SpawnMethodName(SpawnMethod method);
absl::StatusOr<SpawnMethod> ParseSpawnMethod(absl::string_view name);

// How a child ended, decoded from waitpid's status word.
class ExitStatus {
 public:
  explicit ExitStatus(int wait_status) : wait_status_(wait_status) {}
  bool exited() const;
  int exit_code() const;  // valid when exited()
  bool signaled() const;
  int term_signal() const;  // valid when signaled()
  bool success() const { return exited() && exit_code() == 0; }
  std::string ToString() const;  // "exit 0", "signal 9 (Killed)"

 private:
  int wait_status_;
};

// A program and its arguments, prepared once so that spawning allocates nothing.
// Cheap to copy; immutable.
class ExecSpec {
 public:
  // `argv` includes argv[0]. The child gets the parent's environment as it is
  // at the time of each spawn, unless `env` is given ("KEY=value" strings).
  ExecSpec(std::string path, std::vector<std::string> argv);
  ExecSpec(std::string path, std::vector<std::string> argv, std::vector<std::string> env);

  const char* path() const;
  char* const* argv() const;
  // The environment to pass: `env` if one was given, else the current environ.
  char* const* envp() const;

 private:
  struct Data;
  std::shared_ptr<const Data> data_;
};

// When a fork or clone3-cow child's failed exec is reported (SpawnOptions).
// Methods that share the parent's memory (vfork, clone, clone3) and
// posix_spawn know at once, and always report it from Spawn.
enum class ExecErrors {
  // Spawn blocks on a close-on-exec pipe until the child has exec'd or
  // written why it could not, as Python's subprocess and Go's os/exec do. The
  // price: the parent is woken in the middle of the child's exec (the pipe
  // closes there), two context switches inside the spawn.
  kAtSpawn,
  // Spawn returns once the child exists, and Wait or WaitFor reports the
  // failed exec (after reaping the child) with the same error kAtSpawn would
  // have given. No wake-up during the exec: the bare fork+exec that
  // spawnbench and lmbench time. The pipe's read end stays open until then.
  kAtWait,
  // No pipe at all: a failed exec ends the child with status 127 and nothing
  // says why (Wait returns that status, not an error). What spawnbench and
  // lmbench time, to the system call: no pipe2, close or read around the
  // fork. For a harness that knows its child ran by other means (its output),
  // and has checked the same spawn once with kAtWait for a clear error.
  kByExitStatus,
};

// A started child process. Move-only. Destroying a Child that has not been
// reaped sends it SIGKILL and reaps it.
class Child {
 public:
  Child(pid_t pid, UniqueFd pidfd);
  Child(Child&& other) noexcept;
  Child& operator=(Child&& other) noexcept;
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  ~Child();

  pid_t pid() const { return pid_; }
  // The child's pidfd where the method made one (clone3, clone3-cow), else -1.
  int pidfd() const { return pidfd_.get(); }
  bool reaped() const { return pid_ <= 0; }

  // Blocks until the child ends and reaps it. With ExecErrors::kAtWait, a
  // failed exec is the error here.
  absl::StatusOr<ExitStatus> Wait();
  // As Wait, but gives up after `timeout` with DeadlineExceeded (the child is
  // left running; destroying the Child kills it).
  absl::StatusOr<ExitStatus> WaitFor(absl::Duration timeout);
  // Sends `signal` to a child that has not been reaped (through its pidfd
  // where it has one).
  absl::Status Kill(int signal);
  // Sends `signal` to the process group the child leads
  // (SpawnOptions::new_process_group): it and whatever it started that stayed
  // in the group, even after the child itself has exited (but not been
  // reaped: until then its pid, and so the group id, cannot be reused).
  absl::Status KillGroup(int signal);
  // Gives the child up without killing or reaping it, for a caller that reaps
  // it (or has reaped it) itself; returns its pid. A pending kAtWait exec
  // report is dropped.
  pid_t Release();
  // Hands the pidfd over (invalid if there was none); the Child keeps the pid.
  UniqueFd TakePidfd() { return std::move(pidfd_); }

 private:
  friend struct ChildAccess;  // spawn.cc: Spawn attaches a kAtWait report
  struct PendingExecReport;   // ExecErrors::kAtWait: the pipe, and what to name
  void KillAndReap();
  // After the child is reaped: its exit status, or the failed exec it reported.
  absl::StatusOr<ExitStatus> Reaped(int status);

  pid_t pid_;
  UniqueFd pidfd_;
  std::unique_ptr<PendingExecReport> exec_report_;
};

// What the child does between its birth and the exec, whatever the method.
struct SpawnOptions {
  // dup2(from, to) in the child, in order (from == to clears FD_CLOEXEC).
  // Descriptors meant for the child only should be O_CLOEXEC in the parent.
  std::vector<std::pair<int, int>> fd_map;
  // chdir in the child; empty keeps the parent's directory.
  std::string working_dir;
  // Reset the parent's signal handlers to SIG_DFL in the child before any of
  // the above runs. The CLONE_VM methods run the child in the parent's memory
  // until it execs, where a parent's handler could run, in the child, on the
  // parent's memory; by default they do nothing about it (the bare primitive
  // the benches measure). This closes the window: clone3 passes
  // CLONE_CLEAR_SIGHAND (Linux 5.5), vfork and clone block signals around the
  // spawn and reset the handlers in the child, as glibc's posix_spawn does
  // (posix_spawn always does).
  bool reset_signal_handlers = false;
  // As Python's subprocess restore_signals: SIGPIPE and SIGXFSZ, the two a
  // runtime or a server ignores for itself, start at SIG_DFL in the child (a
  // server that ignores SIGPIPE would otherwise hand that to `cat`), and the
  // signal mask starts empty. Other ignored signals pass through the exec as
  // POSIX intends (nohup's SIGHUP, a background job's SIGINT). Implies
  // reset_signal_handlers; with clone3 it costs the child three system calls
  // and reads nothing (no /proc).
  bool restore_signals = false;
  // Every signal at SIG_DFL, every ignored one too, and an empty signal mask:
  // posix_spawn's POSIX_SPAWN_SETSIGDEF over all signals. Implies
  // reset_signal_handlers. The CLONE_VM methods learn which signals are
  // ignored from /proc/self/status, on every spawn.
  bool default_signals = false;
  // setpgid(0, 0) in the child: it leads a process group of its own, so that
  // it and everything it starts can be signalled at once (kill(-pid, sig)).
  bool new_process_group = false;
  // If >= 0, exec this descriptor (execveat with AT_EMPTY_PATH, as fexecve
  // does) instead of opening spec.path(), which then only names it in errors.
  // An O_PATH descriptor or a memfd work; posix_spawn cannot do this
  // (InvalidArgument).
  int exec_fd = -1;
  // Only descriptors 0-2 and the fd_map targets reach the program, as
  // Python's close_fds=True: every other descriptor is closed in the child,
  // inheritable or not. The fastest safe way the kernel offers:
  // close_range(CLOSE_RANGE_CLOEXEC) (Linux 5.11), else a walk of
  // /proc/self/fd, else a close of each up to RLIMIT_NOFILE; posix_spawn uses
  // glibc's closefrom file action.
  bool close_other_fds = false;
  // clone3 and clone3-cow make a pidfd for the child (CLONE_PIDFD); false
  // saves creating and closing it when nothing will poll it.
  bool want_pidfd = true;
  // When fork and clone3-cow report a failed exec (see ExecErrors). The
  // benches time kAtWait, the primitive; kAtSpawn costs a wake-up more.
  ExecErrors exec_errors = ExecErrors::kAtSpawn;
  // If >= 0, an O_DIRECTORY descriptor of a cgroup v2 directory: the child
  // runs its program in that cgroup. clone3 and clone3-cow create it there
  // (CLONE_INTO_CGROUP, Linux 5.7); fork, vfork and clone have the child write
  // "0" to the directory's cgroup.procs before anything else, the way
  // supervisors did before 5.7. posix_spawn cannot (InvalidArgument).
  int cgroup_fd = -1;
};

// For tests of close_other_fds' fallbacks, which a kernel with
// CLOSE_RANGE_CLOEXEC never takes: kProcWalk acts as if close_range were
// missing (the /proc/self/fd walk), kEveryDescriptor as if /proc were missing
// too (a close of each descriptor up to RLIMIT_NOFILE). Not thread-safe
// against a concurrent Spawn.
enum class CloseOthersWay { kFastest, kProcWalk, kEveryDescriptor };
void SetCloseOthersWayForTesting(CloseOthersWay way);

// poll(2)'s timeout for `nanos` from now: rounded up to whole milliseconds,
// capped at INT_MAX (about 24 days), 0 if the time has passed. A plain cast of
// a long Duration to int wraps, and a wrapped timeout spins.
int PollTimeoutMs(int64_t nanos);

// Starts `spec` by `method`. Returns once the child has exec'd (all methods
// report an exec failure as an error, having reaped the failed child): a
// missing program is NotFound, a non-executable one PermissionDenied, a
// missing working directory NotFound naming it. Fork and clone3-cow with
// ExecErrors::kAtWait return once the child exists, and Wait reports these.
absl::StatusOr<Child> Spawn(SpawnMethod method, const ExecSpec& spec,
                            const SpawnOptions& options = {});

}  // namespace spawnlab

#endif  // SPAWNLAB_LIB_SPAWN_H_
