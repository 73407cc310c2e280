// clock.h: the one clock spawnlab measures with, CLOCK_MONOTONIC in
// nanoseconds: the clock the children of lib/children report, so that a
// parent's reading and a child's can be subtracted.
//
// Example:
//
//   const int64_t t0 = spawnlab::MonotonicNanos();
//   ... the operation ...
//   state.SetIterationTime((spawnlab::MonotonicNanos() - t0) * 1e-9);

#ifndef SPAWNLAB_LIB_CLOCK_H_
#define SPAWNLAB_LIB_CLOCK_H_

#include <time.h>

#include <cstdint>

namespace spawnlab {

inline int64_t MonotonicNanos() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

}  // namespace spawnlab

#endif  // SPAWNLAB_LIB_CLOCK_H_
