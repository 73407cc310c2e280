// run_record.h: the conditions a bench ran under, for its results' context.
//
// A figure means little without knowing whether the machine was quiet while it
// was taken. Sample() reads the load average, the machine's CPU time by kind
// (/proc/stat), this process's own CPU time and context switches, and every
// other process's CPU time; Describe() turns two samples into the record every
// results file carries ("run.start", "run.end", "run.steal_pct", ...) and says
// whether the run was noisy, by the thresholds below (README: "Noisy runs").
//
// Example:
//
//   spawnlab::MachineSample before = spawnlab::SampleMachine();
//   ... measure ...
//   for (const auto& [k, v] : spawnlab::DescribeRun(before, spawnlab::SampleMachine()))
//     context[k] = v;

#ifndef SPAWNLAB_BENCH_RUN_RECORD_H_
#define SPAWNLAB_BENCH_RUN_RECORD_H_

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "results_model/bench_results.h"  // NoisyVerdict

namespace spawnlab {

struct MachineSample {
  absl::Time wall;
  double loadavg[3] = {-1, -1, -1};
  // /proc/stat's first line, in clock ticks: user nice system idle iowait
  // irq softirq steal.
  std::vector<int64_t> cpu_ticks;
  // This process and its reaped children: CPU seconds and context switches.
  double self_cpu_s = 0, children_cpu_s = 0;
  int64_t voluntary_switches = 0, involuntary_switches = 0;
  // Every other process: pid -> (name, CPU ticks so far).
  std::map<pid_t, std::pair<std::string, int64_t>> processes;
};

MachineSample SampleMachine();

// The record of a run between two samples: "run.start", "run.end" (UTC,
// ISO 8601), "run.seconds", "run.loadavg_before", "run.loadavg_after",
// "run.steal_pct", "run.iowait_pct", "run.other_cpu_cores" (CPU the rest of
// the machine used, in cores), "run.busiest_others" (up to five, by CPU
// seconds), "run.voluntary_switches", "run.involuntary_switches" (this
// process's) and "run.noisy" ("no", or "yes: " and why).
std::map<std::string, std::string> DescribeRun(const MachineSample& before,
                                               const MachineSample& after);

}  // namespace spawnlab

#endif  // SPAWNLAB_BENCH_RUN_RECORD_H_
