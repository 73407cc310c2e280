// crosscheck.cc: the clone3 bench's key ratios, measured a second way.
//
//   bazel run //experiments/clone3:crosscheck [-- --quick]
//
// Shares no measured code with lib/spawn or Google Benchmark's loop (only the
// environment record for its JSON context): raw calls, timed
// the lmbench lat_proc way (one clock reading around N back-to-back
// operations, divided by N) and the spawnbench way (the child's own clock
// reading at its first instruction, through a pipe). Each measurement is
// repeated 9 times; the JSON (Google Benchmark's layout, median and min rows)
// goes to results/<kernel-release>/crosscheck.json, where the analysis sets
// its ratios fork/vfork, posix_spawn/vfork and fork(+1 GiB touched)/fork(small)
// beside the bench's.
//
// Rows: crosscheck/way:W/op:O/parent:P with W lat_proc or spawnbench,
// O fork-exit (lat_proc's "fork"), vfork-exit, and fork-exec, vfork-exec,
// posix_spawn-exec, which exec the minimal child.

#include <fcntl.h>
#include <sched.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "lib/environment.h"
#include "nlohmann/json.hpp"

extern char** environ;

namespace {

int64_t Now() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

[[noreturn]] void Die(const char* what) {
  perror(what);
  exit(1);
}

void Reap(pid_t pid) {
  int status;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fprintf(stderr, "crosscheck: child %d did not exit 0\n", pid);
    exit(1);
  }
}

char* child_argv[3];  // {minimal_child, clock fd or "-", nullptr}

// One spawn-and-reap (or fork-and-reap).
using Op = std::function<void()>;

void ForkExit() {
  pid_t pid = fork();
  if (pid < 0) Die("fork");
  if (pid == 0) _exit(0);
  Reap(pid);
}

void VforkExit() {
  pid_t pid = vfork();
  if (pid < 0) Die("vfork");
  if (pid == 0) _exit(0);
  Reap(pid);
}

void ForkExec() {
  pid_t pid = fork();
  if (pid < 0) Die("fork");
  if (pid == 0) {
    execve(child_argv[0], child_argv, environ);
    _exit(127);
  }
  Reap(pid);
}

void VforkExec() {
  pid_t pid = vfork();
  if (pid < 0) Die("vfork");
  if (pid == 0) {
    execve(child_argv[0], child_argv, environ);
    _exit(127);
  }
  Reap(pid);
}

void PosixSpawnExec() {
  pid_t pid;
  if (posix_spawn(&pid, child_argv[0], nullptr, nullptr, child_argv, environ) != 0) {
    Die("posix_spawn");
  }
  Reap(pid);
}

struct Stats {
  double median_us;
  double min_us;
};

Stats Summarize(std::vector<double> us) {
  std::sort(us.begin(), us.end());
  return {us[us.size() / 2], us.front()};
}

// lat_proc: 9 repetitions of N back-to-back operations under one clock.
Stats LatProc(const Op& op, int n) {
  op();  // warm-up
  std::vector<double> per_op;
  for (int r = 0; r < 9; ++r) {
    int64_t t0 = Now();
    for (int i = 0; i < n; ++i) op();
    per_op.push_back(static_cast<double>(Now() - t0) / n / 1000.0);
  }
  return Summarize(per_op);
}

// spawnbench: spawn to the child's own first clock reading, per spawn.
Stats SpawnBench(const Op& op, int n, int clock_fd) {
  std::vector<double> per_op;
  op();
  int64_t drained;
  while (read(clock_fd, &drained, sizeof(drained)) > 0) {
  }
  for (int r = 0; r < 9 * n; ++r) {
    int64_t t0 = Now();
    op();
    int64_t child = 0;
    if (read(clock_fd, &child, sizeof(child)) != sizeof(child)) {
      fprintf(stderr, "crosscheck: the child wrote no clock reading\n");
      exit(1);
    }
    per_op.push_back(static_cast<double>(child - t0) / 1000.0);
  }
  return Summarize(per_op);
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  std::string out, child = "lib/children/minimal_child";  // as bazel run sees it
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--quick") {
      quick = true;
    } else if (a.rfind("--out=", 0) == 0) {
      out = a.substr(6);
    } else if (a.rfind("--minimal_child=", 0) == 0) {
      child = a.substr(16);
    } else {
      fprintf(stderr, "usage: crosscheck [--quick] [--out=PATH] [--minimal_child=PATH]\n");
      return 2;
    }
  }
  if (access(child.c_str(), X_OK) != 0) {
    fprintf(stderr, "crosscheck: %s: %s (give --minimal_child=PATH)\n", child.c_str(),
            strerror(errno));
    return 2;
  }
  struct utsname u;
  uname(&u);
  if (out.empty()) {
    const char* ws = getenv("BUILD_WORKSPACE_DIRECTORY");
    std::string dir = std::string(ws ? ws : ".") + "/results";
    mkdir(dir.c_str(), 0755);
    dir += std::string("/") + u.release;
    mkdir(dir.c_str(), 0755);
    out = dir + "/crosscheck.json";
  }

  // Pinned to the last allowed CPU, as the bench is (lib/pin.h), so that both
  // measure under the same conditions.
  cpu_set_t allowed, one;
  if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0) {
    for (int c = CPU_SETSIZE - 1; c >= 0; --c) {
      if (CPU_ISSET(c, &allowed)) {
        CPU_ZERO(&one);
        CPU_SET(c, &one);
        sched_setaffinity(0, sizeof(one), &one);
        break;
      }
    }
  }

  int fds[2];
  if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) Die("pipe2");
  int inherited = fcntl(fds[1], F_DUPFD, 3);
  std::string fd_arg = std::to_string(inherited);
  child_argv[0] = child.data();
  child_argv[2] = nullptr;
  const int n = quick ? 3 : 100;

  nlohmann::json rows = nlohmann::json::array();
  auto add = [&](const std::string& name, Stats s) {
    for (auto [agg, value] : {std::pair<const char*, double>{"median", s.median_us},
                              {"min", s.min_us}}) {
      rows.push_back({{"name", name + "_" + agg},
                      {"run_name", name},
                      {"run_type", "aggregate"},
                      {"aggregate_name", agg},
                      {"repetitions", 9},
                      {"real_time", value},
                      {"cpu_time", 0.0},
                      {"time_unit", "us"}});
    }
    fprintf(stderr, "%-60s median %10.1f us  min %10.1f us\n", name.c_str(), s.median_us,
            s.min_us);
  };

  void* ballast = nullptr;
  const size_t gib = size_t{1} << 30;
  for (const char* parent : {"small", "1g-touched"}) {
    if (std::string(parent) == "1g-touched") {
      ballast = mmap(nullptr, gib, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (ballast == MAP_FAILED) Die("mmap");
      madvise(ballast, gib, MADV_NOHUGEPAGE);
      for (size_t off = 0; off < gib; off += 4096) static_cast<volatile char*>(ballast)[off] = 1;
    }
    const std::string p = std::string("/parent:") + parent;
    child_argv[1] = const_cast<char*>("-");
    add("crosscheck/way:lat_proc/op:fork-exit" + p, LatProc(ForkExit, n));
    add("crosscheck/way:lat_proc/op:vfork-exit" + p, LatProc(VforkExit, n));
    add("crosscheck/way:lat_proc/op:fork-exec" + p, LatProc(ForkExec, n));
    add("crosscheck/way:lat_proc/op:vfork-exec" + p, LatProc(VforkExec, n));
    add("crosscheck/way:lat_proc/op:posix_spawn-exec" + p, LatProc(PosixSpawnExec, n));
    child_argv[1] = fd_arg.data();
    const int m = quick ? 1 : 20;
    add("crosscheck/way:spawnbench/op:fork-exec" + p, SpawnBench(ForkExec, m, fds[0]));
    add("crosscheck/way:spawnbench/op:vfork-exec" + p, SpawnBench(VforkExec, m, fds[0]));
    add("crosscheck/way:spawnbench/op:posix_spawn-exec" + p,
        SpawnBench(PosixSpawnExec, m, fds[0]));
  }
  if (ballast != nullptr) munmap(ballast, gib);

  // The same environment record as every bench (it only reads /proc and /sys).
  nlohmann::json context = nlohmann::json::object();
  for (const auto& [key, value] : spawnlab::CollectEnvironment()) context[key] = value;
  context["spawnlab.experiment"] = "crosscheck";
  context["spawnlab.quick"] = quick ? "true" : "false";
  context["spawnlab.way"] = "independent of lib/spawn and Google Benchmark: lat_proc and spawnbench loops";
  nlohmann::json doc = {{"context", context}, {"benchmarks", rows}};
  std::ofstream f(out);
  f << doc.dump(2) << "\n";
  if (!f) {
    fprintf(stderr, "crosscheck: cannot write %s\n", out.c_str());
    return 1;
  }
  fprintf(stderr, "results: %s\n", out.c_str());
  return 0;
}
