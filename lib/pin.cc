// pin.cc: see pin.h.

#include "lib/pin.h"

#include <errno.h>
#include <sched.h>

#include "absl/strings/str_cat.h"

namespace spawnlab {

absl::StatusOr<int> PinToCpu(int cpu) {
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) {
    return absl::ErrnoToStatus(errno, "sched_getaffinity");
  }
  if (cpu == -1) {
    for (int c = CPU_SETSIZE - 1; c >= 0; --c) {
      if (CPU_ISSET(c, &allowed)) {
        cpu = c;
        break;
      }
    }
  }
  if (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &allowed)) {
    return absl::InvalidArgumentError(absl::StrCat("cannot pin to CPU ", cpu,
                                                   ": this thread may run on ", CPU_COUNT(&allowed),
                                                   " CPUs and that is not one of them"));
  }
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  if (sched_setaffinity(0, sizeof(one), &one) != 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat("sched_setaffinity to CPU ", cpu));
  }
  return cpu;
}

int PinnedCpu() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) != 0 || CPU_COUNT(&set) != 1) return -1;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) return c;
  }
  return -1;
}

}  // namespace spawnlab
