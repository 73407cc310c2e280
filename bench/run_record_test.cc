// run_record_test.cc: the run record has every field, in sane ranges, and the
// noisy verdict sits on its thresholds.

#include "bench/run_record.h"

#include <unistd.h>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "gtest/gtest.h"

namespace spawnlab {
namespace {

TEST(RunRecord, DescribesARun) {
  MachineSample before = SampleMachine();
  for (volatile int i = 0; i < 1000000; ++i) {
  }
  MachineSample after = SampleMachine();
  std::map<std::string, std::string> r = DescribeRun(before, after);
  for (const char* key :
       {"run.start", "run.end", "run.seconds", "run.loadavg_before", "run.loadavg_after",
        "run.steal_pct", "run.iowait_pct", "run.other_cpu_cores", "run.busiest_others",
        "run.voluntary_switches", "run.involuntary_switches", "run.noisy"}) {
    EXPECT_TRUE(r.count(key)) << key;
  }
  double steal;
  ASSERT_TRUE(absl::SimpleAtod(r["run.steal_pct"], &steal));
  EXPECT_GE(steal, 0);
  EXPECT_LE(steal, 100);
  EXPECT_FALSE(before.processes.count(getpid()));  // itself is not an "other"
  EXPECT_FALSE(before.processes.empty());
}

TEST(RunRecord, TheBusiestOthersAreThoseThatUsedCpu) {
  MachineSample before, after;
  before.wall = absl::UnixEpoch();
  after.wall = before.wall + absl::Seconds(10);
  before.cpu_ticks = {0, 0, 0, 0, 0, 0, 0, 0};
  const int64_t hz = sysconf(_SC_CLK_TCK);
  after.cpu_ticks = {5 * hz, 0, 0, 15 * hz, 0, 0, 0, 0};
  before.processes = {{10, {"idle", 5}}, {11, {"busy", 0}}};
  after.processes = {{10, {"idle", 5}}, {11, {"busy", 5 * hz}}, {12, {"new", 9}}};
  std::map<std::string, std::string> r = DescribeRun(before, after);
  EXPECT_EQ(r["run.busiest_others"], "busy[11] 5.00 s");
  EXPECT_EQ(r["run.other_cpu_cores"], "0.500");  // 5 s over 10 s, none of it ours
  EXPECT_EQ(r["run.steal_pct"], "0.00");
  EXPECT_TRUE(absl::StartsWith(r["run.noisy"], "yes: other processes used 0.50 cores"));
}

// The thresholds are the README's (0.10 of a core, 1% steal, a 10% canary
// drift, a 15% canary spread), written out here rather than read from the
// constants, so that a changed constant fails this test instead of moving
// with it.
TEST(RunRecord, NoisyVerdictSitsOnItsThresholds) {
  EXPECT_EQ(NoisyVerdict(0.10, 1.0, 10.0, 15.0), "no");
  EXPECT_EQ(NoisyVerdict(0, 0, -1), "no");
  EXPECT_EQ(NoisyVerdict(0, 0, -1, -1), "no");
  EXPECT_TRUE(absl::StrContains(NoisyVerdict(0.11, 0, -1), "other"));
  EXPECT_TRUE(absl::StrContains(NoisyVerdict(0, 1.1, -1), "steal"));
  EXPECT_TRUE(absl::StrContains(NoisyVerdict(0, 0, 10.1), "drifted"));
  EXPECT_TRUE(absl::StrContains(NoisyVerdict(0, 0, -1, 15.1), "slowest quarter"));
  // Every reason is given.
  const std::string all = NoisyVerdict(0.2, 2, 11, 16);
  for (const char* why : {"other", "steal", "drifted", "slowest quarter"}) {
    EXPECT_TRUE(absl::StrContains(all, why)) << all;
  }
}

}  // namespace
}  // namespace spawnlab
