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

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "bench/bench_lock.h"
#include "bench/bench_processes.h"
#include "bench/environment.h"
#include "bench/run_record.h"
#include "lib/runfiles.h"
#include "lib/safe_file.h"
#include "nlohmann/json.hpp"
#include "results_model/bench_results.h"
#include "results_model/context_keys.h"
#include "results_model/stats.h"
#include "results_model/stopping.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14; glibc 2.36 headers may lack it
#endif

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
// where a parent's pages lie in physical memory moves its fork (README.md), so
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
    // The scratch is gone before the parent's turn: only that its pages were
    // taken matters, not how. The kernel takes them without a fault each
    // (Linux 5.14); touched page by page, a soak of gigabytes (it grows with
    // the machine's fragmentation) made most of a round's time.
    if (madvise(scratch, soak, MADV_POPULATE_WRITE) != 0) TouchPages(scratch, soak);
  }
  void* ballast = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (ballast == MAP_FAILED) Die("mmap");
  madvise(ballast, bytes, MADV_NOHUGEPAGE);
  TouchPages(ballast, bytes);
  if (scratch != nullptr) munmap(scratch, soak);
  return ballast;
}

// Under --max_seconds, the fewest processes a run still makes.
constexpr int kMinCappedProcesses = 3;

// The drift canary: measured in every round, in the minimal parent.
const char kCanaryRow[] = "crosscheck/way:lat_proc/op:vfork-exec/parent:minimal";

int Usage() {
  fprintf(stderr,
          "usage: crosscheck [--quick] [--full] [--out=PATH] [--processes=N] [--rounds=N] "
          "[--max_seconds=S] [--minimal_child=PATH] [--c_child=PATH] [--lock=wait|fail|none] "
          "[--list_rows]\n"
          "  --full           accepted, as the benches take it: every row is always measured\n"
          "  --processes=N    fresh processes, one after another (default 10; 1 with --quick)\n"
          "  --rounds=N       rounds in each process (default 3; 2 with --quick)\n"
          "  --max_seconds=S  start no process that would end after S seconds from the first\n"
          "                   (at least 3 run; the suite's share of its budget); 0: no cap\n");
  return 2;
}

// What a run is asked for: the flags (see Usage), with the defaults filled in
// by ResolveDefaults.
struct Options {
  bool quick = false;
  std::string out, lock_mode = "wait", child, c_child;
  int processes = 0, rounds = 0;
  double max_seconds = 0;  // 0: every one of `processes`
  int worker = 0, workers = 0;  // process K of N, in a run of several (RunProcesses)
};

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

// Reads argv into `o`; the exit code where the run ends here (2 for a usage
// error, 0 after --list_rows).
std::optional<int> ParseFlags(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](absl::string_view flag) -> std::optional<std::string> {
      if (!absl::StartsWith(a, flag)) return std::nullopt;
      return a.substr(flag.size());
    };
    if (a == "--quick") {
      o.quick = true;
    } else if (a == "--full") {  // the suite's, for every bench; all rows are this run's
    } else if (a == "--list_rows") {
      ListRows();
      return 0;
    } else if (auto v = value("--processes=")) {
      if (!absl::SimpleAtoi(*v, &o.processes) || o.processes < 1) return Usage();
    } else if (auto v = value("--rounds=")) {
      if (!absl::SimpleAtoi(*v, &o.rounds) || o.rounds < 1) return Usage();
    } else if (auto v = value("--max_seconds=")) {
      if (!absl::SimpleAtod(*v, &o.max_seconds) || !(o.max_seconds >= 0)) return Usage();
    } else if (auto v = value("--spawnlab_worker=")) {
      std::vector<std::string> kn = absl::StrSplit(*v, '/');
      if (kn.size() != 2 || !absl::SimpleAtoi(kn[0], &o.worker) ||
          !absl::SimpleAtoi(kn[1], &o.workers) || o.worker < 1 || o.worker > o.workers) {
        return Usage();
      }
    } else if (auto v = value("--out=")) {
      o.out = *v;
    } else if (auto v = value("--minimal_child=")) {
      o.child = *v;
    } else if (auto v = value("--c_child=")) {
      o.c_child = *v;
    } else if (auto v = value("--lock=")) {
      o.lock_mode = *v;
      if (o.lock_mode != "wait" && o.lock_mode != "fail" && o.lock_mode != "none") return Usage();
    } else {
      return Usage();
    }
  }
  return std::nullopt;
}

// Fills in the defaults (the children from the runfiles, the results beside
// the bench's, the processes and rounds) and checks the paths; the exit code
// where they will not do.
std::optional<int> ResolveDefaults(Options& o) {
  for (auto [path, runfile] : {std::pair(&o.child, "lib/children/minimal_child"),
                               std::pair(&o.c_child, "lib/children/dynamic_c_child")}) {
    if (!path->empty()) continue;  // its data, wherever it runs from (bazel run, the suite, a test)
    absl::StatusOr<std::string> found = spawnlab::Runfile(runfile);
    *path = found.ok() ? *found : runfile;
  }
  for (const auto& [path, flag] :
       {std::pair(o.child, "--minimal_child"), std::pair(o.c_child, "--c_child")}) {
    if (access(path.c_str(), X_OK) != 0) {
      fprintf(stderr, "crosscheck: %s: %s (give %s=PATH)\n", path.c_str(), strerror(errno), flag);
      return 2;
    }
  }
  // Paths as typed, from where `bazel run` was started; the default beside
  // the bench's results (bench/bench.h), a quick run beside the full one.
  const char* cwd = getenv("BUILD_WORKING_DIRECTORY");
  if (!o.out.empty() && o.out[0] != '/' && cwd != nullptr) o.out = std::string(cwd) + "/" + o.out;
  if (o.out.empty()) {
    const char* ws = getenv("BUILD_WORKSPACE_DIRECTORY");
    o.out = std::string(ws ? ws : ".") + "/results/" + spawnlab::KernelRelease() + "/" +
            spawnlab::HostId() + "/crosscheck" + (o.quick ? ".quick" : "") + ".json";
  }
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(o.out).parent_path(), ec);
  if (ec) {
    fprintf(stderr, "crosscheck: cannot create the folder for %s: %s\n", o.out.c_str(),
            ec.message().c_str());
    return 2;
  }
  if (absl::StatusOr<spawnlab::WriteTarget> t = spawnlab::CheckWriteTarget(o.out); !t.ok()) {
    fprintf(stderr, "crosscheck: --out: %s\n", std::string(t.status().message()).c_str());
    return 2;
  }
  // Several fresh processes (bench/bench_processes.h): the 1 GiB parent's
  // fork time differs more between processes than within one (README.md, "The
  // cross-check: rows and method").
  if (o.processes == 0) o.processes = o.quick || o.worker > 0 ? 1 : 10;
  if (o.rounds == 0) o.rounds = o.quick ? 2 : 3;
  return std::nullopt;
}

// spawnbench's minimum is over every spawn, not over the rounds' averages:
// in merged rows, the fastest of each round's fastest spawn (fastest_us).
void UseFastestSpawnAsMin(nlohmann::json& doc) {
  for (nlohmann::json& row : doc["benchmarks"]) {
    if (row.value("run_type", "") == "aggregate" && row.value("aggregate_name", "") == "min" &&
        row.contains("fastest_us") && row["fastest_us"].is_number()) {
      row["real_time"] = row["fastest_us"];
    }
  }
}

// The merged rows, as a run of one process prints them.
void PrintMergedRows(const nlohmann::json& doc) {
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
}

// The parent of a run of several processes: runs them one after another,
// merges, prints and writes their rows. Returns the exit code.
int RunAsProcesses(const Options& o, int argc, char** argv, const std::string& lock_story) {
  std::vector<std::string> args =
      spawnlab::WithoutFlags(std::vector<std::string>(argv, argv + argc),
                             {"--processes", "--rounds", "--out", "--lock", "--spawnlab_worker", "--max_seconds"});
  fprintf(stderr, "crosscheck: %d processes, one after another, each %d rounds%s; results: %s\n",
          o.processes, o.rounds,
          o.max_seconds > 0
              ? absl::StrFormat(", fewer if another would end after %g s (at least %d)",
                                o.max_seconds, kMinCappedProcesses)
                    .c_str()
              : "",
          o.out.c_str());
  std::string stopped_by = absl::StrCat("the most processes (", o.processes, ")");
  std::string reason = spawnlab::keys::stop_reason::kMostProcesses;
  absl::StatusOr<nlohmann::json> merged = spawnlab::RunProcesses(
      args, o.processes, o.out,
      [&](int k, const std::string& part) {
        return std::vector<std::string>{absl::StrCat("--spawnlab_worker=", k, "/", o.processes),
                                        "--processes=1", absl::StrCat("--rounds=", o.rounds),
                                        "--lock=none", "--out=" + part};
      },
      kCanaryRow, [&](const nlohmann::json&, int k, double elapsed) {
        // As the benches' time cap (bench.h): no process that would end past it.
        spawnlab::StopVerdict v;
        v.stop = o.max_seconds > 0 && k >= kMinCappedProcesses && k < o.processes &&
                 elapsed + elapsed / k > o.max_seconds;
        if (v.stop) {
          stopped_by = absl::StrFormat("the time cap (another process would end after %g s)",
                                       o.max_seconds);
          v.say = absl::StrCat("stopped by ", stopped_by);
          reason = spawnlab::keys::stop_reason::kTimeCap;
        }
        return v;
      });
  if (!merged.ok()) {
    fprintf(stderr, "crosscheck: %s; nothing written, %s is as it was\n",
            std::string(merged.status().message()).c_str(), o.out.c_str());
    return 1;
  }
  nlohmann::json& doc = *merged;
  UseFastestSpawnAsMin(doc);
  PrintMergedRows(doc);
  nlohmann::json& context = doc["context"];
  context["run.lock"] = lock_story;
  int ran = o.processes;  // fewer where the time cap stopped it
  absl::SimpleAtoi(context.value(spawnlab::keys::kProcesses, ""), &ran);
  context[spawnlab::keys::kRounds] = std::to_string(ran * o.rounds);
  context[spawnlab::keys::kRoundsPerProcess] = std::to_string(o.rounds);
  spawnlab::StoppingRecord record;
  record.rule = o.max_seconds > 0 ? absl::StrFormat(
                                        "%d processes, fewer if another would end after %g s "
                                        "(at least %d)",
                                        o.processes, o.max_seconds, kMinCappedProcesses)
                                  : absl::StrCat("fixed: --processes=", o.processes);
  record.stopped_by = stopped_by;
  record.reason = reason;
  record.max_seconds = o.max_seconds;
  record.own_max_seconds = 0;  // its own plan has no cap: one is always --max_seconds
  spawnlab::WriteStopping(record, &context);
  if (absl::Status s = spawnlab::WriteResultsFile(o.out, doc); !s.ok()) {
    fprintf(stderr, "crosscheck: %s; %s is as it was\n", std::string(s.message()).c_str(),
            o.out.c_str());
    return 1;
  }
  fprintf(stderr, "run: %s s in %d processes, noisy: %s\nresults: %s\n",
          context["run.seconds"].get<std::string>().c_str(), ran,
          context["run.noisy"].get<std::string>().c_str(), o.out.c_str());
  return context.value("run.a_process_failed", "") == "yes" ? 1 : 0;
}

// Pins this process to the last CPU it may run on, as the bench pins its
// spawner (lib/pin.h, not shared: written apart); that CPU, or -1.
int PinToLastCpu() {
  cpu_set_t allowed, one;
  if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) return -1;
  for (int c = CPU_SETSIZE - 1; c >= 0; --c) {
    if (!CPU_ISSET(c, &allowed)) continue;
    CPU_ZERO(&one);
    CPU_SET(c, &one);
    return sched_setaffinity(0, sizeof(one), &one) == 0 ? c : -1;
  }
  return -1;
}

// One process's measurements.
struct Measurements {
  // By row name: lat_proc's repetitions; spawnbench's every spawn, each
  // round's average and each round's fastest spawn (the bench's fastest_us);
  // each repetition's page faults per child.
  std::map<std::string, std::vector<double>> lat, sb_all, sb_rounds, sb_fastest, faults;
  // By parent, each turn's: where the ballast lay (ballast_adjacent) and the
  // parent's size.
  std::map<std::string, std::vector<double>> adjacent;
  std::map<std::string, std::vector<Shape>> shapes;
};

// How a process measures: spawns per repetition and the clock pipe spawnbench's
// children write their first reading to.
struct Loop {
  int lat_n, sb_n;
  int clock_fd;           // the pipe's read end
  std::string clock_arg;  // its inherited write end, as the child's argument
};

// One parent's turn in a round: the ballast made (for a ballast parent), each
// op once as a warm-up, then the ops in a shuffled order, each timed both
// ways; the ballast unmapped after, so that the parent between turns is the
// minimal one.
void ParentTurn(const Parent& parent, const Loop& loop, std::mt19937& shuffle, Measurements& m) {
  void* ballast = nullptr;
  if (parent.ballast > 0) {
    ballast = PlacedBallast(parent.ballast);
    m.adjacent[parent.name].push_back(AdjacentFrames(ballast, parent.ballast));
  }
  m.shapes[parent.name].push_back(OwnShape());
  std::vector<const Op*> order;
  for (const Op& op : kOps) {
    if (parent.runs(op)) order.push_back(&op);
  }
  child_argv[1] = const_cast<char*>("-");
  for (const Op* op : order) Reap(op->spawn());
  std::shuffle(order.begin(), order.end(), shuffle);
  for (const Op* op : order) {
    child_argv[1] = const_cast<char*>("-");
    const std::string lat_row = RowName("lat_proc", *op, parent);
    double lat_faults = 0;
    m.lat[lat_row].push_back(LatProcRepetition(*op, loop.lat_n, &lat_faults));
    m.faults[lat_row].push_back(lat_faults);
    if (!SpawnBenchRuns(*op, parent)) continue;
    child_argv[1] = const_cast<char*>(loop.clock_arg.c_str());
    std::vector<double> us;
    double sb_faults = 0;
    SpawnBenchSpawns(*op, loop.sb_n, loop.clock_fd, &us, &sb_faults);
    const std::string row = RowName("spawnbench", *op, parent);
    m.sb_rounds[row].push_back(spawnlab::Mean(us));
    m.sb_fastest[row].push_back(spawnlab::Min(us));
    m.faults[row].push_back(sb_faults);
    m.sb_all[row].insert(m.sb_all[row].end(), us.begin(), us.end());
  }
  if (ballast != nullptr) munmap(ballast, parent.ballast);
}

// Rounds outermost: in each, the parents in a shuffled order, so that drift
// falls on the ballast rows and on the minimal rows alike (their ratio is one
// the report checks; README.md, "The cross-check: rows and method").
Measurements MeasureRounds(const Options& o, const Loop& loop) {
  Measurements m;
  std::mt19937 shuffle(12345 + 1000 * o.worker);  // each process its own orders
  std::vector<const Parent*> parents;
  for (const Parent& p : kParents) parents.push_back(&p);
  for (int r = 0; r < o.rounds; ++r) {
    std::shuffle(parents.begin(), parents.end(), shuffle);
    for (const Parent* parent : parents) ParentTurn(*parent, loop, shuffle, m);
    if (o.worker > 0) {
      fprintf(stderr, "process %d/%d: round %d of %d done\n", o.worker, o.workers, r + 1, o.rounds);
    } else {
      fprintf(stderr, "round %d of %d done\n", r + 1, o.rounds);
    }
  }
  return m;
}

// One row in Google Benchmark's layout: a row per repetition, then the
// aggregates. A repetition carries its page faults per child, spawnbench's
// fastest spawn, where its round's ballast lay (ballast_adjacent, as the
// bench's counter) where known, and the parent's size at its turn.
struct RowData {
  std::string name, parent;
  std::vector<double> reps;
  std::map<std::string, double> aggregates;
  int iterations;
  std::vector<double> faults, fastest;
};

void AddRow(const RowData& d, const Measurements& m, bool print, nlohmann::json& rows) {
  const std::vector<double>& turns =
      m.adjacent.count(d.parent) ? m.adjacent.at(d.parent) : std::vector<double>{};
  const std::vector<Shape>& sizes =
      m.shapes.count(d.parent) ? m.shapes.at(d.parent) : std::vector<Shape>{};
  for (size_t k = 0; k < d.reps.size(); ++k) {
    nlohmann::json row = {{"name", d.name},          {"run_name", d.name},
                          {"run_type", "iteration"}, {"repetitions", d.reps.size()},
                          {"repetition_index", k},   {"iterations", d.iterations},
                          {"real_time", d.reps[k]},  {"cpu_time", 0.0},
                          {"time_unit", "us"}};
    if (k < turns.size() && turns[k] >= 0) row["ballast_adjacent"] = turns[k];
    if (k < d.fastest.size()) row["fastest_us"] = d.fastest[k];
    if (k < d.faults.size()) row["child_faults"] = d.faults[k];
    if (k < sizes.size()) {
      row["parent_rss_kib"] = sizes[k].rss_kib;
      row["parent_pte_kib"] = sizes[k].pte_kib;
      row["parent_threads"] = sizes[k].threads;
      row["parent_mappings"] = sizes[k].mappings;
    }
    rows.push_back(std::move(row));
  }
  for (const auto& [agg, value] : d.aggregates) {
    rows.push_back({{"name", d.name + "_" + agg},
                    {"run_name", d.name},
                    {"run_type", "aggregate"},
                    {"aggregate_name", agg},
                    {"aggregate_unit", "time"},
                    {"repetitions", d.reps.size()},
                    {"iterations", d.reps.size()},
                    {"real_time", value},
                    {"cpu_time", 0.0},
                    {"time_unit", "us"}});
  }
  if (!print) return;  // a process of several: the parent prints the merged rows
  fprintf(stderr, "%-58s", d.name.c_str());
  for (const auto& [agg, value] : d.aggregates) fprintf(stderr, " %s %9.1f us", agg.c_str(), value);
  fprintf(stderr, "\n");
}

// Every row of one process's measurements: lat_proc's min and median over
// its repetitions; spawnbench's mean and min over every spawn and median over
// the rounds' averages.
nlohmann::json Rows(const Measurements& m, const Loop& loop, bool print) {
  nlohmann::json rows = nlohmann::json::array();
  auto at = [](const std::map<std::string, std::vector<double>>& by, const std::string& row) {
    auto it = by.find(row);
    return it == by.end() ? std::vector<double>{} : it->second;
  };
  for (const Parent& parent : kParents) {
    for (const Op& op : kOps) {
      if (!parent.runs(op)) continue;
      const std::string lat_row = RowName("lat_proc", op, parent);
      const std::vector<double> l = at(m.lat, lat_row);
      AddRow({lat_row,
              parent.name,
              l,
              {{"min", spawnlab::Min(l)}, {"median", spawnlab::Median(l)}},
              loop.lat_n,
              at(m.faults, lat_row),
              {}},
             m, print, rows);
      if (!SpawnBenchRuns(op, parent)) continue;
      const std::string row = RowName("spawnbench", op, parent);
      const std::vector<double> all = at(m.sb_all, row);
      AddRow({row,
              parent.name,
              at(m.sb_rounds, row),
              {{"mean", spawnlab::Mean(all)},
               {"min", spawnlab::Min(all)},
               {"median", spawnlab::Median(at(m.sb_rounds, row))}},
              loop.sb_n,
              at(m.faults, row),
              at(m.sb_fastest, row)},
             m, print, rows);
    }
  }
  return rows;
}

// The same environment record as every bench's (collected after measuring),
// and how this run was made.
nlohmann::json Context(const Options& o, const spawnlab::MachineSample& before,
                       const spawnlab::MachineSample& after, const std::string& lock_story,
                       int pinned, int64_t mappings) {
  namespace keys = spawnlab::keys;
  nlohmann::json context = nlohmann::json::object();
  for (const auto& [key, value] : spawnlab::CollectEnvironment()) context[key] = value;
  for (const auto& [key, value] : spawnlab::DescribeRun(before, after)) context[key] = value;
  context["run.lock"] = lock_story;
  context[keys::kExperiment] = "crosscheck";
  context[keys::kQuick] = o.quick ? "true" : "false";
  context[keys::kRunKind] = o.quick ? "quick" : "full";
  context[keys::kPinnedCpu] = pinned < 0 ? "none" : std::to_string(pinned);
  context[keys::kParentMappings] = std::to_string(mappings);
  context[keys::kWay] =
      "independent of lib/spawn and Google Benchmark: lat_proc and spawnbench loops in a "
      "static single-threaded parent";
  context[keys::kRounds] = std::to_string(o.rounds);
  if (o.worker > 0) context[keys::kProcess] = absl::StrCat(o.worker, "/", o.workers);
  context[keys::kChildEnvironment] = "empty";
  // As every bench records them (bench/bench.h): the key ratios' baselines, for
  // //analysis:compare --self_check (each op over vfork-exec, each parent over
  // the minimal one, paired within rounds).
  context[keys::kRatioBaseline] = "op:vfork-exec,parent:minimal";
  return context;
}

// A run in this process: pinned, measured, written. Returns the exit code.
int RunHere(Options& o, const std::string& lock_story) {
  if (o.worker > 0) {
    // Nothing outlives the run: a parent that dies takes this process along.
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() == 1) return 1;
  }
  const int pinned = PinToLastCpu();
  int fds[2];
  if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) Die("pipe2");
  const Loop loop = {o.quick ? 3 : 40, o.quick ? 3 : 40, fds[0],
                     std::to_string(fcntl(fds[1], F_DUPFD, 3))};
  child_argv[0] = o.child.data();
  child_argv[2] = nullptr;
  c_child_argv[0] = o.c_child.data();
  c_child_argv[1] = const_cast<char*>("-");
  c_child_argv[2] = nullptr;
  const int64_t mappings = OwnMappings();  // before the ballast

  const spawnlab::MachineSample before = spawnlab::SampleMachine();
  const Measurements m = MeasureRounds(o, loop);
  const spawnlab::MachineSample after = spawnlab::SampleMachine();

  nlohmann::json doc = {{"context", Context(o, before, after, lock_story, pinned, mappings)},
                        {"benchmarks", Rows(m, loop, o.worker == 0)}};
  // The drift canary, one row's time round by round, marks a run noisy as it
  // does a bench's.
  spawnlab::RecordNoise(doc, kCanaryRow);
  if (absl::Status s = spawnlab::WriteResultsFile(o.out, doc); !s.ok()) {
    fprintf(stderr, "crosscheck: %s; %s is as it was\n", std::string(s.message()).c_str(),
            o.out.c_str());
    return 1;
  }
  if (o.worker > 0) return 0;
  fprintf(stderr, "run: %s s, noisy: %s\nresults: %s\n",
          doc["context"]["run.seconds"].get<std::string>().c_str(),
          doc["context"]["run.noisy"].get<std::string>().c_str(), o.out.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (std::optional<int> code = ParseFlags(argc, argv, o)) return *code;
  if (std::optional<int> code = ResolveDefaults(o)) return *code;
  std::optional<spawnlab::BenchLock> lock;
  absl::StatusOr<std::string> lock_story =
      spawnlab::TakeBenchLock("crosscheck", o.lock_mode, "", lock);
  if (!lock_story.ok()) {
    fprintf(stderr, "error: %s\n", std::string(lock_story.status().message()).c_str());
    return absl::IsFailedPrecondition(lock_story.status()) ? 3 : 1;
  }
  if (o.processes > 1) return RunAsProcesses(o, argc, argv, *lock_story);
  return RunHere(o, *lock_story);
}
