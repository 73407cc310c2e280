// command.cc: see command.h.

#include "lib/command.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "lib/clock.h"
#include "lib/probes.h"

extern char** environ;

namespace spawnlab {
namespace {

// The program's path: as given if it has a '/', else the first executable
// match in $PATH (as execvp does), else NotFound.
// `env` is the child's environment, or nullptr for the parent's own.
absl::StatusOr<std::string> Resolve(const std::string& program,
                                    const std::vector<std::string>* env) {
  if (program.empty()) return absl::InvalidArgumentError("empty program name");
  if (absl::StrContains(program, '/')) return program;
  std::string path_var;
  bool found_path = false;
  if (env == nullptr) {
    if (const char* p = getenv("PATH")) {
      path_var = p;
      found_path = true;
    }
  } else {
    for (const std::string& kv : *env) {
      if (absl::StartsWith(kv, "PATH=")) {
        path_var = kv.substr(5);
        found_path = true;
      }
    }
  }
  if (!found_path) path_var = "/usr/local/bin:/usr/bin:/bin";
  bool denied = false;
  for (absl::string_view dir : absl::StrSplit(path_var, ':')) {
    std::string candidate = absl::StrCat(dir.empty() ? "." : dir, "/", program);
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    if (errno == EACCES && access(candidate.c_str(), F_OK) == 0) denied = true;
  }
  if (denied) {
    return absl::PermissionDeniedError(absl::StrCat(program, ": found in PATH but not executable"));
  }
  return absl::NotFoundError(absl::StrCat(program, ": not found in PATH (", path_var, ")"));
}

// Opens what `s` names for the child's descriptor `target` (0, 1 or 2).
// Returns the descriptor to map onto `target` (or -1 to inherit), and in
// *parent_end the parent's end of a pipe.
absl::StatusOr<UniqueFd> OpenStdio(const Stdio& s, int target, UniqueFd* parent_end) {
  const bool input = target == 0;
  switch (s.kind()) {
    case Stdio::Kind::kInherit:
      return UniqueFd();
    case Stdio::Kind::kNull: {
      UniqueFd fd(open("/dev/null", (input ? O_RDONLY : O_WRONLY) | O_CLOEXEC));
      if (!fd.valid()) return absl::ErrnoToStatus(errno, "open /dev/null");
      return fd;
    }
    case Stdio::Kind::kPipe: {
      int fds[2];
      if (pipe2(fds, O_CLOEXEC) != 0) return absl::ErrnoToStatus(errno, "pipe2");
      UniqueFd r(fds[0]), w(fds[1]);
      *parent_end = input ? std::move(w) : std::move(r);
      // The parent's end is non-blocking: Process::Wait multiplexes them.
      fcntl(parent_end->get(), F_SETFL, O_NONBLOCK);
      return input ? std::move(r) : std::move(w);
    }
    case Stdio::Kind::kFile:
    case Stdio::Kind::kAppend: {
      if (input && s.kind() == Stdio::Kind::kAppend) {
        return absl::InvalidArgumentError("stdin cannot be appended to");
      }
      int flags =
          input ? O_RDONLY
                : O_WRONLY | O_CREAT | (s.kind() == Stdio::Kind::kAppend ? O_APPEND : O_TRUNC);
      UniqueFd fd(open(s.path().c_str(), flags | O_CLOEXEC, 0644));
      if (!fd.valid()) {
        return absl::ErrnoToStatus(errno, absl::StrCat("open ", s.path(), " for fd ", target));
      }
      return fd;
    }
  }
  return absl::InvalidArgumentError("unknown Stdio");
}

}  // namespace

namespace {
// Set by SetCommandSpawnMethodForTesting; otherwise the probe decides.
std::optional<SpawnMethod> forced_method;
}  // namespace

SpawnMethod CommandSpawnMethod() {
  if (forced_method.has_value()) return *forced_method;
  // Probed once per process: a clone3 that is tried and refused.
  static const SpawnMethod method =
      ProbeCloneClearSighand().ok() ? SpawnMethod::kClone3 : SpawnMethod::kVfork;
  return method;
}

void SetCommandSpawnMethodForTesting(std::optional<SpawnMethod> method) { forced_method = method; }

Command& Command::Arg(std::string arg) {
  args_.push_back(std::move(arg));
  return Changed();
}
Command& Command::Args(std::vector<std::string> args) {
  for (std::string& a : args) args_.push_back(std::move(a));
  return Changed();
}
Command& Command::Env(std::string key, std::string value) {
  env_changes_.emplace_back(std::move(key), std::move(value));
  return Changed();
}
Command& Command::UnsetEnv(std::string key) {
  env_changes_.emplace_back(std::move(key), std::nullopt);
  return Changed();
}
Command& Command::ClearEnv() {
  clear_env_ = true;
  env_changes_.clear();
  return Changed();
}
Command& Command::Dir(std::string dir) {
  dir_ = std::move(dir);
  return Changed();
}
Command& Command::Stdin(Stdio s) {
  stdin_ = std::move(s);
  input_.reset();
  return Changed();
}
Command& Command::Stdout(Stdio s) {
  stdout_ = std::move(s);
  return Changed();
}
Command& Command::Stderr(Stdio s) {
  stderr_ = std::move(s);
  return Changed();
}
Command& Command::Input(std::string data) {
  stdin_ = Stdio::Pipe();
  input_ = std::move(data);
  return Changed();
}
Command& Command::Timeout(absl::Duration timeout) {
  timeout_ = timeout;
  return *this;
}
Command& Command::NewProcessGroup() {
  new_process_group_ = true;
  return *this;
}
Command& Command::CloseOtherDescriptors() {
  close_other_fds_ = true;
  return *this;
}

namespace {

// A C string ends at its first NUL: one inside `s` would silently cut what
// the child sees (a path, an argument, a variable).
absl::Status NoNul(absl::string_view what, absl::string_view s) {
  if (s.find('\0') == absl::string_view::npos) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(what, " holds a NUL byte: \"", absl::CHexEscape(s), "\""));
}

}  // namespace

std::optional<ExecSpec> Command::PreparedSpec::Get() const {
  std::lock_guard<std::mutex> lock(mu_);
  return spec_;
}

void Command::PreparedSpec::Set(ExecSpec spec) const {
  std::lock_guard<std::mutex> lock(mu_);
  spec_ = std::move(spec);
}

void Command::PreparedSpec::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  spec_.reset();
}

absl::StatusOr<ExecSpec> Command::BuildSpec(bool* keep) const {
  {
    absl::Status s = NoNul("the program", program_);
    for (const std::string& a : args_) {
      if (s.ok()) s = NoNul("an argument", a);
    }
    for (const auto& [key, value] : env_changes_) {
      if (s.ok()) s = NoNul("an environment key", key);
      if (s.ok() && value.has_value()) s = NoNul("an environment value", *value);
      if (s.ok() && (key.empty() || absl::StrContains(key, '='))) {
        s = absl::InvalidArgumentError(
            absl::StrCat("environment key \"", key, "\" is empty or holds '='"));
      }
    }
    if (s.ok()) s = NoNul("the directory", dir_);
    for (const Stdio* io : {&stdin_, &stdout_, &stderr_}) {
      if (s.ok()) s = NoNul("a file path", io->path());
    }
    if (!s.ok()) return s;
  }
  // The environment: the parent's as it is (passed through untouched, no
  // copy) unless it is cleared or changed; then a copy with the changes.
  const bool own_env = clear_env_ || !env_changes_.empty();
  // Nothing from outside the Command: no PATH search, no copy of environ.
  *keep = absl::StrContains(program_, '/') && (clear_env_ || env_changes_.empty());
  std::vector<std::string> env;
  if (own_env && !clear_env_) {
    for (char** e = environ; e != nullptr && *e != nullptr; ++e) env.emplace_back(*e);
  }
  for (const auto& [key, value] : env_changes_) {
    const std::string prefix = key + "=";
    env.erase(std::remove_if(env.begin(), env.end(),
                             [&](const std::string& kv) { return absl::StartsWith(kv, prefix); }),
              env.end());
    if (value.has_value()) env.push_back(prefix + *value);
  }
  absl::StatusOr<std::string> path = Resolve(program_, own_env ? &env : nullptr);
  if (!path.ok()) return path.status();
  std::vector<std::string> argv = {program_};
  argv.insert(argv.end(), args_.begin(), args_.end());
  return own_env ? ExecSpec(*path, std::move(argv), std::move(env))
                 : ExecSpec(*path, std::move(argv));
}

absl::StatusOr<Process> Command::Start() const {
  std::optional<ExecSpec> prepared = prepared_.Get();
  if (!prepared.has_value()) {
    bool keep = false;
    absl::StatusOr<ExecSpec> built = BuildSpec(&keep);
    if (!built.ok()) return built.status();
    prepared = *std::move(built);
    if (keep) prepared_.Set(*prepared);
  }
  const ExecSpec& spec = *prepared;

  SpawnOptions options;
  options.working_dir = dir_;
  options.restore_signals = true;
  options.new_process_group = new_process_group_;
  options.close_other_fds = close_other_fds_;
  // Wait() polls the pidfd only when it has pipes to watch.
  options.want_pidfd = stdin_.kind() == Stdio::Kind::kPipe ||
                       stdout_.kind() == Stdio::Kind::kPipe ||
                       stderr_.kind() == Stdio::Kind::kPipe || input_.has_value();
  UniqueFd parent_ends[3];
  UniqueFd child_ends[3];
  const Stdio* streams[3] = {&stdin_, &stdout_, &stderr_};
  for (int target = 0; target < 3; ++target) {
    absl::StatusOr<UniqueFd> fd = OpenStdio(*streams[target], target, &parent_ends[target]);
    if (!fd.ok()) return fd.status();
    child_ends[target] = *std::move(fd);
  }
  // A child end that happens to be 0, 1 or 2 could be overwritten by an
  // earlier dup2: move every child end above 2 first (still O_CLOEXEC).
  for (UniqueFd& fd : child_ends) {
    if (fd.valid() && fd.get() < 3) {
      UniqueFd moved(fcntl(fd.get(), F_DUPFD_CLOEXEC, 3));
      if (!moved.valid()) return absl::ErrnoToStatus(errno, "F_DUPFD_CLOEXEC");
      fd = std::move(moved);
    }
  }
  for (int target = 0; target < 3; ++target) {
    if (child_ends[target].valid()) options.fd_map.push_back({child_ends[target].get(), target});
  }
  // A monotonic deadline; an infinite (or absurdly long) timeout is none.
  std::optional<int64_t> deadline;
  if (timeout_.has_value() && *timeout_ < absl::Hours(24 * 365)) {
    deadline = MonotonicNanos() + absl::ToInt64Nanoseconds(*timeout_);
  }
  absl::StatusOr<Child> child = Spawn(CommandSpawnMethod(), spec, options);
  if (!child.ok()) return child.status();
  return Process(*std::move(child), std::move(parent_ends[0]), std::move(parent_ends[1]),
                 std::move(parent_ends[2]), input_.value_or(""), deadline,
                 timeout_.value_or(absl::ZeroDuration()), new_process_group_);
}

absl::StatusOr<CommandResult> Command::Run() const {
  absl::StatusOr<Process> p = Start();
  if (!p.ok()) return p.status();
  return p->Wait();
}

namespace {

// Reads what `fd` has now into `out`; false once it is at EOF or broken.
bool Drain(int fd, std::string* out) {
  char buf[16384];
  while (true) {
    ssize_t got = read(fd, buf, sizeof(buf));
    if (got > 0) {
      out->append(buf, static_cast<size_t>(got));
      continue;
    }
    if (got < 0 && errno == EINTR) continue;
    return got < 0 && errno == EAGAIN;
  }
}

}  // namespace

absl::StatusOr<CommandResult> Process::Wait() {
  CommandResult result;
  size_t written = 0;
  if (stdin_.valid() && input_.empty()) stdin_.reset();  // nothing to send: EOF now
  // The pidfd tells poll() when the child ends, so that a grandchild that
  // inherited the output pipe cannot keep Wait() waiting: clone3 gave one;
  // otherwise open one, but only if there is a pipe to watch.
  UniqueFd opened;
  if (child_.pidfd() < 0 && (stdin_.valid() || stdout_.valid() || stderr_.valid())) {
    opened.reset(static_cast<int>(syscall(SYS_pidfd_open, child_.pid(), 0)));
  }
  const int pidfd = child_.pidfd() >= 0 ? child_.pidfd() : opened.get();
  bool exited = false;
  while (!exited && (stdin_.valid() || stdout_.valid() || stderr_.valid())) {
    struct pollfd fds[4] = {{stdin_.get(), POLLOUT, 0},
                            {stdout_.get(), POLLIN, 0},
                            {stderr_.get(), POLLIN, 0},
                            {pidfd, POLLIN, 0}};  // poll skips the -1 entries
    int timeout_ms = -1;
    if (deadline_ns_.has_value()) {
      const int64_t left = *deadline_ns_ - MonotonicNanos();
      if (left <= 0) break;
      timeout_ms = PollTimeoutMs(left);
    }
    int r = poll(fds, 4, timeout_ms);
    if (r < 0) {
      if (errno == EINTR) continue;
      return absl::ErrnoToStatus(errno, "poll on the child's pipes");
    }
    if (r == 0) break;  // the deadline
    if (fds[0].revents != 0) {
      // The child may have closed its stdin or exited: EPIPE, never a
      // SIGPIPE that would end the caller.
      ssize_t w =
          WriteWithoutSigpipe(stdin_.get(), input_.data() + written, input_.size() - written);
      if (w > 0) written += static_cast<size_t>(w);
      if ((w < 0 && errno != EAGAIN && errno != EINTR) || written == input_.size()) {
        stdin_.reset();  // all sent, or EPIPE: the child closed its stdin
      }
    }
    if (fds[1].revents != 0 && !Drain(stdout_.get(), &result.out)) stdout_.reset();
    if (fds[2].revents != 0 && !Drain(stderr_.get(), &result.err)) stderr_.reset();
    if (fds[3].revents != 0) {
      exited = true;  // take what is in the pipes now, and stop
      if (stdout_.valid()) Drain(stdout_.get(), &result.out);
      if (stderr_.valid()) Drain(stderr_.get(), &result.err);
    }
  }
  stdin_.reset();
  stdout_.reset();
  stderr_.reset();
  absl::StatusOr<ExitStatus> status = deadline_ns_.has_value()
                                          ? child_.WaitFor(absl::Nanoseconds(std::max<int64_t>(
                                                *deadline_ns_ - MonotonicNanos(), 0)))
                                          : child_.Wait();
  if (absl::IsDeadlineExceeded(status.status())) {
    // The group first: while the child is unreaped its pid, the group's id,
    // cannot be reused.
    if (group_) child_.KillGroup(SIGKILL).IgnoreError();
    child_.Kill(SIGKILL).IgnoreError();
    child_.Wait().IgnoreError();
    return absl::DeadlineExceededError(
        absl::StrCat("killed after the timeout of ", absl::FormatDuration(timeout_)));
  }
  if (!status.ok()) return status.status();
  result.status = *status;
  return result;
}

}  // namespace spawnlab
