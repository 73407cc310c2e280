// crosscheck.cc: the clone3 bench's key ratios, measured the original tools'
// way, in the original tools' kind of parent.
//
//   bazel run //experiments/clone3:crosscheck [-- --quick]
//
// This process is the parent, as spawnbench's and lmbench's lat_proc are:
// static, one thread, few mappings. It shares no measured code with lib/spawn,
// the spawners or Google Benchmark's loop: raw fork, vfork, clone and
// posix_spawn, timed spawnbench's way (to the child's first instruction) and
// lat_proc's (n spawn-and-reaps under one clock). Its rows, statistics and
// parents in full: README.md, "The cross-check: rows and method".

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "bench/bench_lock.h"
#include "bench/bench_processes.h"
#include "results_model/bench_results.h"
#include "bench/environment.h"
#include "bench/run_record.h"
#include "lib/runfiles.h"
#include "lib/safe_file.h"
#include "nlohmann/json.hpp"
#include "results_model/context_keys.h"
#include "results_model/stats.h"

namespace {

// The children's environment: none (see the top).
char* empty_environment[] = {nullptr};

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
  pid_t r;
  do {
    r = waitpid(pid, &status, 0);
  } while (r < 0 && errno == EINTR);
  if (r != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fprintf(stderr, "crosscheck: child %d did not exit 0\n", pid);
    exit(1);
  }
}

char* child_argv[3];    // {minimal_child, clock fd or "-", nullptr}
char* c_child_argv[3];  // {dynamic_c_child, "-", nullptr}

// Spawn (and exec, for the -exec ops) one child; returns its pid unreaped.
using Spawn = pid_t (*)();

pid_t ForkExit() {
  pid_t pid = fork();
  if (pid < 0) Die("fork");
  if (pid == 0) _exit(0);
  return pid;
}

pid_t VforkExit() {
  pid_t pid = vfork();
  if (pid < 0) Die("vfork");
  if (pid == 0) _exit(0);
  return pid;
}

pid_t ForkExec() {
  pid_t pid = fork();
  if (pid < 0) Die("fork");
  if (pid == 0) {
    execve(child_argv[0], child_argv, empty_environment);
    _exit(127);
  }
  return pid;
}

pid_t VforkExec() {
  pid_t pid = vfork();
  if (pid < 0) Die("vfork");
  if (pid == 0) {
    execve(child_argv[0], child_argv, empty_environment);
    _exit(127);
  }
  return pid;
}

pid_t ForkExecC() {
  pid_t pid = fork();
  if (pid < 0) Die("fork");
  if (pid == 0) {
    execve(c_child_argv[0], c_child_argv, empty_environment);
    _exit(127);
  }
  return pid;
}

alignas(64) char clone_stack[64 * 1024];

int CloneChild(void*) {
  execve(child_argv[0], child_argv, empty_environment);
  _exit(127);
}

pid_t CloneExec() {
  pid_t pid = clone(CloneChild, clone_stack + sizeof(clone_stack), CLONE_VM | CLONE_VFORK | SIGCHLD,
                    nullptr);
  if (pid < 0) Die("clone");
  return pid;
}

pid_t PosixSpawnExec() {
  pid_t pid;
  if (posix_spawn(&pid, child_argv[0], nullptr, nullptr, child_argv, empty_environment) != 0) {
    Die("posix_spawn");
  }
  return pid;
}

struct Op {
  const char* name;
  Spawn spawn;
  bool execs;
  const char* child = "";  // a child dimension in the row's name, if any
};

const Op kOps[] = {
    {"fork-exec", ForkExec, true},
    {"vfork-exec", VforkExec, true},
    {"clone-exec", CloneExec, true},
    {"posix_spawn-exec", PosixSpawnExec, true},
    {"fork-exit", ForkExit, false},
    {"vfork-exit", VforkExit, false},
    {"fork-exec", ForkExecC, true, "dynamic-c"},
};

// The parents: as spawnbench's, and the same with touched ballast; which ops
// each runs.
struct Parent {
  const char* name;
  size_t ballast;  // bytes written page by page before the parent's turn
  bool (*runs)(const Op&);
};

bool AllButC(const Op& op) { return *op.child == '\0'; }
bool All(const Op&) { return true; }
bool NoExec(const Op& op) { return !op.execs; }

const Parent kParents[] = {
    {"minimal", 0, All},
    {"1g-touched", size_t{1} << 30, AllButC},
    {"400m-touched", size_t{400} << 20, NoExec},
};

// Only lat_proc times the C child and the 400 MiB parent.
bool SpawnBenchRuns(const Op& op, const Parent& parent) {
  return op.execs && *op.child == '\0' && parent.ballast != (size_t{400} << 20);
}

std::string RowName(const char* way, const Op& op, const Parent& parent) {
  return std::string("crosscheck/way:") + way + "/op:" + op.name +
         (*op.child ? std::string("/child:") + op.child : "") + "/parent:" + parent.name;
}

// The page faults of every child reaped so far (getrusage, outside every
// interval): a forked child faults in the text and data its path to exec
// touches, so the count tells two parents' layouts apart (the bench's rows
// carry the same counter, child_faults).
int64_t ReapedChildrenFaults() {
  struct rusage ru;
  if (getrusage(RUSAGE_CHILDREN, &ru) != 0) Die("getrusage");
  return int64_t{ru.ru_minflt} + int64_t{ru.ru_majflt};
}

// One lat_proc repetition: n spawn-and-reap under one clock; µs per op. Adds
// the children's page faults, per child, to *faults.
double LatProcRepetition(const Op& op, int n, double* faults) {
  const int64_t before = ReapedChildrenFaults();
  const int64_t t0 = Now();
  for (int i = 0; i < n; ++i) Reap(op.spawn());
  const int64_t t1 = Now();
  *faults = static_cast<double>(ReapedChildrenFaults() - before) / n;
  return static_cast<double>(t1 - t0) / n / 1000.0;
}

// spawnbench: each spawn to the child's first instruction; µs per spawn. The
// mean of the children's page faults goes to *faults.
void SpawnBenchSpawns(const Op& op, int n, int clock_fd, std::vector<double>* us, double* faults) {
  const int64_t before = ReapedChildrenFaults();
  for (int i = 0; i < n; ++i) {
    const int64_t t0 = Now();
    pid_t pid = op.spawn();
    Reap(pid);  // after the child's reading: outside the interval
    int64_t child = 0;
    if (read(clock_fd, &child, sizeof(child)) != sizeof(child)) {
      fprintf(stderr, "crosscheck: the child wrote no clock reading\n");
      exit(1);
    }
    us->push_back(static_cast<double>(child - t0) / 1000.0);
  }
  *faults = static_cast<double>(ReapedChildrenFaults() - before) / n;
}

int64_t OwnMappings() {
  std::ifstream in("/proc/self/maps");
  std::string line;
  int64_t n = 0;
  while (std::getline(in, line)) ++n;
  return n;
}

// This process's size as the bench's spawner reports its own (bench/spawner):
// VmRSS and VmPTE in KiB and its threads, from /proc/self/status, and its
// mappings. Recorded at every turn, so that a parent grown by the turns before
// shows.
struct Shape {
  double rss_kib = -1, pte_kib = -1, threads = -1, mappings = -1;
};

Shape OwnShape() {
  Shape shape;
  std::ifstream in("/proc/self/status");
  std::string key;
  double value;
  while (in >> key) {
    double* field = key == "VmRSS:"     ? &shape.rss_kib
                    : key == "VmPTE:"   ? &shape.pte_kib
                    : key == "Threads:" ? &shape.threads
                                        : nullptr;
    if (field != nullptr && in >> value) *field = value;
    in.ignore(1 << 10, '\n');
  }
  shape.mappings = static_cast<double>(OwnMappings());
  return shape;
}

// The ballast's placement, as the bench's (lib/ballast.h) but written apart:
// where a parent's pages lie in physical memory moves its fork by up to 2x, so
// both tools place theirs the same way and record where it lies. The free
// blocks under 2 MiB (/proc/buddyinfo, orders 0-8) are soaked up by a scratch
// mapping first, so that the ballast's pages come from the large blocks; then
// the scratch is freed. Skipped where the room for it is lacking.
size_t SmallFreeBlocksBytes() {
  std::ifstream in("/proc/buddyinfo");
  std::string node, zone_word, zone;
  size_t pages = 0;
  for (std::string line; std::getline(in, line);) {
    std::istringstream f(line);
    f >> node >> node >> zone_word >> zone;  // "Node 0, zone Normal"
    long blocks;
    for (int order = 0; order < 9 && (f >> blocks); ++order) pages += size_t(blocks) << order;
  }
  return pages * 4096;
}

size_t AvailableBytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  size_t kib;
  while (in >> key >> kib) {
    if (key == "MemAvailable:") return kib << 10;
    in.ignore(64, '\n');
  }
  return 0;
}

void TouchPages(void* p, size_t bytes) {
  for (size_t off = 0; off < bytes; off += 4096) static_cast<volatile char*>(p)[off] = 1;
}

// The share of [p, p + bytes)'s pages, after the first, in the frame next to
// the previous page's; -1 where /proc/self/pagemap hides frames (not root).
double AdjacentFrames(const void* p, size_t bytes) {
  const int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  // A block at a time, on the stack: a buffer for the whole ballast (2 MiB per
  // GiB) would stay in the heap once freed, and the minimal parent after the
  // ballast's turn would be 2 MiB larger than before it.
  uint64_t e[2048];
  const uint64_t frame = (uint64_t{1} << 55) - 1;
  const size_t pages = bytes / 4096;
  const off_t base = static_cast<off_t>(uintptr_t(p) / 4096 * 8);
  size_t adjacent = 0;
  uint64_t last = 0, first = 0;
  for (size_t at = 0; at < pages; at += 2048) {
    const size_t n = std::min<size_t>(2048, pages - at);
    if (pread(fd, e, n * 8, base + static_cast<off_t>(at * 8)) != static_cast<ssize_t>(n * 8)) {
      close(fd);
      return -1;
    }
    if (at == 0) first = e[0] & frame;
    for (size_t i = 0; i < n; ++i) {
      const uint64_t b = e[i] & frame;
      if (at + i > 0) adjacent += last != 0 && (b == last + 1 || last == b + 1);
      last = b;
    }
  }
  close(fd);
  return first == 0 || pages < 2 ? -1 : double(adjacent) / double(pages - 1);
}

// A touched ballast of `bytes`, placed as above (MADV_NOHUGEPAGE: 4 KiB pages).
void* PlacedBallast(size_t bytes) {
  size_t soak = SmallFreeBlocksBytes();
  if (AvailableBytes() < soak + bytes + (size_t{512} << 20)) soak = 0;
  void* scratch = nullptr;
  if (soak > 0) {
    scratch = mmap(nullptr, soak, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (scratch == MAP_FAILED) Die("mmap (soak)");
    madvise(scratch, soak, MADV_NOHUGEPAGE);
    TouchPages(scratch, soak);
  }
  void* ballast = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (ballast == MAP_FAILED) Die("mmap");
  madvise(ballast, bytes, MADV_NOHUGEPAGE);
  TouchPages(ballast, bytes);
  if (scratch != nullptr) munmap(scratch, soak);
  return ballast;
}

// The drift canary: measured in every round, in the minimal parent.
const char kCanaryRow[] = "crosscheck/way:lat_proc/op:vfork-exec/parent:minimal";

int Usage() {
  fprintf(stderr,
          "usage: crosscheck [--quick] [--full] [--out=PATH] [--processes=N] [--rounds=N] "
          "[--minimal_child=PATH] [--c_child=PATH] [--lock=wait|fail|none] [--list_rows]\n"
          "  --full         accepted, as the benches take it: every row is always measured\n"
          "  --processes=N  fresh processes, one after another (default 10; 1 with --quick)\n"
          "  --rounds=N     rounds in each process (default 3; 2 with --quick)\n");
  return 2;
}

}  // namespace

// The rows a run writes, one per line, without measuring: what the clone3
// report spec's cross-check pairs are checked against.
void ListRows() {
  for (const Parent& parent : kParents) {
    for (const Op& op : kOps) {
      if (!parent.runs(op)) continue;
      printf("%s\n", RowName("lat_proc", op, parent).c_str());
      if (SpawnBenchRuns(op, parent)) printf("%s\n", RowName("spawnbench", op, parent).c_str());
    }
  }
}

int main(int argc, char** argv) {
  bool quick = false;
  std::string out, lock_mode = "wait", child, c_child;
  int processes = 0, rounds_per_process = 0, worker = 0, workers = 0;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--quick") {
      quick = true;
    } else if (a == "--full") {  // the suite's, for every bench; all rows are this run's
    } else if (a.rfind("--processes=", 0) == 0) {
      if (!absl::SimpleAtoi(a.substr(12), &processes) || processes < 1) return Usage();
    } else if (a.rfind("--rounds=", 0) == 0) {
      if (!absl::SimpleAtoi(a.substr(9), &rounds_per_process) || rounds_per_process < 1) {
        return Usage();
      }
    } else if (a.rfind("--spawnlab_worker=", 0) == 0) {  // process K of N (RunProcesses)
      std::vector<std::string> kn = absl::StrSplit(a.substr(18), '/');
      if (kn.size() != 2 || !absl::SimpleAtoi(kn[0], &worker) ||
          !absl::SimpleAtoi(kn[1], &workers) || worker < 1 || worker > workers) {
        return Usage();
      }
    } else if (a == "--list_rows") {
      ListRows();
      return 0;
    } else if (a.rfind("--out=", 0) == 0) {
      out = a.substr(6);
    } else if (a.rfind("--minimal_child=", 0) == 0) {
      child = a.substr(16);
    } else if (a.rfind("--c_child=", 0) == 0) {
      c_child = a.substr(10);
    } else if (a.rfind("--lock=", 0) == 0) {
      lock_mode = a.substr(7);
      if (lock_mode != "wait" && lock_mode != "fail" && lock_mode != "none") return Usage();
    } else {
      return Usage();
    }
  }
  if (child.empty()) {  // its data, wherever it runs from (bazel run, the suite, a test)
    absl::StatusOr<std::string> path = spawnlab::Runfile("lib/children/minimal_child");
    child = path.ok() ? *path : "lib/children/minimal_child";
  }
  if (c_child.empty()) {
    absl::StatusOr<std::string> path = spawnlab::Runfile("lib/children/dynamic_c_child");
    c_child = path.ok() ? *path : "lib/children/dynamic_c_child";
  }
  for (const auto& [path, flag] : {std::pair(child, "--minimal_child"), {c_child, "--c_child"}}) {
    if (access(path.c_str(), X_OK) != 0) {
      fprintf(stderr, "crosscheck: %s: %s (give %s=PATH)\n", path.c_str(), strerror(errno), flag);
      return 2;
    }
  }
  // Paths as typed, from where `bazel run` was started; the default beside
  // the bench's results (bench/bench.h), a quick run beside the full one.
  const char* cwd = getenv("BUILD_WORKING_DIRECTORY");
  if (!out.empty() && out[0] != '/' && cwd != nullptr) out = std::string(cwd) + "/" + out;
  if (out.empty()) {
    const char* ws = getenv("BUILD_WORKSPACE_DIRECTORY");
    out = std::string(ws ? ws : ".") + "/results/" + spawnlab::KernelRelease() + "/" +
          spawnlab::HostId() + "/crosscheck" + (quick ? ".quick" : "") + ".json";
  }
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(out).parent_path(), ec);
  if (ec) {
    fprintf(stderr, "crosscheck: cannot create the folder for %s: %s\n", out.c_str(),
            ec.message().c_str());
    return 2;
  }

  if (absl::StatusOr<spawnlab::WriteTarget> t = spawnlab::CheckWriteTarget(out); !t.ok()) {
    fprintf(stderr, "crosscheck: --out: %s\n", std::string(t.status().message()).c_str());
    return 2;
  }
  std::optional<spawnlab::BenchLock> lock;
  absl::StatusOr<std::string> lock_story =
      spawnlab::TakeBenchLock("crosscheck", lock_mode, "", lock);
  if (!lock_story.ok()) {
    fprintf(stderr, "error: %s\n", std::string(lock_story.status().message()).c_str());
    return absl::IsFailedPrecondition(lock_story.status()) ? 3 : 1;
  }

  // A full run is made of several processes (bench/bench_processes.h): the
  // 1 GiB parent's fork time differs from process to process by more than
  // within one, and a round's key ratio varies by ~11% (IQR/median), so that
  // 11 rounds in one process moved the key ratios 4% between two runs; 30
  // rounds over 10 processes should bring that near 2%.
  if (processes == 0) processes = quick || worker > 0 ? 1 : 10;
  if (rounds_per_process == 0) rounds_per_process = quick ? 2 : 3;
  if (processes > 1) {
    std::vector<std::string> args(argv, argv + argc);
    args = spawnlab::WithoutFlags(
        args, {"--processes", "--rounds", "--out", "--lock", "--spawnlab_worker"});
    fprintf(stderr, "crosscheck: %d processes, one after another, each %d rounds; results: %s\n",
            processes, rounds_per_process, out.c_str());
    absl::StatusOr<nlohmann::json> merged = spawnlab::RunProcesses(
        args, processes, out,
        [&](int k, const std::string& part) {
          return std::vector<std::string>{
              absl::StrCat("--spawnlab_worker=", k, "/", processes), "--processes=1",
              absl::StrCat("--rounds=", rounds_per_process), "--lock=none", "--out=" + part};
        },
        kCanaryRow);
    if (!merged.ok()) {
      fprintf(stderr, "crosscheck: %s; nothing written, %s is as it was\n",
              std::string(merged.status().message()).c_str(), out.c_str());
      return 1;
    }
    nlohmann::json& doc = *merged;
    // spawnbench's minimum is over every spawn, not over the rounds'
    // averages: the fastest of each round's fastest spawn (fastest_us).
    for (nlohmann::json& row : doc["benchmarks"]) {
      if (row.value("run_type", "") == "aggregate" && row.value("aggregate_name", "") == "min" &&
          row.contains("fastest_us") && row["fastest_us"].is_number()) {
        row["real_time"] = row["fastest_us"];
      }
    }
    // The merged rows, as a run of one process prints them.
    std::map<std::string, std::string> shown;
    std::vector<std::string> names;
    for (const nlohmann::json& row : doc["benchmarks"]) {
      if (row.value("run_type", "") != "aggregate") continue;
      const std::string agg = row.value("aggregate_name", "");
      if (agg != "min" && agg != "median" && agg != "mean") continue;
      const std::string name = row.value("run_name", "");
      if (!shown.count(name)) names.push_back(name);
      shown[name] += absl::StrFormat(" %s %9.1f us", agg, row.value("real_time", 0.0));
    }
    for (const std::string& name : names) {
      fprintf(stderr, "%-58s%s\n", name.c_str(), shown[name].c_str());
    }
    nlohmann::json& context = doc["context"];
    context["run.lock"] = *lock_story;
    context[spawnlab::keys::kRounds] = std::to_string(processes * rounds_per_process);
    context[spawnlab::keys::kRoundsPerProcess] = std::to_string(rounds_per_process);
    if (absl::Status s = spawnlab::WriteResultsFile(out, doc); !s.ok()) {
      fprintf(stderr, "crosscheck: %s; %s is as it was\n", std::string(s.message()).c_str(),
              out.c_str());
      return 1;
    }
    fprintf(stderr, "run: %s s in %d processes, noisy: %s\nresults: %s\n",
            context["run.seconds"].get<std::string>().c_str(), processes,
            context["run.noisy"].get<std::string>().c_str(), out.c_str());
    return context.value("run.a_process_failed", "") == "yes" ? 1 : 0;
  }
  if (worker > 0) {
    // Nothing outlives the run: a parent that dies takes this process along.
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() == 1) return 1;
  }

  // Pinned to the last allowed CPU, as the bench is (lib/pin.h).
  int pinned = -1;
  cpu_set_t allowed, one;
  if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0) {
    for (int c = CPU_SETSIZE - 1; c >= 0; --c) {
      if (CPU_ISSET(c, &allowed)) {
        CPU_ZERO(&one);
        CPU_SET(c, &one);
        if (sched_setaffinity(0, sizeof(one), &one) == 0) pinned = c;
        break;
      }
    }
  }

  int fds[2];
  if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) Die("pipe2");
  const int inherited = fcntl(fds[1], F_DUPFD, 3);
  const std::string fd_arg = std::to_string(inherited);
  child_argv[0] = child.data();
  child_argv[2] = nullptr;
  c_child_argv[0] = c_child.data();
  c_child_argv[1] = const_cast<char*>("-");
  c_child_argv[2] = nullptr;
  const int rounds = rounds_per_process;
  const int lat_n = quick ? 3 : 40;        // per lat_proc repetition
  const int sb_n = quick ? 3 : 40;         // spawnbench spawns per round: 440 in all
  const int64_t mappings = OwnMappings();  // before the ballast

  const spawnlab::MachineSample before = spawnlab::SampleMachine();
  std::mt19937 shuffle(12345 + 1000 * worker);  // each process its own orders
  nlohmann::json rows = nlohmann::json::array();
  // Google Benchmark's layout: one row per repetition, then the aggregates.
  std::map<std::string, std::vector<double>> adjacent;  // by parent: each turn's ballast
  std::map<std::string, std::vector<Shape>> shapes;     // by parent: each turn's size
  // A repetition of a ballast parent's row carries where that round's
  // ballast lay (ballast_adjacent, as the bench's counter), where known; every
  // repetition carries the parent's size at its turn (the bench's counters).
  auto add = [&](const std::string& name, const std::string& parent,
                 const std::vector<double>& reps, const std::map<std::string, double>& aggregates,
                 int iterations, const std::vector<double>& faults,
                 const std::vector<double>& fastest = {}) {
    const std::vector<double>& turns = adjacent[parent];
    const std::vector<Shape>& sizes = shapes[parent];
    for (size_t k = 0; k < reps.size(); ++k) {
      rows.push_back({{"name", name},
                      {"run_name", name},
                      {"run_type", "iteration"},
                      {"repetitions", reps.size()},
                      {"repetition_index", k},
                      {"iterations", iterations},
                      {"real_time", reps[k]},
                      {"cpu_time", 0.0},
                      {"time_unit", "us"}});
      if (k < turns.size() && turns[k] >= 0) rows.back()["ballast_adjacent"] = turns[k];
      if (k < fastest.size()) rows.back()["fastest_us"] = fastest[k];
      if (k < faults.size()) rows.back()["child_faults"] = faults[k];
      if (k < sizes.size()) {
        rows.back()["parent_rss_kib"] = sizes[k].rss_kib;
        rows.back()["parent_pte_kib"] = sizes[k].pte_kib;
        rows.back()["parent_threads"] = sizes[k].threads;
        rows.back()["parent_mappings"] = sizes[k].mappings;
      }
    }
    for (const auto& [agg, value] : aggregates) {
      rows.push_back({{"name", name + "_" + agg},
                      {"run_name", name},
                      {"run_type", "aggregate"},
                      {"aggregate_name", agg},
                      {"aggregate_unit", "time"},
                      {"repetitions", reps.size()},
                      {"iterations", reps.size()},
                      {"real_time", value},
                      {"cpu_time", 0.0},
                      {"time_unit", "us"}});
    }
    if (worker > 0) return;  // the parent prints the merged rows
    fprintf(stderr, "%-58s", name.c_str());
    for (const auto& [agg, value] : aggregates) fprintf(stderr, " %s %9.1f us", agg.c_str(), value);
    fprintf(stderr, "\n");
  };

  // Rounds outermost: in each, both parents in a shuffled order, and each
  // parent's ops shuffled, so that drift falls on the 1 GiB rows and on the
  // minimal rows alike (their ratio is one the report checks). Measuring one
  // parent's rounds and then the other's put minutes between the two sides of
  // that ratio, and the committed run's 1 GiB ratio came out 40-48x where the
  // bench, which interleaves its parents, said 31-34x. The ballast is made for
  // each round's 1g-touched turn and unmapped after it, so the parent between
  // turns is the minimal one.
  // By row name: lat_proc's repetitions; spawnbench's every spawn, each
  // round's average and each round's fastest spawn (the bench's fastest_us).
  std::map<std::string, std::vector<double>> lat, sb_all, sb_rounds, sb_fastest;
  std::map<std::string, std::vector<double>> faults;  // by row: each repetition's, per child
  std::vector<const Parent*> parents;
  for (const Parent& p : kParents) parents.push_back(&p);
  for (int r = 0; r < rounds; ++r) {
    std::shuffle(parents.begin(), parents.end(), shuffle);
    for (const Parent* parent : parents) {
      void* ballast = nullptr;
      if (parent->ballast > 0) {
        ballast = PlacedBallast(parent->ballast);
        adjacent[parent->name].push_back(AdjacentFrames(ballast, parent->ballast));
      }
      shapes[parent->name].push_back(OwnShape());
      std::vector<const Op*> order;
      for (const Op& op : kOps) {
        if (parent->runs(op)) order.push_back(&op);
      }
      // Warm-up: each op once in this parent.
      child_argv[1] = const_cast<char*>("-");
      for (const Op* op : order) Reap(op->spawn());
      std::shuffle(order.begin(), order.end(), shuffle);
      for (const Op* op : order) {
        child_argv[1] = const_cast<char*>("-");
        const std::string lat_row = RowName("lat_proc", *op, *parent);
        double lat_faults = 0;
        lat[lat_row].push_back(LatProcRepetition(*op, lat_n, &lat_faults));
        faults[lat_row].push_back(lat_faults);
        if (SpawnBenchRuns(*op, *parent)) {
          child_argv[1] = const_cast<char*>(fd_arg.c_str());
          std::vector<double> us;
          double sb_faults = 0;
          SpawnBenchSpawns(*op, sb_n, fds[0], &us, &sb_faults);
          double sum = 0;
          for (double u : us) sum += u;
          const std::string row = RowName("spawnbench", *op, *parent);
          sb_rounds[row].push_back(sum / us.size());
          sb_fastest[row].push_back(*std::min_element(us.begin(), us.end()));
          faults[row].push_back(sb_faults);
          sb_all[row].insert(sb_all[row].end(), us.begin(), us.end());
        }
      }
      if (ballast != nullptr) munmap(ballast, parent->ballast);
    }
    if (worker > 0) {
      fprintf(stderr, "process %d/%d: round %d of %d done\n", worker, workers, r + 1, rounds);
    } else {
      fprintf(stderr, "round %d of %d done\n", r + 1, rounds);
    }
  }
  for (const Parent& parent : kParents) {
    for (const Op& op : kOps) {
      if (!parent.runs(op)) continue;
      const std::vector<double>& l = lat[RowName("lat_proc", op, parent)];
      add(RowName("lat_proc", op, parent), parent.name, l,
          {{"min", spawnlab::Min(l)}, {"median", spawnlab::Median(l)}}, lat_n,
          faults[RowName("lat_proc", op, parent)]);
      if (!SpawnBenchRuns(op, parent)) continue;
      const std::string row = RowName("spawnbench", op, parent);
      const std::vector<double>& all = sb_all[row];
      double sum = 0;
      for (double u : all) sum += u;
      add(row, parent.name, sb_rounds[row],
          {{"mean", sum / all.size()},
           {"min", *std::min_element(all.begin(), all.end())},
           {"median", spawnlab::Median(sb_rounds[row])}},
          sb_n, faults[row], sb_fastest[row]);
    }
  }
  const spawnlab::MachineSample after = spawnlab::SampleMachine();

  // The same environment record as every bench (collected after measuring).
  nlohmann::json context = nlohmann::json::object();
  for (const auto& [key, value] : spawnlab::CollectEnvironment()) context[key] = value;
  for (const auto& [key, value] : spawnlab::DescribeRun(before, after)) context[key] = value;
  context["run.lock"] = *lock_story;
  context[spawnlab::keys::kExperiment] = "crosscheck";
  context[spawnlab::keys::kQuick] = quick ? "true" : "false";
  context[spawnlab::keys::kRunKind] = quick ? "quick" : "full";
  context[spawnlab::keys::kPinnedCpu] = pinned < 0 ? "none" : std::to_string(pinned);
  context[spawnlab::keys::kParentMappings] = std::to_string(mappings);
  context[spawnlab::keys::kWay] =
      "independent of lib/spawn and Google Benchmark: lat_proc and spawnbench loops in a "
      "static single-threaded parent";
  context[spawnlab::keys::kRounds] = std::to_string(rounds);
  if (worker > 0) context[spawnlab::keys::kProcess] = absl::StrCat(worker, "/", workers);
  context[spawnlab::keys::kChildEnvironment] = "empty";
  // As every bench records them (bench/bench.h): the key ratios' baselines, for
  // //analysis:compare --self_check (each op over vfork-exec, each parent over
  // the minimal one, paired within rounds), and the drift canary, one row's
  // time round by round, which marks a run noisy as it does a bench's.
  context[spawnlab::keys::kRatioBaseline] = "op:vfork-exec,parent:minimal";
  nlohmann::json doc = {{"context", context}, {"benchmarks", rows}};
  spawnlab::RecordNoise(doc, kCanaryRow);
  if (absl::Status s = spawnlab::WriteResultsFile(out, doc); !s.ok()) {
    fprintf(stderr, "crosscheck: %s; %s is as it was\n", std::string(s.message()).c_str(),
            out.c_str());
    return 1;
  }
  if (worker > 0) return 0;
  fprintf(stderr, "run: %s s, noisy: %s\nresults: %s\n",
          context["run.seconds"].get<std::string>().c_str(),
          doc["context"]["run.noisy"].get<std::string>().c_str(), out.c_str());
  return 0;
}
