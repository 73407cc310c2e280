// bench.cc: does a convenient command API have to cost more than the raw
// primitive? lib/command's Command against the primitives it could be built
// on, all starting the minimal child.
//
//   bazel run //experiments/command:bench [-- --quick]
//
// Its rows and how each is measured: README.md, "Rows and method".

#include "bench/bench.h"

#include <stdio.h>
#include <stdlib.h>

#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "bench/together.h"
#include "experiments/command/syscall_audit.h"
#include "lib/clock.h"
#include "lib/command.h"
#include "lib/runfiles.h"
#include "lib/spawn.h"

ABSL_FLAG(std::string, minimal_child, "", "Path of the minimal child (default: from runfiles).");

namespace spawnlab {
namespace {

std::string child_path;
// lmbench's kind of child (its hello): a C program linked against libc alone.
std::string c_child_path;

// Each API's system calls per spawn (syscall_audit.h), traced once, before
// the first process's first round: api -> calls per spawn.
std::map<std::string, SyscallCounts>* audits = new std::map<std::string, SyscallCounts>;

// The APIs whose `command/api:API/child:minimal/op:run` rows are measured
// together, in part order.
constexpr const char* kTogether[] = {"command", "spawn", "posix_spawn", "vfork", "clone"};

// Traces each API that has a `command/api:API/child:minimal/op:run` row and
// says what it found; where strace cannot run, the context says why.
void AuditSyscalls() {
  const std::string loop = RunfileOrExit("experiments/command/spawn_loop");
  for (const char* api : kTogether) {
    absl::StatusOr<SyscallCounts> per_spawn = SyscallsPerSpawn(loop, api, child_path, 100);
    if (!per_spawn.ok()) {
      benchmark::AddCustomContext("command.syscall_audit",
                                  absl::StrCat("not run: ", per_spawn.status().ToString()));
      fprintf(stderr, "system calls per spawn: not counted: %s\n",
              per_spawn.status().ToString().c_str());
      return;
    }
    (*audits)[api] = *per_spawn;
    fprintf(stderr, "system calls per spawn, %s: %s\n", api,
            absl::StrJoin(*per_spawn, ", ", absl::PairFormatter(" ")).c_str());
  }
  benchmark::AddCustomContext(
      "command.syscall_audit",
      "strace -f -c over spawn_loop, 100 spawns less none, once in the first process: the "
      "counters syscalls_per_spawn and sys_NAME of the op:run rows' first repetition");
}

// The audit's counters for `api`, on a row's repetition that carries them.
void AddAuditCounters(benchmark::State& state, const std::string& api) {
  auto it = audits->find(api);
  if (it == audits->end() || state.error_occurred()) return;
  double total = 0;
  for (const auto& [name, calls] : it->second) {
    state.counters[absl::StrCat("sys_", name)] = calls;
    total += calls;
  }
  state.counters["syscalls_per_spawn"] = total;
}

// The nanoseconds `op` (which returns a Status) took, or its error.
template <typename Op>
absl::StatusOr<int64_t> Timed(Op op) {
  const int64_t t0 = MonotonicNanos();
  absl::Status s = op();
  const int64_t t1 = MonotonicNanos();
  if (!s.ok()) return s;
  return t1 - t0;
}

// Times `op` per iteration, after one untimed; fails the row on error.
template <typename Op>
void TimeEach(benchmark::State& state, Op op) {
  if (absl::Status s = op(); !s.ok()) return FailRow(state, s);  // warm-up
  for (auto _ : state) {
    absl::StatusOr<int64_t> ns = Timed(op);
    if (!ns.ok()) return FailRow(state, ns.status());
    state.SetIterationTime(static_cast<double>(*ns) * 1e-9);
  }
}

absl::Status Succeeded(const absl::StatusOr<ExitStatus>& status) {
  if (!status.ok()) return status.status();
  if (!status->success()) return absl::InternalError(status->ToString());
  return absl::OkStatus();
}

absl::Status Succeeded(const absl::StatusOr<CommandResult>& result) {
  if (!result.ok()) return result.status();
  if (!result->status.success()) return absl::InternalError(result->status.ToString());
  return absl::OkStatus();
}

void BM_CommandCapture(benchmark::State& state) {
  Command cmd(child_path);
  cmd.Stdout(Stdio::Pipe());
  TimeEach(state, [&] { return Succeeded(cmd.Run()); });
}

void BM_RawRun(benchmark::State& state, SpawnMethod method, const std::string* path) {
  ExecSpec spec(*path, {*path});
  TimeEach(state, [&]() -> absl::Status {
    absl::StatusOr<Child> c = Spawn(method, spec);
    if (!c.ok()) return c.status();
    return Succeeded(c->Wait());
  });
}

// One start and wait of the minimal child by `api` (as spawn_loop's --api
// names them), timed: a part of the rows measured together.
std::function<absl::StatusOr<int64_t>()> TimedRun(const std::string& api) {
  if (api == "command") {
    return [cmd = Command(child_path)] { return Timed([&] { return Succeeded(cmd.Run()); }); };
  }
  SpawnMethod method = api == "posix_spawn" ? SpawnMethod::kPosixSpawn
                       : api == "clone"     ? SpawnMethod::kClone
                       : api == "vfork"     ? SpawnMethod::kVfork
                                            : CommandSpawnMethod();
  SpawnOptions options;
  if (api == "spawn") {  // what Command asks for a child with no pipes
    options.restore_signals = true;
    options.want_pidfd = false;
  }
  return [method, options, spec = ExecSpec(child_path, {child_path})] {
    return Timed([&]() -> absl::Status {
      absl::StatusOr<Child> c = Spawn(method, spec, options);
      if (!c.ok()) return c.status();
      return Succeeded(c->Wait());
    });
  };
}

// Start timed, wait untimed (or the other way round).
void BM_StartOrWait(benchmark::State& state, bool use_command, bool time_start) {
  ExecSpec spec(child_path, {child_path});
  Command cmd(child_path);
  for (auto _ : state) {
    int64_t t0 = MonotonicNanos();
    absl::Status done;
    if (use_command) {
      absl::StatusOr<Process> p = cmd.Start();
      if (!p.ok()) return FailRow(state, p.status());
      int64_t t1 = MonotonicNanos();
      if (!time_start) t0 = t1;
      done = Succeeded(p->Wait());
      if (!time_start) t1 = MonotonicNanos();
      if (!done.ok()) return FailRow(state, done);
      state.SetIterationTime(static_cast<double>(t1 - t0) * 1e-9);
    } else {
      absl::StatusOr<Child> c = Spawn(SpawnMethod::kPosixSpawn, spec);
      if (!c.ok()) return FailRow(state, c.status());
      int64_t t1 = MonotonicNanos();
      if (!time_start) t0 = t1;
      done = Succeeded(c->Wait());
      if (!time_start) t1 = MonotonicNanos();
      if (!done.ok()) return FailRow(state, done);
      state.SetIterationTime(static_cast<double>(t1 - t0) * 1e-9);
    }
  }
}

void BM_System(benchmark::State& state, const std::string* path) {
  TimeEach(state, [path]() -> absl::Status {
    int r = std::system(path->c_str());
    if (r != 0) return absl::InternalError(absl::StrCat("system() returned ", r));
    return absl::OkStatus();
  });
}

void BM_Popen(benchmark::State& state) {
  TimeEach(state, []() -> absl::Status {
    FILE* f = popen(child_path.c_str(), "re");
    if (f == nullptr) return absl::ErrnoToStatus(errno, "popen");
    int r = pclose(f);
    if (r != 0) return absl::InternalError(absl::StrCat("pclose() returned ", r));
    return absl::OkStatus();
  });
}

void BM_Build(benchmark::State& state) {
  for (auto _ : state) {
    Command cmd(child_path);
    cmd.Arg("-").Env("SPAWNLAB", "1").Timeout(absl::Seconds(1));
    benchmark::DoNotOptimize(cmd);
  }
}

// Called once per round (BenchDefaults::rounds): every round registers
// every row once, in its shuffled order.
void Register(const BenchOptions& options) {
  child_path = absl::GetFlag(FLAGS_minimal_child);
  if (child_path.empty()) child_path = RunfileOrExit("lib/children/minimal_child");
  if (c_child_path.empty()) c_child_path = RunfileOrExit("lib/children/dynamic_c_child");
  if (options.round == 0) {
    benchmark::AddCustomContext("command.spawn_method",
                                std::string(SpawnMethodName(CommandSpawnMethod())));
  }
  // The system call audit: once, and on this round's repetition of each row.
  const bool audited = options.round == 0 && options.shuffle_offset == 0;
  if (audited) AuditSyscalls();
  const std::string c = "/child:minimal";
  std::vector<RoundRow> rows;
  auto add = [&rows](const std::string& name, auto fn, auto... args) {
    rows.push_back({name, [fn, args...](benchmark::State& state) { fn(state, args...); }});
  };
  // The primitives' rows and Command's, measured together: their spawns
  // alternate, shuffled each cycle (bench/together.h), so that a burst of
  // the shared machine falls on all of them alike and the few percent
  // between Command and the primitives is paired spawn by spawn.
  auto together = std::make_shared<MeasuredTogether>([min_seconds = options.min_time] {
    std::vector<std::function<absl::StatusOr<int64_t>()>> parts;
    for (const char* api : kTogether) parts.push_back(TimedRun(api));
    return Alternate(parts, min_seconds);
  });
  for (size_t i = 0; i < std::size(kTogether); ++i) {
    const std::string api = kTogether[i];
    rows.push_back({"command/api:" + api + c + "/op:run",
                    [together, i, api, audited](benchmark::State& state) {
                      together->Report(state, i);
                      if (audited) AddAuditCounters(state, api);
                    },
                    Clock::kManual, [](benchmark::internal::Benchmark* b) { b->Iterations(1); }});
  }
  add("command/api:system" + c + "/op:run", BM_System, &child_path);
  // The shell against exec for lmbench's kind of child, as its lat_proc
  // times them (the ledger's P-2).
  add("command/api:posix_spawn/child:dynamic-c/op:run", BM_RawRun, SpawnMethod::kPosixSpawn,
      &c_child_path);
  add("command/api:system/child:dynamic-c/op:run", BM_System, &c_child_path);
  add("command/api:popen" + c + "/op:run", BM_Popen);
  add("command/api:command" + c + "/op:start", BM_StartOrWait, true, true);
  add("command/api:command" + c + "/op:wait", BM_StartOrWait, true, false);
  add("command/api:posix_spawn" + c + "/op:start", BM_StartOrWait, false, true);
  add("command/api:posix_spawn" + c + "/op:wait", BM_StartOrWait, false, false);
  add("command/api:command" + c + "/op:run-capture", BM_CommandCapture);
  rows.push_back({"command/api:command/op:build", BM_Build, Clock::kLibrary});
  RegisterRound(options, std::move(rows));
}

// The bench's declaration: its rounds, canary and key ratios (bench.h: BenchDefaults).
BenchDefaults Declare() {
  BenchDefaults defaults;
  // In rounds: each measures every row once, in a shuffled order, so that a
  // row's repetition k and its baseline's ran in the same round (README,
  // "Reproducibility").
  defaults.rounds = 25;
  // Drift: this row, once per round (README, "Noisy runs").
  defaults.canary_row = "command/api:vfork/child:minimal/op:run";
  // Key ratios, each row over its baseline in the same round (README, "Reproducibility").
  defaults.ratio_baselines = {{"api", "vfork"}};
  return defaults;
}

}  // namespace
}  // namespace spawnlab

SPAWNLAB_BENCH_MAIN("command", spawnlab::Register, spawnlab::Declare)
