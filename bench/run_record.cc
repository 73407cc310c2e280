// run_record.cc: see run_record.h.

#include "bench/run_record.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "lib/proc_stat.h"

namespace spawnlab {
namespace {

double Seconds(const struct timeval& tv) { return tv.tv_sec + tv.tv_usec * 1e-6; }

std::string Iso(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", t, absl::UTCTimeZone());
}

std::string Loadavg(const MachineSample& s) {
  return absl::StrFormat("%.2f %.2f %.2f", s.loadavg[0], s.loadavg[1], s.loadavg[2]);
}

}  // namespace

MachineSample SampleMachine() {
  MachineSample s;
  s.wall = absl::Now();
  getloadavg(s.loadavg, 3);
  std::ifstream stat("/proc/stat");
  std::string line;
  if (std::getline(stat, line)) {
    std::vector<absl::string_view> f = absl::StrSplit(line, ' ', absl::SkipEmpty());
    for (size_t i = 1; i < f.size() && i <= 8; ++i) {
      int64_t v = 0;
      (void)absl::SimpleAtoi(f[i], &v);
      s.cpu_ticks.push_back(v);
    }
  }
  struct rusage self, children;
  getrusage(RUSAGE_SELF, &self);
  getrusage(RUSAGE_CHILDREN, &children);
  s.self_cpu_s = Seconds(self.ru_utime) + Seconds(self.ru_stime);
  s.children_cpu_s = Seconds(children.ru_utime) + Seconds(children.ru_stime);
  s.voluntary_switches = self.ru_nvcsw;
  s.involuntary_switches = self.ru_nivcsw;
  const pid_t me = getpid();
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    pid_t pid;
    if (!absl::SimpleAtoi(entry.path().filename().string(), &pid) || pid == me) continue;
    // A process that ended meanwhile is not counted.
    if (absl::StatusOr<ProcStat> p = ReadProcStat(pid); p.ok()) {
      s.processes[pid] = {p->comm, p->cpu_ticks};
    }
  }
  return s;
}

std::map<std::string, std::string> DescribeRun(const MachineSample& before,
                                               const MachineSample& after) {
  std::map<std::string, std::string> r;
  const double seconds = absl::ToDoubleSeconds(after.wall - before.wall);
  r["run.start"] = Iso(before.wall);
  r["run.end"] = Iso(after.wall);
  r["run.seconds"] = absl::StrFormat("%.1f", seconds);
  r["run.loadavg_before"] = Loadavg(before);
  r["run.loadavg_after"] = Loadavg(after);
  const double hz = static_cast<double>(sysconf(_SC_CLK_TCK));
  double steal_pct = -1, other_cores = -1;
  if (before.cpu_ticks.size() == 8 && after.cpu_ticks.size() == 8) {
    int64_t d[8], total = 0;
    for (int i = 0; i < 8; ++i) {
      d[i] = after.cpu_ticks[i] - before.cpu_ticks[i];
      total += d[i];
    }
    {
      if (total <= 0) total = 1;  // a run shorter than a clock tick
      steal_pct = 100.0 * d[7] / total;
      r["run.steal_pct"] = absl::StrFormat("%.2f", steal_pct);
      r["run.iowait_pct"] = absl::StrFormat("%.2f", 100.0 * d[4] / total);
      // Busy time of the whole machine (user nice system irq softirq), less
      // this process and the children it reaped.
      const double busy_s = (d[0] + d[1] + d[2] + d[5] + d[6]) / hz;
      const double own_s =
          (after.self_cpu_s - before.self_cpu_s) + (after.children_cpu_s - before.children_cpu_s);
      if (seconds > 0) other_cores = std::max(0.0, (busy_s - own_s) / seconds);
      r["run.other_cpu_cores"] = absl::StrFormat("%.3f", other_cores);
    }
  }
  // Processes alive at both ends, by CPU used in between (one that lived only
  // inside the run is in run.other_cpu_cores, not here).
  std::vector<std::pair<double, std::string>> busiest;
  for (const auto& [pid, now] : after.processes) {
    auto it = before.processes.find(pid);
    const int64_t used = now.second - (it != before.processes.end() ? it->second.second : 0);
    if (it == before.processes.end() || used <= 0) continue;
    busiest.emplace_back(used / hz, absl::StrCat(now.first, "[", pid, "]"));
  }
  std::sort(busiest.rbegin(), busiest.rend());
  std::vector<std::string> top;
  for (size_t i = 0; i < busiest.size() && i < 5; ++i) {
    top.push_back(absl::StrFormat("%s %.2f s", busiest[i].second, busiest[i].first));
  }
  r["run.busiest_others"] = top.empty() ? "none" : absl::StrJoin(top, ", ");
  r["run.voluntary_switches"] = absl::StrCat(after.voluntary_switches - before.voluntary_switches);
  r["run.involuntary_switches"] =
      absl::StrCat(after.involuntary_switches - before.involuntary_switches);
  r["run.noisy"] = NoisyVerdict(other_cores, steal_pct, -1);
  return r;
}

}  // namespace spawnlab
