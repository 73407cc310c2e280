// bench.cc: what do the everyday OS calls cost on this machine and kernel?
//
//   bazel run //experiments/syscalls:bench [-- --quick] [-- --disk_dir=DIR]
//
// Its rows and how each is measured: README.md, "Rows and method".

#include "bench/bench.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "lib/safe_file.h"
#include "lib/unique_fd.h"

ABSL_FLAG(std::string, disk_dir, "",
          "A folder on the disk to measure (default: the workspace, or the current folder).");

namespace spawnlab {
namespace {

// --disk_dir must be a folder this bench can make its scratch folder in:
// found before the run, not as five failed rows after it.
absl::Status CheckDiskDir() {
  const std::string dir = absl::GetFlag(FLAGS_disk_dir);
  if (dir.empty()) return absl::OkStatus();
  absl::StatusOr<TempDir> probe = TempDir::Make(".spawnlab-syscalls", dir);
  if (!probe.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--disk_dir=", dir, ": not a folder this bench can write in: ",
                     probe.status().message()));
  }
  return absl::OkStatus();
}

int saved_argc = 0;
char** saved_argv = nullptr;

struct Fs {
  const char* name;
  std::string parent;
};

std::string FsType(const std::string& dir) {
  struct statfs st;
  if (statfs(dir.c_str(), &st) != 0) return "unknown";
  switch (st.f_type) {
    case TMPFS_MAGIC:
      return "tmpfs";
    case EXT4_SUPER_MAGIC:
      return "ext2/3/4";
    case XFS_SUPER_MAGIC:
      return "xfs";
    case BTRFS_SUPER_MAGIC:
      return "btrfs";
    case OVERLAYFS_SUPER_MAGIC:
      return "overlayfs";
    default:
      return absl::StrCat("0x", absl::Hex(st.f_type));
  }
}

// The scratch folder for a row on `fs`, or a skip.
absl::StatusOr<TempDir> Scratch(const Fs& fs) {
  if (std::string(fs.name) == "tmpfs" && FsType(fs.parent) != "tmpfs") {
    return absl::UnavailableError(absl::StrCat(fs.parent, " is not a tmpfs here"));
  }
  return TempDir::Make(".spawnlab-syscalls", fs.parent);
}

// A 4 KiB file in the page cache, open read-write.
absl::StatusOr<UniqueFd> CachedFile(const TempDir& dir) {
  std::string path = dir.path() + "/file";
  UniqueFd fd(open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (!fd.valid()) return absl::ErrnoToStatus(errno, absl::StrCat("open ", path));
  char page[4096] = {};
  if (write(fd.get(), page, sizeof(page)) != sizeof(page)) {
    return absl::ErrnoToStatus(errno, "write");
  }
  return fd;
}

#define SCRATCH_OR_SKIP(var, fs)                                             \
  absl::StatusOr<TempDir> var = Scratch(fs);                              \
  if (!var.ok()) {                                                           \
    return absl::IsUnavailable(var.status()) ? SkipRow(state, var.status())  \
                                             : FailRow(state, var.status()); \
  }

void BM_OpenClose(benchmark::State& state, Fs fs) {
  SCRATCH_OR_SKIP(dir, fs);
  absl::StatusOr<UniqueFd> file = CachedFile(*dir);
  if (!file.ok()) return FailRow(state, file.status());
  const std::string path = dir->path() + "/file";
  for (auto _ : state) {
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return FailRow(state, absl::ErrnoToStatus(errno, "open"));
    close(fd);
  }
}

void BM_Close(benchmark::State& state, Fs fs) {
  SCRATCH_OR_SKIP(dir, fs);
  absl::StatusOr<UniqueFd> file = CachedFile(*dir);
  if (!file.ok()) return FailRow(state, file.status());
  const std::string path = dir->path() + "/file";
  constexpr int kBatch = 64;
  int fds[kBatch];
  for (auto _ : state) {
    for (int& fd : fds) fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fds[kBatch - 1] < 0) return FailRow(state, absl::ErrnoToStatus(errno, "open"));
    const int64_t t0 = MonotonicNanos();
    for (int fd : fds) close(fd);
    state.SetIterationTime(static_cast<double>(MonotonicNanos() - t0) * 1e-9 / kBatch);
  }
}

void BM_Read1k(benchmark::State& state, Fs fs) {
  SCRATCH_OR_SKIP(dir, fs);
  absl::StatusOr<UniqueFd> file = CachedFile(*dir);
  if (!file.ok()) return FailRow(state, file.status());
  char buf[1024];
  for (auto _ : state) {
    if (pread(file->get(), buf, sizeof(buf), 0) != sizeof(buf)) {
      return FailRow(state, absl::ErrnoToStatus(errno, "pread"));
    }
    benchmark::DoNotOptimize(buf);
  }
}

void BM_Write1k(benchmark::State& state, Fs fs) {
  SCRATCH_OR_SKIP(dir, fs);
  absl::StatusOr<UniqueFd> file = CachedFile(*dir);
  if (!file.ok()) return FailRow(state, file.status());
  char buf[1024];
  memset(buf, 'x', sizeof(buf));
  for (auto _ : state) {
    if (pwrite(file->get(), buf, sizeof(buf), 0) != sizeof(buf)) {
      return FailRow(state, absl::ErrnoToStatus(errno, "pwrite"));
    }
  }
}

void BM_MkdirRmdir(benchmark::State& state, Fs fs) {
  SCRATCH_OR_SKIP(dir, fs);
  const std::string d = dir->path() + "/d";
  for (auto _ : state) {
    if (mkdir(d.c_str(), 0755) != 0 || rmdir(d.c_str()) != 0) {
      return FailRow(state, absl::ErrnoToStatus(errno, "mkdir/rmdir"));
    }
  }
}

void BM_Chdir(benchmark::State& state) {
  absl::StatusOr<TempDir> dir = TempDir::Make(".spawnlab-syscalls", "/tmp");
  if (!dir.ok()) return FailRow(state, dir.status());
  const std::string a = dir->path() + "/a", b = dir->path() + "/b";
  mkdir(a.c_str(), 0755);
  mkdir(b.c_str(), 0755);
  char cwd[4096];
  if (getcwd(cwd, sizeof(cwd)) == nullptr)
    return FailRow(state, absl::ErrnoToStatus(errno, "getcwd"));
  bool flip = false;
  for (auto _ : state) {
    if (chdir((flip = !flip) ? a.c_str() : b.c_str()) != 0) {
      return FailRow(state, absl::ErrnoToStatus(errno, "chdir"));
    }
  }
  if (chdir(cwd) != 0) FailRow(state, absl::ErrnoToStatus(errno, "chdir back"));
}

void BM_Getcwd(benchmark::State& state) {
  char buf[4096];
  for (auto _ : state) benchmark::DoNotOptimize(getcwd(buf, sizeof(buf)));
}

constexpr char kBenchVar[] = "SPAWNLAB_BENCH_VAR";

// How many environment entries getenv and setenv pass before they reach the
// bench's variable: their cost grows with it, so the row records it.
double EntriesBefore(const char* name) {
  const size_t len = strlen(name);
  int n = 0;
  for (char** e = environ; *e != nullptr; ++e, ++n) {
    if (strncmp(*e, name, len) == 0 && (*e)[len] == '=') break;
  }
  return n;
}

void BM_Getenv(benchmark::State& state) {
  setenv(kBenchVar, "value", 1);
  for (auto _ : state) benchmark::DoNotOptimize(getenv(kBenchVar));
  state.counters["env_entries_before"] = EntriesBefore(kBenchVar);
}

void BM_Setenv(benchmark::State& state) {
  for (auto _ : state) setenv(kBenchVar, "value", 1);
  state.counters["env_entries_before"] = EntriesBefore(kBenchVar);
}

void BM_GetpidLibc(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(getpid());
}

void BM_GetpidSyscall(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(syscall(SYS_getpid));
}

void BM_Getppid(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(getppid());
}

void BM_Pipe2Close(benchmark::State& state) {
  int fds[2];
  for (auto _ : state) {
    if (pipe2(fds, O_CLOEXEC) != 0) return FailRow(state, absl::ErrnoToStatus(errno, "pipe2"));
    close(fds[0]);
    close(fds[1]);
  }
}

void BM_PipeRoundTrip(benchmark::State& state) {
  int there[2], back[2];
  if (pipe2(there, O_CLOEXEC) != 0 || pipe2(back, O_CLOEXEC) != 0) {
    return FailRow(state, absl::ErrnoToStatus(errno, "pipe2"));
  }
  UniqueFd there_r(there[0]), there_w(there[1]), back_r(back[0]), back_w(back[1]);
  // The echo thread inherits the bench's CPU pin: both ends share one CPU.
  std::thread echo([&] {
    char c;
    while (read(there_r.get(), &c, 1) == 1) {
      if (write(back_w.get(), &c, 1) != 1) break;
    }
  });
  char c = 'x';
  for (auto _ : state) {
    if (write(there_w.get(), &c, 1) != 1 || read(back_r.get(), &c, 1) != 1) {
      FailRow(state, absl::ErrnoToStatus(errno, "pipe round trip"));
      break;
    }
  }
  there_w.reset();  // EOF ends the echo thread
  echo.join();
}

void BM_Argv(benchmark::State& state) {
  for (auto _ : state) {
    size_t total = 0;
    for (int i = 0; i < saved_argc; ++i) total += strlen(saved_argv[i]);
    benchmark::DoNotOptimize(total);
  }
}

// Called once per round (BenchDefaults::rounds): every round registers
// every row once, in its shuffled order.
void Register(const BenchOptions& options) {
  saved_argc = options.argc;
  saved_argv = options.argv;
  std::string disk = absl::GetFlag(FLAGS_disk_dir);
  if (disk.empty()) {
    const char* ws = getenv("BUILD_WORKSPACE_DIRECTORY");
    disk = ws != nullptr ? ws : ".";
  }
  const Fs filesystems[] = {{"tmpfs", "/dev/shm"}, {"disk", disk}};
  if (options.round == 0) {
    for (const Fs& fs : filesystems) {
      benchmark::AddCustomContext(absl::StrCat("syscalls.fs.", fs.name),
                                  absl::StrCat(fs.parent, " (", FsType(fs.parent), ")"));
    }
  }
  std::vector<RoundRow> rows;
  auto add = [&rows](const std::string& name, auto fn, auto... args) {
    rows.push_back({name, [fn, args...](benchmark::State& state) { fn(state, args...); },
                    Clock::kLibrary});
  };
  add("syscall/op:getppid", BM_Getppid);
  add("syscall/op:getpid/via:libc", BM_GetpidLibc);
  add("syscall/op:getpid/via:syscall", BM_GetpidSyscall);
  for (const Fs& fs : filesystems) {
    const std::string f = absl::StrCat("/fs:", fs.name);
    add("syscall/op:open-close" + f, BM_OpenClose, fs);
    // Only the closes are timed, so a minimum time would take tens of thousands
    // of iterations, each opening 64 descriptors untimed: a fixed count instead.
    rows.push_back({"syscall/op:close" + f, [fs](benchmark::State& state) { BM_Close(state, fs); },
                    Clock::kManual,
                    [quick = options.quick](benchmark::internal::Benchmark* b) {
                      b->Iterations(quick ? 20 : 500)->Unit(benchmark::kNanosecond);
                    }});
    add("syscall/op:read-1k" + f, BM_Read1k, fs);
    add("syscall/op:write-1k" + f, BM_Write1k, fs);
    add("syscall/op:mkdir-rmdir" + f, BM_MkdirRmdir, fs);
  }
  add("syscall/op:getenv", BM_Getenv);
  add("syscall/op:setenv", BM_Setenv);
  add("syscall/op:chdir", BM_Chdir);
  add("syscall/op:getcwd", BM_Getcwd);
  add("syscall/op:argv", BM_Argv);
  add("syscall/op:pipe2-close", BM_Pipe2Close);
  add("syscall/op:pipe-roundtrip", BM_PipeRoundTrip);
  RegisterRound(options, std::move(rows));
}

// The bench's declaration: its rounds, canary and key ratios (bench.h: BenchDefaults).
BenchDefaults Declare() {
  BenchDefaults defaults;
  // In rounds: each measures every row once, in a shuffled order, so that a
  // row's repetition k and its baseline's ran in the same round (README,
  // "Reproducibility").
  defaults.rounds = 25;
  // Each repetition runs 0.02 s at least (tens of thousands of calls of
  // these sub-microsecond rows): a process of every row stays short enough
  // that, in a suite's share of time, the processes after the first few,
  // which measure the key ratio's rows only, can narrow its interval.
  defaults.min_time = 0.02;
  // Drift: this row, once per round (README, "Noisy runs").
  defaults.canary_row = "syscall/op:getpid/via:syscall";
  // Key ratios, each row over its baseline in the same round (README, "Reproducibility").
  defaults.ratio_baselines = {{"via", "syscall"}};
  defaults.check_flags = CheckDiskDir;
  return defaults;
}

}  // namespace
}  // namespace spawnlab

SPAWNLAB_BENCH_MAIN("syscalls", spawnlab::Register, spawnlab::Declare)
