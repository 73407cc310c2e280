// bench.cc: does exec'ing from a descriptor or from memory beat exec by path?
//
//   bazel run //experiments/memfd:bench [-- --quick]
//
// Its rows and how each is measured: README.md, "Rows and method".

#include "bench/bench.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <utility>
#include <memory>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "lib/page_cache.h"
#include "lib/probes.h"
#include "lib/runfiles.h"
#include "bench/timed_spawn.h"
#include "bench/together.h"
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

struct Variant {
  std::string name;
  Source source;
  bool cold = false;
  bool sealed = false;
};

// Why `v` cannot be measured here, or OK. Probed once per variant.
absl::Status WhyUnavailable(const Variant& v) {
  if (v.source != Source::kPath) {
    if (absl::Status s = ProbeExecveat(); !s.ok()) return s;
  }
  if (v.source == Source::kMemfdOnce || v.source == Source::kMemfdEach) {
    if (absl::Status s = ProbeMemfdCreate(); !s.ok()) return s;
  }
  if (v.cold) {
    absl::StatusOr<PageCacheFile> file = PageCacheFile::Open(child_path);
    if (!file.ok()) return file.status();
    return file->Evict();
  }
  return absl::OkStatus();
}

// One variant, set up: each call of Once evicts the file if cold (untimed),
// then execs the child and returns the nanoseconds to reaped (memfd-each:
// creating and filling the memfd too).
class Exec {
 public:
  static absl::StatusOr<std::unique_ptr<Exec>> Prepare(const Variant& v) {
    absl::StatusOr<TimedSpawner> spawner = TimedSpawner::Create(child_path);
    if (!spawner.ok()) return spawner.status();
    absl::StatusOr<PageCacheFile> file = PageCacheFile::Open(child_path);
    if (!file.ok()) return file.status();
    auto e = std::unique_ptr<Exec>(new Exec(v, *std::move(spawner), *std::move(file)));
    if (v.source == Source::kOPath) {
      e->exec_fd_.reset(open(child_path.c_str(), O_PATH | O_CLOEXEC));
      if (!e->exec_fd_.valid()) return absl::ErrnoToStatus(errno, "open O_PATH");
    } else if (v.source == Source::kMemfdOnce) {
      absl::StatusOr<UniqueFd> m = MemfdWithChild(v.sealed);
      if (!m.ok()) return m.status();
      e->exec_fd_ = *std::move(m);
    }
    return e;
  }

  absl::StatusOr<int64_t> Once() {
    if (v_.cold) {
      if (absl::Status s = file_.Evict(); !s.ok()) return s;
    }
    SpawnOptions options;
    options.exec_fd = exec_fd_.get();
    const int64_t t0 = MonotonicNanos();
    UniqueFd each;
    if (v_.source == Source::kMemfdEach) {
      absl::StatusOr<UniqueFd> m = MemfdWithChild(false);
      if (!m.ok()) return m.status();
      each = *std::move(m);
      options.exec_fd = each.get();
    }
    absl::StatusOr<SpawnTimes> t = spawner_.Once(SpawnMethod::kVfork, options);
    each.reset();
    const int64_t t1 = MonotonicNanos();
    if (!t.ok()) return t.status();
    // memfd-each counts creating and filling the memfd; the others, the spawn.
    return v_.source == Source::kMemfdEach ? t1 - t0 : t->to_exit_ns;
  }

 private:
  Exec(Variant v, TimedSpawner spawner, PageCacheFile file)
      : v_(std::move(v)), spawner_(std::move(spawner)), file_(std::move(file)) {}
  Variant v_;
  TimedSpawner spawner_;
  PageCacheFile file_;
  UniqueFd exec_fd_;
};

// The variants of a group, set up, then run by Alternate.
absl::StatusOr<std::vector<PartTime>> MeasureGroup(const std::vector<Variant>& group,
                                                   double min_seconds) {
  std::vector<std::unique_ptr<Exec>> execs;
  std::vector<std::function<absl::StatusOr<int64_t>()>> parts;
  for (const Variant& v : group) {
    absl::StatusOr<std::unique_ptr<Exec>> e = Exec::Prepare(v);
    if (!e.ok()) return e.status();
    execs.push_back(*std::move(e));
    parts.push_back([exec = execs.back().get()] { return exec->Once(); });
  }
  return Alternate(parts, min_seconds);
}

// The rows, in the order reports list them, each with its group: the rows of
// a group are measured together, their execs alternating (bench/together.h),
// so that their ratios are paired exec by exec. memfd-each, whose filling
// would leave its copy in the caches of the next exec, runs alone.
enum Group { kWarm, kCold, kAlone, kGroups };
std::vector<std::pair<Group, Variant>> Rows() {
  return {
      {kWarm, {"exec/source:path/cache:warm/until:exit", Source::kPath}},
      {kCold, {"exec/source:path/cache:cold/until:exit", Source::kPath, true}},
      {kWarm, {"exec/source:o_path/cache:warm/until:exit", Source::kOPath}},
      {kCold, {"exec/source:o_path/cache:cold/until:exit", Source::kOPath, true}},
      {kWarm, {"exec/source:memfd-once/seal:none/until:exit", Source::kMemfdOnce}},
      {kWarm, {"exec/source:memfd-once/seal:sealed/until:exit", Source::kMemfdOnce, false, true}},
      {kAlone, {"exec/source:memfd-each/seal:none/until:exit", Source::kMemfdEach}},
  };
}

void Register(const BenchOptions& options) {
  static std::map<std::string, absl::Status>* const unavailable = [] {
    child_path = RunfileOrExit("lib/children/static_child");
    std::ifstream in(child_path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    child_bytes = ss.str();
    benchmark::AddCustomContext("memfd.child_bytes", absl::StrCat(child_bytes.size()));
    benchmark::AddCustomContext("memfd.measured_together",
                                "path, o_path, memfd-once none and sealed, warm; path and "
                                "o_path, cold; their execs alternating, shuffled each cycle");
    auto* m = new std::map<std::string, absl::Status>;
    for (const auto& [group, v] : Rows()) (*m)[v.name] = WhyUnavailable(v);
    return m;
  }();
  // Each group's measurable rows, in row order, and where each row's part is.
  std::vector<Variant> measured[kGroups];
  std::vector<RoundRow> rows;
  std::vector<std::pair<Group, size_t>> parts;
  for (const auto& [group, v] : Rows()) {
    const absl::Status why = unavailable->at(v.name);
    if (!why.ok()) {
      rows.push_back({v.name, [why](benchmark::State& state) { SkipRow(state, why); }});
      parts.push_back({kGroups, 0});
      continue;
    }
    parts.push_back({group, measured[group].size()});
    measured[group].push_back(v);
    rows.push_back({v.name, nullptr});
  }
  std::shared_ptr<MeasuredTogether> together[kGroups];
  for (int g = 0; g < kGroups; ++g) {
    together[g] = std::make_shared<MeasuredTogether>(
        [variants = measured[g], min_seconds = options.min_time] {
          return MeasureGroup(variants, min_seconds);
        });
  }
  for (size_t r = 0; r < rows.size(); ++r) {
    const auto [group, part] = parts[r];
    if (group == kGroups) continue;  // skipped
    rows[r].run = [m = together[group], part = part](benchmark::State& state) {
      m->Report(state, part);
    };
  }
  for (benchmark::internal::Benchmark* b : RegisterRound(options, std::move(rows)))
    b->Iterations(1);
}

// The bench's declaration: its rounds, canary and key ratios (bench.h: BenchDefaults).
BenchDefaults Declare() {
  BenchDefaults defaults;
  // Rounds: each measures every group once (its rows alternating), shuffled.
  defaults.rounds = 25;
  // Drift: this row, once per round (README, "Noisy runs").
  defaults.canary_row = "exec/source:path/cache:warm/until:exit";
  // Key ratios, each row over its baseline in the same round (README, "Reproducibility").
  defaults.ratio_baselines = {{"source", "path"}};
  return defaults;
}

}  // namespace
}  // namespace spawnlab

SPAWNLAB_BENCH_MAIN("memfd", spawnlab::Register, spawnlab::Declare)
