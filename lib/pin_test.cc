// pin_test.cc: pinning lands on an allowed CPU and rejects others.

#include "lib/pin.h"

#include <sched.h>

#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"

using ::spawnlab::testing::IsOk;

namespace spawnlab {
namespace {

class PinTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(sched_getaffinity(0, sizeof(saved_), &saved_), 0); }
  void TearDown() override { sched_setaffinity(0, sizeof(saved_), &saved_); }
  cpu_set_t saved_;
};

TEST_F(PinTest, MinusOnePinsToTheLastAllowedCpu) {
  int last = -1;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &saved_)) last = c;
  }
  absl::StatusOr<int> cpu = PinToCpu(-1);
  ASSERT_THAT(cpu, IsOk()) << cpu.status();
  EXPECT_EQ(*cpu, last);
  EXPECT_EQ(PinnedCpu(), last);
  EXPECT_EQ(sched_getcpu(), last);
}

TEST_F(PinTest, RejectsCpusItMayNotUse) {
  EXPECT_EQ(PinToCpu(CPU_SETSIZE + 5).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(PinToCpu(-7).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(PinTest, UnpinnedIsMinusOne) {
  if (CPU_COUNT(&saved_) < 2) GTEST_SKIP() << "only one CPU is allowed here";
  EXPECT_EQ(PinnedCpu(), -1);
}

}  // namespace
}  // namespace spawnlab
