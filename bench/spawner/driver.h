// driver.h: run a spawner (spawner_main.cc) and ask it for spawns.
//
// For benches whose variable is the parent process: each parent is a spawner
// process (a binary, and the ballast it carries); the bench asks it for spawns
// and reads back the times it measured inside itself.
//
// Example:
//
//   absl::StatusOr<spawnlab::SpawnerDriver> d = spawnlab::SpawnerDriver::Start(
//       spawner_path, {"--ballast_mib=1024", "--touch"});
//   absl::StatusOr<spawnlab::SpawnerTimes> t = d->SpawnOnce(spawnlab::SpawnMethod::kFork, child);
//   state.SetIterationTime(t->to_exit_ns * 1e-9);
//
// A bench row asks for all of a repetition's spawns at once (Spawns, or
// TimeInSpawner in bench/bench_spawn.h), so that they run back to back.

#ifndef SPAWNLAB_BENCH_SPAWNER_DRIVER_H_
#define SPAWNLAB_BENCH_SPAWNER_DRIVER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "lib/command.h"
#include "lib/spawn.h"

namespace spawnlab {

struct SpawnerTimes {
  int64_t to_start_ns;
  int64_t to_exit_ns;
  int64_t instructions;  // -1 where not counted
  // The page faults the child took in its life, before its exec and after;
  // -1 where unknown.
  int64_t child_faults;
};

// The parent as the kernel sees it: what fork has to copy.
struct ParentShape {
  int64_t mappings;  // lines of /proc/self/maps
  int64_t rss_kib;   // VmRSS
  int64_t pte_kib;   // VmPTE: its page tables
  int64_t threads;
  // The touched ballast's share of pages in frames next to the previous
  // page's (lib/ballast.h); -1 without a touched ballast or where the frames
  // cannot be read.
  double ballast_adjacent;
};

class SpawnerDriver {
 public:
  // Starts `spawner` with `args` (spawner_main.cc: --ballast_mib, --touch,
  // METHOD CHILD) and waits for it to be ready (its ballast made).
  static absl::StatusOr<SpawnerDriver> Start(const std::string& spawner,
                                             std::vector<std::string> args);
  // Starts `spawner` whose SpawnOnce() spawns `child` by `method`.
  static absl::StatusOr<SpawnerDriver> Start(const std::string& spawner, SpawnMethod method,
                                             const std::string& child);
  // The spawner's own memory mappings, as it reported them at start.
  int64_t parent_mappings() const { return mappings_; }
  // One spawn, measured inside the spawner: of the method and child given at
  // Start, or of these. DeadlineExceeded after 60 s; Unavailable if the
  // spawner has gone (never SIGPIPE).
  absl::StatusOr<SpawnerTimes> SpawnOnce();
  absl::StatusOr<SpawnerTimes> SpawnOnce(SpawnMethod method, absl::string_view child);
  // `n` spawns (1 to 1,000,000) back to back inside the spawner, the way
  // spawnbench's and lat_proc's loops run: nothing crosses the pipe between
  // them, so neither this process nor any other runs between two spawns (a
  // request per spawn made each one start with the caches and TLB the bench
  // process left). Their times, in order.
  absl::StatusOr<std::vector<SpawnerTimes>> Spawns(int64_t n);
  absl::StatusOr<std::vector<SpawnerTimes>> Spawns(int64_t n, SpawnMethod method,
                                                   absl::string_view child);
  // The spawner's shape now.
  absl::StatusOr<ParentShape> Shape();
  // A request that does nothing: the protocol's round trip.
  absl::Status Nop();

 private:
  SpawnerDriver(Process process, int64_t mappings)
      : process_(std::move(process)), mappings_(mappings) {}
  absl::Status Send(absl::string_view request);
  absl::StatusOr<std::string> ReadLine();
  absl::StatusOr<SpawnerTimes> ReadTimes();
  absl::StatusOr<std::vector<SpawnerTimes>> ReadManyTimes(int64_t n);

  Process process_;
  int64_t mappings_;
  std::string buffer_;
};

}  // namespace spawnlab

#endif  // SPAWNLAB_BENCH_SPAWNER_DRIVER_H_
