// driver.h: run a spawner (spawner_main.cc) and ask it for spawns.
//
// For benches whose variable is the parent process: each parent variant is a
// spawner binary; the bench times through it and reads back its measurements.
//
// Example:
//
//   absl::StatusOr<spawnlab::SpawnerDriver> d =
//       spawnlab::SpawnerDriver::Start(spawner_path, spawnlab::SpawnMethod::kFork, child);
//   absl::StatusOr<spawnlab::SpawnerTimes> t = d->SpawnOnce();
//   state.SetIterationTime(t->to_exit_ns * 1e-9);

#ifndef SPAWNLAB_LIB_SPAWNER_DRIVER_H_
#define SPAWNLAB_LIB_SPAWNER_DRIVER_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "lib/command.h"
#include "lib/spawn.h"

namespace spawnlab {

struct SpawnerTimes {
  int64_t to_start_ns;
  int64_t to_exit_ns;
  int64_t instructions;  // -1 where not counted
};

class SpawnerDriver {
 public:
  // Starts `spawner` for `method` and `child`, and waits for it to be ready.
  static absl::StatusOr<SpawnerDriver> Start(const std::string& spawner, SpawnMethod method,
                                             const std::string& child);
  // The spawner's own memory mappings, as it reported them at start.
  int64_t parent_mappings() const { return mappings_; }
  // One spawn, measured inside the spawner. DeadlineExceeded after 60 s.
  absl::StatusOr<SpawnerTimes> SpawnOnce();

 private:
  SpawnerDriver(Process process, int64_t mappings)
      : process_(std::move(process)), mappings_(mappings) {}
  absl::StatusOr<std::string> ReadLine();

  Process process_;
  int64_t mappings_;
  std::string buffer_;
};

}  // namespace spawnlab

#endif  // SPAWNLAB_LIB_SPAWNER_DRIVER_H_
