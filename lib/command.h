// command.h: run a program the convenient way, at the cost of the raw primitive.
//
// In the spirit of Go's exec.Command and Python's subprocess (see Command for
// what it offers and how the child starts), on the fastest spawn lib/spawn
// has: clone3 with CLONE_VM | CLONE_VFORK | CLONE_CLEAR_SIGHAND, or vfork with
// the handlers reset by hand before Linux 5.5.
//
//   absl::StatusOr<spawnlab::CommandResult> r =
//       spawnlab::Command("git").Args({"rev-parse", "HEAD"})
//           .Stdout(spawnlab::Stdio::Pipe()).Timeout(absl::Seconds(5)).Run();
//   if (!r.ok()) return r.status();  // not found, timed out, ...
//   if (!r->status.success()) ...    // it ran, and failed
//
//   absl::StatusOr<spawnlab::Process> p = spawnlab::Command("/bin/sleep").Arg("1").Start();
//   absl::StatusOr<spawnlab::CommandResult> done = p->Wait();  // start now, wait later

#ifndef SPAWNLAB_LIB_COMMAND_H_
#define SPAWNLAB_LIB_COMMAND_H_

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "lib/spawn.h"
#include "lib/unique_fd.h"

namespace spawnlab {

// Where one of the child's standard streams goes.
class Stdio {
 public:
  static Stdio Inherit() { return Stdio(Kind::kInherit); }
  static Stdio Null() { return Stdio(Kind::kNull); }
  // A pipe to the parent: Run() captures stdout/stderr and feeds stdin from
  // Command::Input.
  static Stdio Pipe() { return Stdio(Kind::kPipe); }
  // A file: read for stdin; created or truncated for stdout and stderr.
  static Stdio File(std::string path) { return Stdio(Kind::kFile, std::move(path)); }
  // Stdout and stderr only: created or appended to.
  static Stdio AppendFile(std::string path) { return Stdio(Kind::kAppend, std::move(path)); }

  enum class Kind { kInherit, kNull, kPipe, kFile, kAppend };
  Kind kind() const { return kind_; }
  const std::string& path() const { return path_; }

 private:
  explicit Stdio(Kind kind, std::string path = "") : kind_(kind), path_(std::move(path)) {}
  Kind kind_;
  std::string path_;
};

struct CommandResult {
  ExitStatus status{0};
  std::string out;  // stdout, if it was a pipe
  std::string err;  // stderr, if it was a pipe
};

// A started command. Move-only; destroying it kills and reaps a child that
// is still running, and closes the pipes.
class Process {
 public:
  pid_t pid() const { return child_.pid(); }
  // The parent's ends of the pipes (-1 where the stream is not a pipe). Wait()
  // uses them: read or write them yourself only if you do not call Wait().
  int stdin_fd() const { return stdin_.get(); }
  int stdout_fd() const { return stdout_.get(); }
  int stderr_fd() const { return stderr_.get(); }

  // Writes the command's input, collects piped output until the child closes
  // it, and reaps the child. If the command has a timeout and it passes, the
  // child is killed (SIGKILL; its whole process group with
  // Command::NewProcessGroup), reaped, and DeadlineExceeded returned. Input
  // the child does not read (it closed its stdin, or exited) is dropped: no
  // SIGPIPE reaches the caller.
  absl::StatusOr<CommandResult> Wait();

 private:
  friend class Command;
  Process(Child child, UniqueFd in, UniqueFd out, UniqueFd err, std::string input,
          std::optional<int64_t> deadline_ns, absl::Duration timeout, bool group)
      : child_(std::move(child)),
        stdin_(std::move(in)),
        stdout_(std::move(out)),
        stderr_(std::move(err)),
        input_(std::move(input)),
        deadline_ns_(deadline_ns),
        timeout_(timeout),
        group_(group) {}

  Child child_;
  UniqueFd stdin_, stdout_, stderr_;
  std::string input_;
  std::optional<int64_t> deadline_ns_;  // MonotonicNanos(); none: no timeout
  absl::Duration timeout_;
  bool group_;  // the child leads a process group of its own
};

// A program and its arguments; the environment inherited, added to or
// replaced; a working directory; stdin, stdout and stderr each inherited,
// /dev/null, a pipe or a file; output captured; a timeout that kills the
// child; the exit status as a value; errors as Status (NotFound,
// PermissionDenied, DeadlineExceeded, InvalidArgument for a NUL inside a path,
// argument or variable). The child starts as a fresh program expects, as
// Python's restore_signals has it: no handler of the caller's, SIGPIPE and
// SIGXFSZ at their default action, no signal blocked; a signal the caller's
// own parent chose to ignore (nohup's SIGHUP) stays ignored. Optionally it
// leads its own process group, so that a timeout kills all it started. Every
// descriptor it opens is O_CLOEXEC; a Process still running when it is
// destroyed is killed and reaped.
class Command {
 public:
  // `program` is a path, or a name looked up in $PATH when it has no '/'.
  explicit Command(std::string program) : program_(std::move(program)) {}

  Command& Arg(std::string arg);
  Command& Args(std::vector<std::string> args);
  // Sets KEY=value in the child's environment (adding or overriding).
  Command& Env(std::string key, std::string value);
  // Removes KEY from the child's environment.
  Command& UnsetEnv(std::string key);
  // Starts the child's environment empty instead of inherited.
  Command& ClearEnv();
  // The child's working directory.
  Command& Dir(std::string dir);
  Command& Stdin(Stdio s);
  Command& Stdout(Stdio s);
  Command& Stderr(Stdio s);
  // Data for the child's stdin (makes stdin a pipe).
  Command& Input(std::string data);
  // Kill the child if it has not ended this long after Start() (measured on
  // the monotonic clock; absl::InfiniteDuration() means no timeout).
  Command& Timeout(absl::Duration timeout);
  // The child leads a new process group (setpgid(0, 0), as Go's
  // SysProcAttr.Setpgid): a timeout then kills the group, the child's own
  // children included, not just the child.
  Command& NewProcessGroup();
  // Only stdin, stdout and stderr reach the child: every other descriptor is
  // closed in it, inheritable or not (Python's close_fds=True; see
  // SpawnOptions::close_other_fds for how).
  Command& CloseOtherDescriptors();

  // Starts the child; errors: NotFound (no such program or directory),
  // PermissionDenied (not executable), InvalidArgument (a bad Stdio; a NUL
  // in the program, an argument, an environment key or value, the directory
  // or a file path; an environment key that is empty or holds '=').
  //
  // What Start prepares for the exec (the checks, the path, argv) is kept and
  // reused by the next Start until a setter changes the Command, as a raw
  // spawn loop reuses one ExecSpec: a loop of Runs allocates nothing for it.
  // Only what depends on the Command alone is kept: a program found through
  // $PATH is looked up, and an environment changed on top of the caller's is
  // built, at every Start; an inherited environment is always the caller's
  // at that moment.
  absl::StatusOr<Process> Start() const;
  // Start() then Wait().
  absl::StatusOr<CommandResult> Run() const;

 private:
  // The ExecSpec a Start built, for the next Start (see Start). A copy of a
  // Command starts without one; a setter that changes what the spec or the
  // checks depend on clears it.
  class PreparedSpec {
   public:
    PreparedSpec() = default;
    PreparedSpec(const PreparedSpec&) {}
    PreparedSpec& operator=(const PreparedSpec&) {
      Clear();
      return *this;
    }
    std::optional<ExecSpec> Get() const;
    void Set(ExecSpec spec) const;
    void Clear();

   private:
    // std::mutex, not absl::Mutex: Debian's Abseil is built with its deadlock
    // detection on, which runs on every lock, here on the spawn path.
    mutable std::mutex mu_;
    mutable std::optional<ExecSpec> spec_;  // guarded by mu_
  };

  // Checks the Command and builds what the child execs; `keep` says whether
  // the result depends on the Command alone (it may be reused).
  absl::StatusOr<ExecSpec> BuildSpec(bool* keep) const;
  Command& Changed() {
    prepared_.Clear();
    return *this;
  }

  std::string program_;
  std::vector<std::string> args_;
  std::vector<std::pair<std::string, std::optional<std::string>>> env_changes_;
  bool clear_env_ = false;
  std::string dir_;
  Stdio stdin_ = Stdio::Inherit(), stdout_ = Stdio::Inherit(), stderr_ = Stdio::Inherit();
  std::optional<std::string> input_;
  std::optional<absl::Duration> timeout_;
  bool new_process_group_ = false;
  bool close_other_fds_ = false;
  PreparedSpec prepared_;
};

// The spawn method Command uses on this kernel: clone3 where CLONE_CLEAR_SIGHAND
// works, else vfork.
SpawnMethod CommandSpawnMethod();

// For tests of the path a kernel before 5.5 takes (vfork, the handlers reset
// by hand in the child), which a newer kernel never does: forces `method`
// (kClone3 or kVfork), or with nullopt returns to the probe. Not thread-safe
// against a concurrent Start.
void SetCommandSpawnMethodForTesting(std::optional<SpawnMethod> method);

}  // namespace spawnlab

#endif  // SPAWNLAB_LIB_COMMAND_H_
