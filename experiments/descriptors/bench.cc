// bench.cc: what a parent's open descriptors cost a spawn, and what closing
// them in the child costs, the ways runtimes do it.
//
//   bazel run //experiments/descriptors:bench [-- --quick]
//
// Rows: spawn/method:M/fds:N, close/way:W/limit:L, command/close-others:C/fds:N
// and inherit/method:M/cloexec:C (each until:exit). What each row does, in
// full: README.md, "Rows and method".

#include "bench/bench.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "experiments/descriptors/close_fds.h"
#include "bench/bench_spawn.h"
#include "lib/clock.h"
#include "lib/command.h"
#include "lib/probes.h"
#include "lib/runfiles.h"
#include "lib/spawn.h"
#include "bench/timed_spawn.h"
#include "lib/unique_fd.h"

namespace spawnlab {
namespace {

// Descriptors open in this process now.
int64_t OpenDescriptors() {
  std::error_code ec;
  int64_t n = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/self/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    ++n;
  }
  return n - 1;  // the iterator's own
}

// RLIMIT_NOFILE at `soft` (raising the hard limit too if it must, which needs
// CAP_SYS_RESOURCE) for the life of the object; the old limits come back after.
class NofileLimit {
 public:
  static absl::StatusOr<NofileLimit> Set(rlim_t soft) {
    struct rlimit old;
    if (getrlimit(RLIMIT_NOFILE, &old) != 0) return absl::ErrnoToStatus(errno, "getrlimit");
    struct rlimit want = {soft, old.rlim_max >= soft ? old.rlim_max : soft};
    if (setrlimit(RLIMIT_NOFILE, &want) != 0) {
      return absl::ErrnoToStatus(
          errno,
          absl::StrCat("setrlimit(RLIMIT_NOFILE, ", soft, "): the hard limit is ", old.rlim_max,
                       " and raising it needs CAP_SYS_RESOURCE and ", "fs.nr_open >= ", soft));
    }
    return NofileLimit(old);
  }
  NofileLimit(NofileLimit&& o) noexcept : old_(o.old_), armed_(o.armed_) { o.armed_ = false; }
  NofileLimit& operator=(NofileLimit&&) = delete;
  ~NofileLimit() {
    if (armed_) setrlimit(RLIMIT_NOFILE, &old_);
  }

 private:
  explicit NofileLimit(struct rlimit old) : old_(old) {}
  struct rlimit old_;
  bool armed_ = true;
};

// `n` dups of /dev/null, closed when this goes.
class Ballast {
 public:
  static absl::StatusOr<Ballast> Open(int n, bool cloexec) {
    Ballast b;
    for (int i = 0; i < n; ++i) {
      int fd = open("/dev/null", O_RDONLY | (cloexec ? O_CLOEXEC : 0));
      if (fd < 0) {
        return absl::ErrnoToStatus(errno, absl::StrCat("opening descriptor ", i + 1, " of ", n));
      }
      b.fds_.push_back(fd);
    }
    return b;
  }
  Ballast() = default;
  Ballast(Ballast&& o) noexcept : fds_(std::move(o.fds_)) { o.fds_.clear(); }
  Ballast& operator=(Ballast&&) = delete;
  ~Ballast() {
    for (int fd : fds_) close(fd);
  }

 private:
  std::vector<int> fds_;
};

void BM_Spawn(benchmark::State& state, SpawnMethod method, int fds, std::string child) {
  if (method == SpawnMethod::kClone3) {
    if (absl::Status s = ProbeClone3(); !s.ok()) return SkipRow(state, s);
  }
  // Room for the ballast and the bench's own descriptors.
  absl::StatusOr<NofileLimit> limit = NofileLimit::Set(static_cast<rlim_t>(fds) + 1024);
  if (!limit.ok()) return SkipRow(state, limit.status());
  absl::StatusOr<Ballast> ballast = Ballast::Open(fds, /*cloexec=*/true);
  if (!ballast.ok()) return FailRow(state, ballast.status());
  absl::StatusOr<TimedSpawner> spawner = TimedSpawner::Create(child);
  if (!spawner.ok()) return FailRow(state, spawner.status());
  SpawnOptions options;
  options.want_pidfd = false;
  TimeSpawns(state, *spawner, method, /*until_start=*/false, options);
  state.counters["parent_fds"] = static_cast<double>(OpenDescriptors());
}

// vfork, close by `way`, exec `child`; to reaped, in ns. The child's exit
// status says whether the exec happened (127: it did not).
absl::StatusOr<int64_t> SpawnClosing(Way way, int limit, const ExecSpec& spec) {
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  pid_t pid = vfork();
  if (pid == 0) {
    CloseInChild(way, limit);
    execve(spec.path(), spec.argv(), spec.envp());
    _exit(127);
  }
  if (pid < 0) return absl::ErrnoToStatus(errno, "vfork");
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return absl::ErrnoToStatus(errno, "waitpid");
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return absl::InternalError(
        absl::StrCat(spec.path(), ": ended with status ", status, " (127: the exec failed)"));
  }
  return (t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec);
}

// The library's Command (lib/command.h), with or without CloseOtherDescriptors.
void BM_Command(benchmark::State& state, bool close_others, int fds, std::string child) {
  absl::StatusOr<NofileLimit> limit = NofileLimit::Set(static_cast<rlim_t>(fds) + 1024);
  if (!limit.ok()) return SkipRow(state, limit.status());
  absl::StatusOr<Ballast> ballast = Ballast::Open(fds, /*cloexec=*/true);
  if (!ballast.ok()) return FailRow(state, ballast.status());
  Command command = Command(child).Arg("-");
  if (close_others) command.CloseOtherDescriptors();
  absl::StatusOr<CommandResult> warm = command.Run();
  if (!warm.ok()) return FailRow(state, warm.status());
  for (auto _ : state) {
    const int64_t t0 = MonotonicNanos();
    absl::StatusOr<CommandResult> r = command.Run();
    const int64_t t1 = MonotonicNanos();
    if (!r.ok() || !r->status.success()) {
      FailRow(state, r.ok() ? absl::InternalError(absl::StrCat(child, ": ", r->status.ToString()))
                            : r.status());
      break;
    }
    state.SetIterationTime(static_cast<double>(t1 - t0) * 1e-9);
  }
  state.counters["parent_fds"] = static_cast<double>(OpenDescriptors());
}

void BM_Close(benchmark::State& state, Way way, int limit, std::string child, bool quick) {
  if (quick && way == Way::kLoop && limit > 65536) {
    // A million close() calls per spawn, several spawns: seconds on a host,
    // minutes under User-Mode Linux, and a smoke run learns nothing from them.
    return SkipRow(state, absl::FailedPreconditionError(
                              "--quick leaves out the loop to a limit of a million descriptors "
                              "(a full run measures it)"));
  }
  if (way == Way::kCloseRange) {
    if (absl::Status s = ProbeCloseRange(); !s.ok()) return SkipRow(state, s);
  }
  if (way == Way::kCloexec) {
    if (absl::Status s = ProbeCloseRangeCloexec(); !s.ok()) return SkipRow(state, s);
  }
  absl::StatusOr<NofileLimit> nofile = NofileLimit::Set(static_cast<rlim_t>(limit));
  if (!nofile.ok()) return SkipRow(state, nofile.status());
  absl::StatusOr<Ballast> ballast = Ballast::Open(100, /*cloexec=*/false);
  if (!ballast.ok()) return FailRow(state, ballast.status());
  const ExecSpec spec(child, {child, "-"});  // "-": no clock to report
  absl::StatusOr<int64_t> warm = SpawnClosing(way, limit, spec);
  if (!warm.ok()) return FailRow(state, warm.status());
  for (auto _ : state) {
    absl::StatusOr<int64_t> ns = SpawnClosing(way, limit, spec);
    if (!ns.ok()) {
      FailRow(state, ns.status());
      break;
    }
    state.SetIterationTime(static_cast<double>(*ns) * 1e-9);
  }
  state.counters["parent_fds"] = static_cast<double>(OpenDescriptors());
  state.counters["limit"] = limit;
}

// Whether the child of `method` still holds a descriptor opened with or
// without O_CLOEXEC: it writes 8 bytes to it if it does.
void BM_Inherit(benchmark::State& state, SpawnMethod method, bool cloexec, std::string child) {
  if (method == SpawnMethod::kClone3) {
    if (absl::Status s = ProbeClone3(); !s.ok()) return SkipRow(state, s);
  }
  int p[2];
  if (pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0)
    return FailRow(state, absl::ErrnoToStatus(errno, "pipe2"));
  UniqueFd read_end(p[0]), pipe_write(p[1]);
  // The write end again, above stdio, with or without O_CLOEXEC.
  UniqueFd write_end(fcntl(pipe_write.get(), cloexec ? F_DUPFD_CLOEXEC : F_DUPFD, 10));
  if (write_end.get() < 0) return FailRow(state, absl::ErrnoToStatus(errno, "fcntl(F_DUPFD)"));
  const ExecSpec spec(child, {child, std::to_string(write_end.get())});
  SpawnOptions options;
  options.want_pidfd = false;
  int64_t spawns = 0, arrived = 0;
  for (auto _ : state) {
    const int64_t t0 = MonotonicNanos();
    absl::StatusOr<Child> c = Spawn(method, spec, options);
    absl::StatusOr<ExitStatus> status = c.ok() ? c->Wait() : c.status();
    const int64_t t1 = MonotonicNanos();
    if (!status.ok() || !status->success()) {
      FailRow(state, status.ok()
                         ? absl::InternalError(absl::StrCat(child, ": ", status->ToString()))
                         : status.status());
      break;
    }
    state.SetIterationTime(static_cast<double>(t1 - t0) * 1e-9);
    int64_t ns;
    ++spawns;
    if (read(read_end.get(), &ns, sizeof(ns)) == sizeof(ns)) ++arrived;
  }
  if (spawns > 0) state.counters["inherited"] = static_cast<double>(arrived) / spawns;
}

// Called once per round (BenchDefaults::rounds): every round registers
// every row once, in its shuffled order.
void Register(const BenchOptions& options) {
  const std::string child = RunfileOrExit("lib/children/minimal_child");
  std::vector<RoundRow> rows;
  auto add = [&rows](std::string name, auto fn, auto... args) {
    rows.push_back(
        {std::move(name), [fn, args...](benchmark::State& state) { fn(state, args...); }});
  };
  for (SpawnMethod method :
       {SpawnMethod::kFork, SpawnMethod::kVfork, SpawnMethod::kClone3, SpawnMethod::kPosixSpawn}) {
    for (int fds : {10, 1000, 10000, 50000}) {
      add(absl::StrCat("spawn/method:", SpawnMethodName(method), "/fds:", fds, "/until:exit"),
          BM_Spawn, method, fds, child);
    }
  }
  for (bool close_others : {false, true}) {
    for (int fds : {10, 1000, 10000, 50000}) {
      add(absl::StrCat("command/close-others:", close_others ? "yes" : "no", "/fds:", fds,
                       "/until:exit"),
          BM_Command, close_others, fds, child);
    }
  }
  for (SpawnMethod method : {SpawnMethod::kFork, SpawnMethod::kVfork, SpawnMethod::kClone,
                             SpawnMethod::kClone3, SpawnMethod::kPosixSpawn}) {
    for (bool cloexec : {false, true}) {
      add(absl::StrCat("inherit/method:", SpawnMethodName(method),
                       "/cloexec:", cloexec ? "yes" : "no", "/until:exit"),
          BM_Inherit, method, cloexec, child);
    }
  }
  for (Way way : {Way::kNone, Way::kCloseRange, Way::kCloexec, Way::kProcWalk, Way::kLoop}) {
    for (int limit : {1024, 16384, 1048576}) {
      add(absl::StrCat("close/way:", WayName(way), "/limit:", limit, "/until:exit"), BM_Close,
          way, limit, child, options.quick);
    }
  }
  RegisterRound(options, std::move(rows));
}

// The bench's declaration: its rounds, canary and key ratios (bench.h: BenchDefaults).
BenchDefaults Declare() {
  BenchDefaults defaults;
  // In rounds: each measures every row once, in a shuffled order (each
  // repetition sets its descriptors up afresh), so that a row's repetition k
  // and its baseline's ran in the same round (README, "Reproducibility").
  defaults.rounds = 25;
  // Drift: this row, once per round (README, "Noisy runs").
  defaults.canary_row = "spawn/method:vfork/fds:10/until:exit";
  // Key ratios, each row over its baseline in the same round (README, "Reproducibility").
  defaults.ratio_baselines = {{"method", "vfork"}, {"close-others", "no"}, {"way", "none"}};
  return defaults;
}

}  // namespace
}  // namespace spawnlab

SPAWNLAB_BENCH_MAIN("descriptors", spawnlab::Register, spawnlab::Declare)
