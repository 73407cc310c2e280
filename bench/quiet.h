// quiet.h: is the machine quiet enough to measure now?
//
// A shared VM slows in bursts of tens to hundreds of milliseconds that
// /proc/stat does not always call steal. Before a
// bench the suite looks for them the direct way: a tight loop of getpid(2) on
// the CPU the benches pin to, timed in short slices, and the share of slices
// well slower than the fastest.
//
// Example:
//
//   spawnlab::QuietCheck q = spawnlab::CheckQuiet();
//   if (!q.quiet()) std::cerr << "not quiet: " << q.ToString() << "\n";

#ifndef SPAWNLAB_BENCH_QUIET_H_
#define SPAWNLAB_BENCH_QUIET_H_

#include <string>

#include "absl/time/time.h"

namespace spawnlab {

// The machine is quiet when at most this share of the slices ran more than
// kQuietSlowPct slower than the fastest one, and steal stayed at or below
// kQuietStealPct over the check.
inline constexpr double kQuietSlowShare = 0.05;
inline constexpr double kQuietSlowPct = 15.0;
inline constexpr double kQuietStealPct = 1.0;

struct QuietCheck {
  int slices = 0;
  double fastest_ns = 0;  // per getpid in this look's fastest slice
  double against_ns = 0;  // what slices were judged against: it, or an earlier best
  double slow_share = 0;  // of slices more than kQuietSlowPct slower than that
  double steal_pct = -1;  // over the check, from /proc/stat; -1 unreadable
  int cpu = -1;           // where it ran
  bool quiet() const;
  // "N% of M slices slow (>15% above T ns a call; this look's fastest F ns),
  // steal S%, on CPU C"
  std::string ToString() const;
};

// Runs the loop for `total` in slices of `slice`, on `cpu` (-1: the highest
// CPU this process may use, where the benches pin by default). The calling
// thread's affinity is left as it was. A slice is slow against the fastest of
// this check's and `best_ns` (the fastest an earlier check saw, 0 if none):
// a machine slowed evenly through a whole check is not quiet either.
QuietCheck CheckQuiet(int cpu = -1, absl::Duration total = absl::Seconds(2),
                      absl::Duration slice = absl::Milliseconds(10), double best_ns = 0);

}  // namespace spawnlab

#endif  // SPAWNLAB_BENCH_QUIET_H_
