// reap_test.cc: every strategy reaps a batch, leaves no zombie and no
// descriptor, and reports a child that failed; io_uring strategies skip with
// the reason where the kernel (or kernel.io_uring_disabled) lacks them.

#include "experiments/io_uring_spawn/reap.h"

#include <unistd.h>

#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "lib/runfiles.h"
#include "lib/spawn.h"
#include "lib/testing/hygiene.h"
#include "lib/testing/status_matchers.h"

using ::spawnlab::testing::IsOk;

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
  ASSERT_THAT(child, IsOk());
  testing::Hygiene hygiene;
  for (int n : {1, 16, 32}) {
    absl::StatusOr<Batch> batch = SpawnBatch(*child, {*child}, n, NeedsPidfds(GetParam()));
    ASSERT_THAT(batch, IsOk()) << batch.status();
    absl::Status s = (*reaper)->ReapAll(*batch);
    ASSERT_THAT(s, IsOk()) << s;
    EXPECT_EQ(batch->reaped(), static_cast<size_t>(n));
  }
  EXPECT_THAT(hygiene.Check(), IsOk()) << hygiene.Check();
}

TEST_P(ReapTest, AFailedChildIsReportedAndStillReaped) {
  absl::StatusOr<std::unique_ptr<Reaper>> reaper = Reaper::Create(GetParam(), 4);
  if (!reaper.ok()) GTEST_SKIP() << reaper.status();
  absl::StatusOr<std::string> child = Runfile("lib/children/minimal_child");
  testing::Hygiene hygiene;
  {
    absl::StatusOr<Batch> batch =
        SpawnBatch(*child, {*child, "-", "3"}, 2, NeedsPidfds(GetParam()));
    ASSERT_THAT(batch, IsOk());
    EXPECT_FALSE((*reaper)->ReapAll(*batch).ok());
  }  // the Batch reaps what the reaper left
  EXPECT_THAT(hygiene.Check(), IsOk()) << hygiene.Check();
}

// An error on the first child while the others are still running: the
// requests still in flight are cancelled and drained before ReapAll returns,
// so the next batch on the same Reaper sees none of their completions.
TEST_P(ReapTest, AnErrorMidBatchLeavesTheReaperClean) {
  absl::StatusOr<std::unique_ptr<Reaper>> reaper = Reaper::Create(GetParam(), 8);
  if (!reaper.ok()) GTEST_SKIP() << reaper.status();
  absl::StatusOr<std::string> child = Runfile("lib/children/minimal_child");
  ASSERT_THAT(child, IsOk());
  testing::Hygiene hygiene;
  const bool pidfds = NeedsPidfds(GetParam());
  {
    absl::StatusOr<Batch> failing = SpawnBatch(*child, {*child, "-", "3"}, 1, pidfds);
    ASSERT_THAT(failing, IsOk()) << failing.status();
    // Children that outlive the reaper's 10 s drain: only cancelling their
    // requests (not waiting them out) leaves the ring usable for the rounds
    // below. The Batch kills them at the end of this scope.
    absl::StatusOr<Batch> slow = SpawnBatch("/bin/sleep", {"sleep", "60"}, 3, pidfds);
    ASSERT_THAT(slow, IsOk()) << slow.status();
    Batch batch = *std::move(failing);
    for (size_t i = 0; i < slow->size(); ++i) {
      batch.Add(slow->pid(i), pidfds ? UniqueFd(dup(slow->pidfd(i))) : UniqueFd());
      slow->MarkReaped(i);  // handed over to `batch`
    }
    EXPECT_FALSE((*reaper)->ReapAll(batch).ok());
  }  // the Batch kills and reaps what the reaper left
  for (int round = 0; round < 2; ++round) {
    absl::StatusOr<Batch> next = SpawnBatch(*child, {*child}, 4, pidfds);
    ASSERT_THAT(next, IsOk()) << next.status();
    absl::Status s = (*reaper)->ReapAll(*next);
    EXPECT_THAT(s, IsOk()) << "round " << round << ": " << s;
    EXPECT_EQ(next->reaped(), 4u);
  }
  EXPECT_THAT(hygiene.Check(), IsOk()) << hygiene.Check();
}

INSTANTIATE_TEST_SUITE_P(All, ReapTest, ::testing::ValuesIn(AllReapStrategies()),
                         [](const ::testing::TestParamInfo<ReapStrategy>& info) {
                           return absl::StrReplaceAll(ReapStrategyName(info.param), {{"-", "_"}});
                         });

}  // namespace
}  // namespace spawnlab
