// pin.h: keep the measuring thread, and the children it spawns, on one CPU.
//
// Children inherit the affinity mask, so a spawned child runs where its parent
// was pinned: with the vfork family the parent sleeps meanwhile; with fork the
// two share the CPU, as they would on a loaded machine.
//
// Example:
//
//   absl::StatusOr<int> cpu = spawnlab::PinToCpu(-1);  // the last allowed CPU
//   if (!cpu.ok()) return cpu.status();

#ifndef SPAWNLAB_LIB_PIN_H_
#define SPAWNLAB_LIB_PIN_H_

#include "absl/status/statusor.h"

namespace spawnlab {

// Pins the calling thread to `cpu`, or to the highest CPU it may run on when
// `cpu` is -1 (CPU 0 takes most interrupts). Returns the CPU pinned to;
// InvalidArgument if `cpu` is not one this thread may use.
absl::StatusOr<int> PinToCpu(int cpu);

// The CPU the calling thread is pinned to, or -1 if it may run on several.
int PinnedCpu();

}  // namespace spawnlab

#endif  // SPAWNLAB_LIB_PIN_H_
