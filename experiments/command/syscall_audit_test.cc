// syscall_audit_test.cc: strace -c's table read right, and Command's spawn
// path traced for real: one clone3 or vfork, one execve, no /proc read.

#include "experiments/command/syscall_audit.h"

#include <unistd.h>

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/runfiles.h"
#include "lib/testing/hygiene.h"
#include "lib/testing/status_matchers.h"

namespace spawnlab {
namespace {

using ::spawnlab::testing::IsOk;
using ::testing::Contains;
using ::testing::Key;
using ::testing::Not;
using ::testing::Pair;

constexpr char kTable[] = R"(syscall              calls
---------------- ---------
wait4                  101
clone3                 102
execve                 101
rt_sigaction           200
---------------- ---------
total                  504
)";

TEST(ParseStraceCounts, ReadsNameAndCallsAndLeavesOutTheTotal) {
  absl::StatusOr<SyscallCounts> parsed = ParseStraceCounts(kTable);
  ASSERT_THAT(parsed.status(), IsOk());
  SyscallCounts c = *parsed;
  EXPECT_EQ(c.size(), 4u);
  EXPECT_EQ(c["clone3"], 102);
  EXPECT_EQ(c["rt_sigaction"], 200);
  EXPECT_THAT(c, Not(Contains(Key("total"))));
}

TEST(ParseStraceCounts, RefusesATableWithoutItsHeaderOrWithOtherColumns) {
  EXPECT_EQ(ParseStraceCounts("").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseStraceCounts("wait4 101\n").status().code(), absl::StatusCode::kInvalidArgument);
  // strace -c's default columns (% time, seconds, ...): not what -U asked for.
  EXPECT_EQ(ParseStraceCounts("syscall calls\n 12.5 0.001 10 3 wait4\n").status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(PerSpawn, IsTheDifferenceOverTheSpawnsOfTheCallsThatDiffer) {
  const SyscallCounts with = {{"clone3", 102}, {"execve", 101}, {"mmap", 40}};
  const SyscallCounts without = {{"clone3", 2}, {"execve", 1}, {"mmap", 40}, {"brk", 3}};
  EXPECT_THAT(PerSpawn(with, without, 100),
              ::testing::ElementsAre(Pair("brk", -0.03), Pair("clone3", 1.0), Pair("execve", 1.0)));
}

class SyscallsPerSpawnTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (access("/usr/bin/strace", X_OK) != 0) GTEST_SKIP() << "strace is not installed";
    loop_ = RunfileOrExit("experiments/command/spawn_loop");
    child_ = RunfileOrExit("lib/children/minimal_child");
  }
  void TearDown() override { EXPECT_THAT(hygiene_.Check(), IsOk()); }
  testing::Hygiene hygiene_;
  std::string loop_, child_;
};

TEST_F(SyscallsPerSpawnTest, CommandExecsOnceAndReadsNothingUnderProc) {
  absl::StatusOr<SyscallCounts> c = SyscallsPerSpawn(loop_, "command", child_, 20);
  if (absl::IsPermissionDenied(c.status())) GTEST_SKIP() << c.status();
  ASSERT_THAT(c.status(), IsOk());
  EXPECT_EQ((*c)["execve"], 1.0);
  EXPECT_EQ((*c)["clone3"] + (*c)["vfork"], 1.0);
  // Nothing under /proc is read per spawn (README.md, "Why Command costs what the raw
  // primitive costs").
  EXPECT_THAT(*c, Not(Contains(Key("openat"))));
  EXPECT_THAT(*c, Not(Contains(Key("read"))));
}

TEST_F(SyscallsPerSpawnTest, AnUnknownApiIsTheLoopsError) {
  absl::StatusOr<SyscallCounts> c = SyscallsPerSpawn(loop_, "no-such-api", child_, 1);
  if (absl::IsPermissionDenied(c.status())) GTEST_SKIP() << c.status();
  EXPECT_EQ(c.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(std::string(c.status().message()), ::testing::HasSubstr("--api"));
}

}  // namespace
}  // namespace spawnlab
