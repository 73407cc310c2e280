// bench.cc: which primitive a language runtime's spawn issues, and what its
// spawn API costs, timed by the runtime itself.
//
//   bazel run //experiments/runtime_spawn:bench [-- --quick]
//
// Its rows and how each is measured: README.md, "Rows and method".

#include "bench/bench.h"

#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "bench/together.h"
#include "lib/command.h"
#include "lib/runfiles.h"
#include "lib/strace.h"
#include "re2/re2.h"

namespace spawnlab {
namespace {

constexpr char kPython[] = "/usr/bin/python3";

// A runtime's program and its arguments before N and the child's path.
struct Runtime {
  std::string lang, call;
  std::vector<std::string> argv;  // empty: this process (the library's Command)
  std::string needs;              // a path that must exist, and what installs it
};

// What the trace of one run says the spawns were.
struct SpawnKinds {
  int vfork_like = 0, fork_like = 0, other = 0;
  std::string first;  // the first spawn call, as strace wrote it
};

// Classifies the clone, clone3, fork and vfork calls of an strace -f log,
// leaving out threads (CLONE_THREAD).
SpawnKinds Classify(const std::string& log) {
  static const RE2* const kCall = new RE2(R"(^\d+\s+(clone3|clone|vfork|fork)\((.*))");
  static const RE2* const kFlags = new RE2(R"(flags=([A-Z0-9_|]+))");
  SpawnKinds k;
  std::istringstream in(log);
  std::string line;
  while (std::getline(in, line)) {
    std::string call, rest, flags;
    if (!RE2::PartialMatch(line, *kCall, &call, &rest)) continue;
    RE2::PartialMatch(rest, *kFlags, &flags);
    if (absl::StrContains(flags, "CLONE_THREAD")) continue;
    const bool vfork = call == "vfork" || absl::StrContains(flags, "CLONE_VFORK");
    const bool fork = call == "fork" || (call != "vfork" && !absl::StrContains(flags, "CLONE_VM"));
    if (vfork) {
      ++k.vfork_like;
    } else if (fork) {
      ++k.fork_like;
    } else {
      ++k.other;
    }
    if (k.first.empty()) {
      k.first = absl::StrCat(call, "(", rest.substr(0, 160));
      RE2::GlobalReplace(&k.first, R"(\s+)", " ");
    }
  }
  return k;
}

// Runs `argv` (its last two arguments N and the child) under strace.
absl::StatusOr<SpawnKinds> Trace(const std::vector<std::string>& argv) {
  absl::StatusOr<std::string> log =
      RunUnderStrace({"-f", "-qq", "-e", "trace=clone,clone3,fork,vfork"}, argv, absl::Seconds(60));
  if (!log.ok()) return log.status();
  return Classify(*log);
}

// Runs a program that times itself and prints its mean nanoseconds per
// operation as its one line of output.
absl::StatusOr<int64_t> TimedByItself(const std::vector<std::string>& argv) {
  absl::StatusOr<CommandResult> r =
      Command(argv[0])
          .Args(std::vector<std::string>(argv.begin() + 1, argv.end()))
          .Stdout(Stdio::Pipe())
          .Stderr(Stdio::Pipe())
          .Timeout(absl::Seconds(120))
          .Run();
  if (!r.ok()) return r.status();
  int64_t ns = 0;
  if (!r->status.success() || !absl::SimpleAtoi(absl::StripAsciiWhitespace(r->out), &ns)) {
    return absl::InternalError(
        absl::StrCat(argv[0], ": ", r->status.ToString(), ": ", r->out, r->err));
  }
  return ns;
}

// `together` (with its part): this row's time is that part of a measurement
// shared with other rows of the round, not a run of its own.
void BM_Runtime(benchmark::State& state, const Runtime& rt, const std::string& child, int n,
                const std::shared_ptr<MeasuredTogether>& together, size_t part) {
  if (!rt.needs.empty() && access(rt.needs.c_str(), X_OK) != 0) {
    return SkipRow(state, absl::NotFoundError(absl::StrCat(rt.needs, " is not installed")));
  }
  std::vector<std::string> traced = rt.argv;
  traced.push_back("4");
  traced.push_back(child);
  if (!rt.argv.empty()) {
    absl::StatusOr<SpawnKinds> kinds = Trace(traced);
    if (!kinds.ok()) {
      // No strace, or no ptrace here: a skip, with its reason.
      if (absl::IsNotFound(kinds.status()) || absl::IsPermissionDenied(kinds.status())) {
        return SkipRow(state, kinds.status());
      }
      return FailRow(state, kinds.status());
    }
    const int spawns = 5;  // the warm-up and 4
    state.counters["vfork_like_per_spawn"] = static_cast<double>(kinds->vfork_like) / spawns;
    state.counters["fork_like_per_spawn"] = static_cast<double>(kinds->fork_like) / spawns;
    static std::set<std::string>* const told = new std::set<std::string>;
    if (told->insert(rt.call).second) {
      fprintf(stderr, "%s %s spawns by: %s\n", rt.lang.c_str(), rt.call.c_str(),
              kinds->first.c_str());
    }
  }
  if (together != nullptr) return together->Report(state, part);
  for (auto _ : state) {
    if (rt.argv.empty()) {  // the library's Command, in this process
      const Command command(child);
      absl::StatusOr<CommandResult> warm = command.Run();
      if (!warm.ok()) return FailRow(state, warm.status());
      const int64_t t0 = MonotonicNanos();
      for (int i = 0; i < n; ++i) {
        absl::StatusOr<CommandResult> r = command.Run();
        if (!r.ok() || !r->status.success()) {
          return FailRow(state, r.ok() ? absl::InternalError(r->status.ToString()) : r.status());
        }
      }
      state.SetIterationTime(static_cast<double>(MonotonicNanos() - t0) * 1e-9 / n);
      continue;
    }
    std::vector<std::string> argv = rt.argv;
    argv.push_back(absl::StrCat(n));
    argv.push_back(child);
    absl::StatusOr<int64_t> ns = TimedByItself(argv);
    if (!ns.ok()) return FailRow(state, ns.status());
    state.SetIterationTime(static_cast<double>(*ns) * 1e-9);
  }
}

// Go's command builder, no spawn: one run of build_go (its own loop of n
// builds) per repetition, timed by Go's clock.
void BM_GoBuild(benchmark::State& state, const std::string& build_go, const std::string& mode,
                int n) {
  for (auto _ : state) {
    absl::StatusOr<int64_t> ns = TimedByItself({build_go, mode, absl::StrCat(n)});
    if (!ns.ok()) return FailRow(state, ns.status());
    state.SetIterationTime(static_cast<double>(*ns) * 1e-9);
  }
  state.counters["builds"] = n;
}

// A program's one-line answer, or why there is none.
std::string Answer(const std::string& path, std::vector<std::string> args) {
  if (access(path.c_str(), X_OK) != 0)
    return absl::StrCat("unavailable: ", path, " is not installed");
  absl::StatusOr<CommandResult> r =
      Command(path).Args(std::move(args)).Stdout(Stdio::Pipe()).Timeout(absl::Seconds(10)).Run();
  if (!r.ok()) return absl::StrCat("unavailable: ", r.status().message());
  if (!r->status.success()) return absl::StrCat("unavailable: ", r->status.ToString());
  return std::string(absl::StripAsciiWhitespace(r->out));
}

// Go's two calls, from one process that alternates them spawn by spawn:
// part 0 exec.Command.Run, part 1 os.StartProcess.
absl::StatusOr<std::vector<PartTime>> GoAlternating(const std::string& go, const std::string& child,
                                                    int n) {
  absl::StatusOr<CommandResult> r = Command(go)
                                        .Args({"alternate", absl::StrCat(n), child})
                                        .Stdout(Stdio::Pipe())
                                        .Stderr(Stdio::Pipe())
                                        .Timeout(absl::Seconds(120))
                                        .Run();
  if (!r.ok()) return r.status();
  std::vector<std::string> words = absl::StrSplit(absl::StripAsciiWhitespace(r->out), ' ');
  int64_t command_ns = 0, start_ns = 0;
  if (!r->status.success() || words.size() != 2 || !absl::SimpleAtoi(words[0], &command_ns) ||
      !absl::SimpleAtoi(words[1], &start_ns)) {
    return absl::InternalError(
        absl::StrCat(go, " alternate: ", r->status.ToString(), ": ", r->out, r->err));
  }
  return std::vector<PartTime>{{static_cast<double>(command_ns) * 1e-9, n},
                               {static_cast<double>(start_ns) * 1e-9, n}};
}

void Register(const BenchOptions& options) {
  const std::string child = RunfileOrExit("lib/children/minimal_child");
  const std::string go = RunfileOrExit("experiments/runtime_spawn/spawn_go");
  const std::string py = RunfileOrExit("experiments/runtime_spawn/spawn.py");
  const int n = options.quick ? 20 : 200;
  if (options.round == 0) {
    // Which releases were measured: a runtime's spawn changes between them.
    benchmark::AddCustomContext("runtime.go", Answer(go, {"version"}));
    benchmark::AddCustomContext(
        "runtime.python", Answer(kPython, {"-c", "import sys; print(sys.version.split()[0])"}));
    benchmark::AddCustomContext("runtime.measured_together",
                                "exec.Command.Run and os.StartProcess: one spawn_go process per "
                                "round, the two calls alternating spawn by spawn");
  }
  const Runtime runtimes[] = {
      {"go", "exec.Command.Run", {go, "command"}, ""},
      {"go", "os.StartProcess", {go, "startprocess"}, ""},
      {"python", "subprocess.run", {kPython, py}, kPython},
      {"cxx", "spawnlab.Command.Run", {}, ""},
  };
  // This round's Go pair, measured once, by whichever of its rows runs first.
  auto go_pair =
      std::make_shared<MeasuredTogether>([go, child, n] { return GoAlternating(go, child, n); });
  std::vector<RoundRow> rows;
  for (const Runtime& rt : runtimes) {
    std::shared_ptr<MeasuredTogether> together = rt.lang == "go" ? go_pair : nullptr;
    const size_t part = rt.call == "exec.Command.Run" ? 0 : 1;
    rows.push_back(
        {absl::StrCat("runtime/lang:", rt.lang, "/call:", rt.call, "/child:minimal/until:exit"),
         [rt, child, n, together, part](benchmark::State& state) {
           BM_Runtime(state, rt, child, n, together, part);
         }});
  }
  // Go's builder without a spawn (S000-3), and with Go's inliner off (S001-5).
  const int builds = options.quick ? 1000 : 200000;
  struct GoBuild {
    const char* inline_mode;
    const char* op;
    const char* mode;
  };
  for (const GoBuild& b : {GoBuild{"default", "exec.Command", "command"},
                           GoBuild{"default", "exec.CommandContext", "context"},
                           GoBuild{"default", "exec.Cmd", "struct"},
                           GoBuild{"forbidden", "exec.Command", "command"},
                           GoBuild{"forbidden-everywhere", "exec.Command", "command"}}) {
    const std::string bin =
        RunfileOrExit(absl::StrCat("experiments/runtime_spawn/build_go_", b.inline_mode));
    const std::string mode = b.mode;
    rows.push_back(
        {absl::StrCat("build/lang:go/inline:", b.inline_mode, "/op:", b.op),
         [bin, mode, builds](benchmark::State& state) { BM_GoBuild(state, bin, mode, builds); }});
  }
  for (benchmark::internal::Benchmark* b : RegisterRound(options, std::move(rows)))
    b->Iterations(1);
}

// The bench's declaration: its rounds, canary and key ratios (bench.h: BenchDefaults).
BenchDefaults Declare() {
  BenchDefaults defaults;
  // Rounds: each runs every row once (the Go pair in one process), shuffled.
  // More than the default: the Go pair's ratio spreads from round to round,
  // between processes (more spawns per process do not narrow it), so only
  // more rounds bring its median within the rerun target.
  defaults.rounds = 61;
  // Drift: this row, once per round (README, "Noisy runs").
  defaults.canary_row = "runtime/lang:cxx/call:spawnlab.Command.Run/child:minimal/until:exit";
  // Key ratio: Go's Cmd layer over the raw call, within a round.
  // Go's builder: with inlining forbidden over the default, and each way of
  // building over exec.Command.
  defaults.ratio_baselines = {
      {"call", "os.StartProcess"}, {"inline", "default"}, {"op", "exec.Command"}};
  return defaults;
}

}  // namespace
}  // namespace spawnlab

SPAWNLAB_BENCH_MAIN("runtime_spawn", spawnlab::Register, spawnlab::Declare)
