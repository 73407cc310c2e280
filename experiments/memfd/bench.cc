// bench.cc: does exec'ing from a descriptor or from memory beat exec by path?
//
//   bazel run //experiments/memfd:bench [-- --quick]
//
// The static child (lib/children), spawned by vfork and reaped, exec'd from:
//   exec/source:path/cache:C        execve by its path
//   exec/source:o_path/cache:C      execveat(AT_EMPTY_PATH) of an O_PATH
//                                   descriptor opened once
//   exec/source:memfd-once/seal:X   a memfd filled once with the binary, X =
//                                   none or sealed (F_SEAL_WRITE, _SHRINK,
//                                   _GROW, _SEAL)
//   exec/source:memfd-each/seal:none  a memfd created and filled before every
//                                   exec (fexecve's typical use), all timed
// C = warm, or cold: the file's pages dropped with posix_fadvise before every
// exec (untimed); skipped with the reason where they cannot be dropped.
// memfd_create and execveat are probed; a kernel without them skips the rows.

#include "lib/bench.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "lib/page_cache.h"
#include "lib/probes.h"
#include "lib/runfiles.h"
#include "lib/timed_spawn.h"
#include "lib/unique_fd.h"

namespace spawnlab {
namespace {

std::string child_path;
std::string child_bytes;

// A memfd holding the child, sealed if asked.
absl::StatusOr<UniqueFd> MemfdWithChild(bool sealed) {
  UniqueFd fd(memfd_create("spawnlab-child", MFD_CLOEXEC | (sealed ? MFD_ALLOW_SEALING : 0)));
  if (!fd.valid()) return absl::ErrnoToStatus(errno, "memfd_create");
  size_t done = 0;
  while (done < child_bytes.size()) {
    ssize_t n = write(fd.get(), child_bytes.data() + done, child_bytes.size() - done);
    if (n < 0) return absl::ErrnoToStatus(errno, "write to the memfd");
    done += static_cast<size_t>(n);
  }
  if (sealed &&
      fcntl(fd.get(), F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
    return absl::ErrnoToStatus(errno, "F_ADD_SEALS");
  }
  return fd;
}

enum class Source { kPath, kOPath, kMemfdOnce, kMemfdEach };

void BM_Exec(benchmark::State& state, Source source, bool cold, bool sealed) {
  if (source != Source::kPath) {
    if (absl::Status s = ProbeExecveat(); !s.ok()) return SkipRow(state, s);
  }
  if (source == Source::kMemfdOnce || source == Source::kMemfdEach) {
    if (absl::Status s = ProbeMemfdCreate(); !s.ok()) return SkipRow(state, s);
  }
  absl::StatusOr<TimedSpawner> spawner = TimedSpawner::Create(child_path);
  absl::StatusOr<PageCacheFile> file = PageCacheFile::Open(child_path);
  if (!spawner.ok()) return FailRow(state, spawner.status());
  if (!file.ok()) return FailRow(state, file.status());
  UniqueFd exec_fd;
  if (source == Source::kOPath) {
    exec_fd.reset(open(child_path.c_str(), O_PATH | O_CLOEXEC));
    if (!exec_fd.valid()) return FailRow(state, absl::ErrnoToStatus(errno, "open O_PATH"));
  } else if (source == Source::kMemfdOnce) {
    absl::StatusOr<UniqueFd> m = MemfdWithChild(sealed);
    if (!m.ok()) return FailRow(state, m.status());
    exec_fd = *std::move(m);
  }
  SpawnOptions options;
  options.exec_fd = exec_fd.get();
  if (cold) {
    if (absl::Status s = file->Evict(); !s.ok()) return SkipRow(state, s);
  } else if (absl::StatusOr<SpawnTimes> w = spawner->Once(SpawnMethod::kVfork, options); !w.ok()) {
    return FailRow(state, w.status());
  }
  for (auto _ : state) {
    if (cold) {
      if (absl::Status s = file->Evict(); !s.ok()) return SkipRow(state, s);
    }
    const int64_t t0 = MonotonicNanos();
    UniqueFd each;
    if (source == Source::kMemfdEach) {
      absl::StatusOr<UniqueFd> m = MemfdWithChild(false);
      if (!m.ok()) return FailRow(state, m.status());
      each = *std::move(m);
      options.exec_fd = each.get();
    }
    absl::StatusOr<SpawnTimes> t = spawner->Once(SpawnMethod::kVfork, options);
    each.reset();
    const int64_t t1 = MonotonicNanos();
    if (!t.ok()) {
      FailRow(state, t.status());
      break;
    }
    // memfd-each counts creating and filling the memfd; the others, the spawn.
    state.SetIterationTime(
        static_cast<double>(source == Source::kMemfdEach ? t1 - t0 : t->to_exit_ns) * 1e-9);
  }
}

void Register(const BenchOptions& options) {
  child_path = RunfileOrExit("lib/children/static_child");
  std::ifstream in(child_path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  child_bytes = ss.str();
  benchmark::AddCustomContext("memfd.child_bytes", absl::StrCat(child_bytes.size()));
  auto add = [&](const std::string& name, Source source, bool cold, bool sealed) {
    Configure(benchmark::RegisterBenchmark(name.c_str(), BM_Exec, source, cold, sealed), options);
  };
  add("exec/source:path/cache:warm/until:exit", Source::kPath, false, false);
  add("exec/source:path/cache:cold/until:exit", Source::kPath, true, false);
  add("exec/source:o_path/cache:warm/until:exit", Source::kOPath, false, false);
  add("exec/source:o_path/cache:cold/until:exit", Source::kOPath, true, false);
  add("exec/source:memfd-once/seal:none/until:exit", Source::kMemfdOnce, false, false);
  add("exec/source:memfd-once/seal:sealed/until:exit", Source::kMemfdOnce, false, true);
  add("exec/source:memfd-each/seal:none/until:exit", Source::kMemfdEach, false, false);
}

}  // namespace
}  // namespace spawnlab

int main(int argc, char** argv) {
  spawnlab::BenchDefaults defaults;
  defaults.random_interleaving = true;
  // Drift: this row, once per round of the interleaved run (README, "Noisy runs").
  defaults.canary_row = "exec/source:path/cache:warm/until:exit";
  // Key ratios, each row over its baseline in the same round (README, "Reproducibility").
  defaults.ratio_baselines = {{"source", "path"}};
  return spawnlab::BenchMain(argc, argv, "memfd", spawnlab::Register, defaults);
}
