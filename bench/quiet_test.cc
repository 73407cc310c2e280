// quiet_test.cc: the quiet check measures and describes itself, and leaves
// the caller's affinity alone. (Whether the machine is quiet is not tested:
// that is the machine's, not the code's.)

#include "bench/quiet.h"

#include <sched.h>

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace spawnlab {
namespace {

TEST(Quiet, ChecksInSlicesOnTheHighestCpuAndSaysSo) {
  cpu_set_t before, after;
  ASSERT_EQ(sched_getaffinity(0, sizeof(before), &before), 0);
  const QuietCheck q = CheckQuiet(-1, absl::Milliseconds(50), absl::Milliseconds(5));
  ASSERT_EQ(sched_getaffinity(0, sizeof(after), &after), 0);
  EXPECT_TRUE(CPU_EQUAL(&before, &after));
  EXPECT_GE(q.slices, 5);
  EXPECT_GT(q.fastest_ns, 0);
  EXPECT_GE(q.slow_share, 0);
  EXPECT_LE(q.slow_share, 1);
  int highest = -1;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &before)) highest = c;
  }
  EXPECT_EQ(q.cpu, highest);
  EXPECT_TRUE(absl::StrContains(q.ToString(), "slices slow")) << q.ToString();
}

TEST(Quiet, QuietMeansFewSlowSlicesAndLittleSteal) {
  QuietCheck q;
  EXPECT_FALSE(q.quiet());  // nothing measured
  q.slices = 100;
  q.slow_share = 0.05;
  q.steal_pct = 1.0;
  EXPECT_TRUE(q.quiet());
  q.slow_share = 0.06;
  EXPECT_FALSE(q.quiet());
  q.slow_share = 0;
  q.steal_pct = 1.1;
  EXPECT_FALSE(q.quiet());
}

TEST(Quiet, AnEarlierBestJudgesAnEvenlySlowMachine) {
  // A best far below anything this machine does: every slice is slow.
  const QuietCheck q = CheckQuiet(-1, absl::Milliseconds(30), absl::Milliseconds(5), 0.001);
  EXPECT_DOUBLE_EQ(q.against_ns, 0.001);
  EXPECT_DOUBLE_EQ(q.slow_share, 1.0);
  EXPECT_FALSE(q.quiet());
  EXPECT_TRUE(absl::StrContains(q.ToString(), "an earlier look's fastest")) << q.ToString();
  // A best above this look's fastest is no reference.
  const QuietCheck r = CheckQuiet(-1, absl::Milliseconds(30), absl::Milliseconds(5), 1e9);
  EXPECT_DOUBLE_EQ(r.against_ns, r.fastest_ns);
}

TEST(Quiet, AnImpossibleCpuStillChecks) {
  const QuietCheck q = CheckQuiet(100000, absl::Milliseconds(20), absl::Milliseconds(5));
  EXPECT_EQ(q.cpu, -1);
  EXPECT_GE(q.slices, 1);
}

}  // namespace
}  // namespace spawnlab
