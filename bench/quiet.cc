// quiet.cc: see quiet.h.

#include "bench/quiet.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

#include "absl/strings/str_format.h"
#include "lib/clock.h"
#include "lib/pin.h"
#include "bench/run_record.h"

namespace spawnlab {

bool QuietCheck::quiet() const {
  return slices > 0 && slow_share <= kQuietSlowShare && steal_pct <= kQuietStealPct;
}

std::string QuietCheck::ToString() const {
  return absl::StrFormat(
      "%.0f%% of %d slices slow (>%.0f%% above %.0f ns a call%s; this look's fastest %.0f ns), "
      "steal %s, on CPU %d",
      slow_share * 100, slices, kQuietSlowPct, against_ns,
      against_ns < fastest_ns ? ", an earlier look's fastest" : "", fastest_ns,
      steal_pct < 0 ? "unknown" : absl::StrFormat("%.1f%%", steal_pct), cpu);
}

QuietCheck CheckQuiet(int cpu, absl::Duration total, absl::Duration slice, double best_ns) {
  QuietCheck q;
  const int64_t slice_ns = std::max<int64_t>(1, absl::ToInt64Nanoseconds(slice));
  const int64_t total_ns = absl::ToInt64Nanoseconds(total);
  const MachineSample before = SampleMachine();
  std::vector<double> per_call;
  // A thread of its own: pinning it leaves the caller's affinity alone.
  std::thread probe([&] {
    absl::StatusOr<int> pinned = PinToCpu(cpu);
    q.cpu = pinned.ok() ? *pinned : -1;
    const int64_t end = MonotonicNanos() + total_ns;
    while (MonotonicNanos() < end) {
      const int64_t t0 = MonotonicNanos();
      int64_t calls = 0, t1 = t0;
      while (t1 - t0 < slice_ns) {
        syscall(SYS_getpid);
        ++calls;
        t1 = MonotonicNanos();
      }
      per_call.push_back(static_cast<double>(t1 - t0) / static_cast<double>(calls));
    }
  });
  probe.join();
  const MachineSample after = SampleMachine();
  q.slices = static_cast<int>(per_call.size());
  if (q.slices == 0) return q;
  q.fastest_ns = *std::min_element(per_call.begin(), per_call.end());
  q.against_ns = best_ns > 0 ? std::min(best_ns, q.fastest_ns) : q.fastest_ns;
  const double slow = q.against_ns * (1 + kQuietSlowPct / 100);
  q.slow_share = static_cast<double>(std::count_if(per_call.begin(), per_call.end(),
                                                   [slow](double t) { return t > slow; })) /
                 q.slices;
  if (before.cpu_ticks.size() == 8 && after.cpu_ticks.size() == 8) {
    int64_t all = 0;
    for (size_t i = 0; i < 8; ++i) all += after.cpu_ticks[i] - before.cpu_ticks[i];
    if (all > 0) {
      q.steal_pct = 100.0 * static_cast<double>(after.cpu_ticks[7] - before.cpu_ticks[7]) /
                    static_cast<double>(all);
    }
  }
  return q;
}

}  // namespace spawnlab
