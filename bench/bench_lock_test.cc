// bench_lock_test.cc: the lock is exclusive, names its holder, refuses or
// waits as asked, and goes with its holder.

#include "bench/bench_lock.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"

using ::spawnlab::testing::IsOk;

namespace spawnlab {
namespace {

std::string LockPath(absl::string_view name) {
  return absl::StrCat(std::getenv("TEST_TMPDIR"), "/", name);
}

TEST(BenchLock, ASecondTakerIsRefusedWithTheHoldersName) {
  const std::string path = LockPath("refuse.lock");
  absl::StatusOr<BenchLock> first = BenchLock::Acquire(path, "clone3 bench", BenchLock::kFail);
  ASSERT_THAT(first, IsOk()) << first.status();
  EXPECT_TRUE(first->waited_for().empty());
  absl::StatusOr<BenchLock> second = BenchLock::Acquire(path, "linking bench", BenchLock::kFail);
  ASSERT_FALSE(second.ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(second.status())) << second.status();
  EXPECT_TRUE(absl::StrContains(second.status().message(), "clone3 bench"));
  EXPECT_TRUE(absl::StrContains(second.status().message(), absl::StrCat("pid ", getpid())));
}

TEST(BenchLock, ReleasedWithItsHolder) {
  const std::string path = LockPath("release.lock");
  { ASSERT_THAT(BenchLock::Acquire(path, "a", BenchLock::kFail), IsOk()); }
  EXPECT_THAT(BenchLock::Acquire(path, "b", BenchLock::kFail), IsOk());
}

TEST(BenchLock, AWaiterGetsItWhenTheHolderLetsGoAndSaysForWhom) {
  const std::string path = LockPath("wait.lock");
  auto first = std::make_unique<absl::StatusOr<BenchLock>>(
      BenchLock::Acquire(path, "the first", BenchLock::kFail));
  ASSERT_TRUE(first->ok());
  absl::Notification got;
  std::string waited_for;
  std::thread waiter([&] {
    absl::StatusOr<BenchLock> second = BenchLock::Acquire(path, "the second", BenchLock::kWait);
    if (second.ok()) waited_for = second->waited_for();
    got.Notify();
  });
  // Not before the first lets go (a one-way check: no timing is asserted).
  EXPECT_FALSE(got.WaitForNotificationWithTimeout(absl::Milliseconds(300)));
  first.reset();
  waiter.join();
  EXPECT_TRUE(got.HasBeenNotified());
  EXPECT_TRUE(absl::StrContains(waited_for, "the first")) << waited_for;
}

TEST(BenchLock, AnUnopenableFileIsAnError) {
  absl::StatusOr<BenchLock> l =
      BenchLock::Acquire("/nonexistent-dir/x.lock", "x", BenchLock::kFail);
  EXPECT_FALSE(l.ok());
  EXPECT_TRUE(absl::StrContains(l.status().message(), "/nonexistent-dir/x.lock"));
}

}  // namespace
}  // namespace spawnlab
