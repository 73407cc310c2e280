// syscall_count_test.cc: the counts of known programs, and a clear error for
// a missing one; skipped where ptrace is not allowed.

#include "lib/syscall_count.h"

#include <unistd.h>

#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/runfiles.h"
#include "lib/testing/hygiene.h"
#include "lib/testing/status_matchers.h"

using ::spawnlab::testing::IsOk;

namespace spawnlab {
namespace {

TEST(CountSyscalls, TheMinimalChildMakesExactlyItsFew) {
  testing::Hygiene hygiene;
  absl::StatusOr<std::string> child = Runfile("lib/children/minimal_child");
  ASSERT_THAT(child, IsOk());
  absl::StatusOr<int> n = CountSyscalls(ExecSpec(*child, {*child}));
  if (absl::IsPermissionDenied(n.status())) GTEST_SKIP() << "ptrace not allowed: " << n.status();
  ASSERT_THAT(n, IsOk()) << n.status();
  // execve, clock_gettime, exit_group (no clock fd: no write).
  EXPECT_EQ(*n, 3);
  // With a clock descriptor it also writes.
  absl::StatusOr<int> with_write = CountSyscalls(ExecSpec(*child, {*child, "2"}));
  ASSERT_THAT(with_write, IsOk());
  EXPECT_EQ(*with_write, 4);
  EXPECT_THAT(hygiene.Check(), IsOk()) << hygiene.Check();
}

TEST(CountSyscalls, ADynamicProgramMakesMoreThanAStaticOne) {
  absl::StatusOr<std::string> st = Runfile("lib/children/static_child");
  absl::StatusOr<std::string> dy = Runfile("lib/children/dynamic_child");
  ASSERT_THAT(st, IsOk());
  ASSERT_THAT(dy, IsOk());
  absl::StatusOr<int> s = CountSyscalls(ExecSpec(*st, {*st}));
  if (absl::IsPermissionDenied(s.status())) GTEST_SKIP() << "ptrace not allowed: " << s.status();
  absl::StatusOr<int> d = CountSyscalls(ExecSpec(*dy, {*dy}));
  ASSERT_THAT(s, IsOk());
  ASSERT_THAT(d, IsOk()) << s.status() << d.status();
  EXPECT_GT(*d, *s);
}

// A program that execs another (env, a shell) is followed through the exec,
// not killed by a SIGTRAP passed on to it.
TEST(CountSyscalls, FollowsAProgramThatExecsAgain) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string marker = absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/touched-by-env");
  unlink(marker.c_str());
  absl::StatusOr<int> direct = CountSyscalls(ExecSpec("/usr/bin/touch", {"touch", marker}));
  if (absl::IsPermissionDenied(direct.status())) GTEST_SKIP() << direct.status();
  ASSERT_THAT(direct, IsOk()) << direct.status();
  unlink(marker.c_str());
  absl::StatusOr<int> via_env = CountSyscalls(ExecSpec("/usr/bin/env", {"env", "touch", marker}));
  ASSERT_THAT(via_env, IsOk()) << via_env.status();
  EXPECT_EQ(access(marker.c_str(), F_OK), 0) << "touch never ran";
  EXPECT_GT(*via_env, *direct);  // env's own syscalls, then touch's
}

// A traced program that dies of a signal yields an error, not a count.
TEST(CountSyscalls, AProgramKilledBySignalIsAnError) {
  absl::StatusOr<int> n = CountSyscalls(ExecSpec("/bin/sh", {"sh", "-c", "kill -KILL $$"}));
  if (absl::IsPermissionDenied(n.status())) GTEST_SKIP() << n.status();
  EXPECT_FALSE(n.ok());
  EXPECT_THAT(n.status().message(), ::testing::HasSubstr("signal 9"));
}

TEST(CountSyscalls, MissingProgramIsNotFound) {
  absl::StatusOr<int> n = CountSyscalls(ExecSpec("/nonexistent/prog", {"prog"}));
  if (absl::IsPermissionDenied(n.status())) GTEST_SKIP() << n.status();
  EXPECT_EQ(n.status().code(), absl::StatusCode::kNotFound) << n.status();
  EXPECT_THAT(n.status().message(), ::testing::HasSubstr("/nonexistent/prog"));
}

}  // namespace
}  // namespace spawnlab
