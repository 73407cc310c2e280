// strace_test.cc: a program traced to its end, its trace returned; a failing
// program is an error that names it; nothing is left behind.

#include "lib/strace.h"

#include <unistd.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/hygiene.h"
#include "lib/testing/status_matchers.h"

namespace spawnlab {
namespace {

using ::spawnlab::testing::IsOk;
using ::testing::HasSubstr;

class RunUnderStraceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (access(kStracePath, X_OK) != 0) GTEST_SKIP() << kStracePath << " is not installed";
  }
  void TearDown() override { EXPECT_THAT(hygiene_.Check(), IsOk()); }
  testing::Hygiene hygiene_;
};

TEST_F(RunUnderStraceTest, ReturnsWhatStraceWrote) {
  absl::StatusOr<std::string> trace =
      RunUnderStrace({"-e", "trace=execve"}, {"/bin/true"}, absl::Seconds(60));
  if (absl::IsPermissionDenied(trace.status())) GTEST_SKIP() << trace.status();
  ASSERT_THAT(trace, IsOk());
  EXPECT_THAT(*trace, HasSubstr("execve(\"/bin/true\""));
}

TEST_F(RunUnderStraceTest, AFailingProgramIsAnErrorThatNamesIt) {
  absl::StatusOr<std::string> trace = RunUnderStrace({}, {"/bin/false"}, absl::Seconds(60));
  if (absl::IsPermissionDenied(trace.status())) GTEST_SKIP() << trace.status();
  EXPECT_EQ(trace.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(std::string(trace.status().message()), HasSubstr("/bin/false"));
}

TEST(RunUnderStrace, RefusesNoProgram) {
  if (access(kStracePath, X_OK) != 0) GTEST_SKIP() << kStracePath << " is not installed";
  EXPECT_EQ(RunUnderStrace({}, {}, absl::Seconds(1)).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace spawnlab
