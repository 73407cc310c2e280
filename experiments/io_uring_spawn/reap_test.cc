// reap_test.cc: every strategy reaps a batch, leaves no zombie and no
// descriptor, and reports a child that failed; io_uring strategies skip with
// the reason where the kernel (or kernel.io_uring_disabled) lacks them.

#include "experiments/io_uring_spawn/reap.h"

#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "lib/runfiles.h"
#include "lib/spawn.h"
#include "lib/testing/hygiene.h"

namespace spawnlab {
namespace {

class ReapTest : public ::testing::TestWithParam<ReapStrategy> {};

absl::StatusOr<Batch> SpawnBatch(const std::string& path, std::vector<std::string> argv, int n,
                                 bool pidfds) {
  Batch batch;
  SpawnOptions options;
  options.want_pidfd = pidfds;
  for (int i = 0; i < n; ++i) {
    absl::StatusOr<Child> c = Spawn(SpawnMethod::kClone3, ExecSpec(path, argv), options);
    if (!c.ok()) return c.status();
    UniqueFd pidfd = c->TakePidfd();
    batch.Add(c->Release(), std::move(pidfd));
  }
  return batch;
}

TEST_P(ReapTest, ReapsABatchAndLeavesNothing) {
  absl::StatusOr<std::unique_ptr<Reaper>> reaper = Reaper::Create(GetParam(), 32);
  if (!reaper.ok()) GTEST_SKIP() << reaper.status();
  absl::StatusOr<std::string> child = Runfile("lib/children/minimal_child");
  ASSERT_TRUE(child.ok());
  testing::Hygiene hygiene;
  for (int n : {1, 16, 32}) {
    absl::StatusOr<Batch> batch = SpawnBatch(*child, {*child}, n, NeedsPidfds(GetParam()));
    ASSERT_TRUE(batch.ok()) << batch.status();
    absl::Status s = (*reaper)->ReapAll(*batch);
    ASSERT_TRUE(s.ok()) << s;
    EXPECT_EQ(batch->reaped(), static_cast<size_t>(n));
  }
  EXPECT_TRUE(hygiene.Check().ok()) << hygiene.Check();
}

TEST_P(ReapTest, AFailedChildIsReportedAndStillReaped) {
  absl::StatusOr<std::unique_ptr<Reaper>> reaper = Reaper::Create(GetParam(), 4);
  if (!reaper.ok()) GTEST_SKIP() << reaper.status();
  absl::StatusOr<std::string> child = Runfile("lib/children/minimal_child");
  testing::Hygiene hygiene;
  {
    absl::StatusOr<Batch> batch = SpawnBatch(*child, {*child, "-", "3"}, 2, NeedsPidfds(GetParam()));
    ASSERT_TRUE(batch.ok());
    EXPECT_FALSE((*reaper)->ReapAll(*batch).ok());
  }  // the Batch reaps what the reaper left
  EXPECT_TRUE(hygiene.Check().ok()) << hygiene.Check();
}

INSTANTIATE_TEST_SUITE_P(All, ReapTest, ::testing::ValuesIn(AllReapStrategies()),
                         [](const ::testing::TestParamInfo<ReapStrategy>& info) {
                           return absl::StrReplaceAll(ReapStrategyName(info.param), {{"-", "_"}});
                         });

}  // namespace
}  // namespace spawnlab
