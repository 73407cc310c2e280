// syscall_count_test.cc: the counts of known programs, and a clear error for
// a missing one; skipped where ptrace is not allowed.

#include "lib/syscall_count.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/runfiles.h"
#include "lib/testing/hygiene.h"

namespace spawnlab {
namespace {

TEST(CountSyscalls, TheMinimalChildMakesExactlyItsFew) {
  testing::Hygiene hygiene;
  absl::StatusOr<std::string> child = Runfile("lib/children/minimal_child");
  ASSERT_TRUE(child.ok());
  absl::StatusOr<int> n = CountSyscalls(ExecSpec(*child, {*child}));
  if (absl::IsPermissionDenied(n.status())) GTEST_SKIP() << "ptrace not allowed: " << n.status();
  ASSERT_TRUE(n.ok()) << n.status();
  // execve, clock_gettime, exit_group (no clock fd: no write).
  EXPECT_EQ(*n, 3);
  // With a clock descriptor it also writes.
  absl::StatusOr<int> with_write = CountSyscalls(ExecSpec(*child, {*child, "2"}));
  ASSERT_TRUE(with_write.ok());
  EXPECT_EQ(*with_write, 4);
  EXPECT_TRUE(hygiene.Check().ok()) << hygiene.Check();
}

TEST(CountSyscalls, ADynamicProgramMakesMoreThanAStaticOne) {
  absl::StatusOr<std::string> st = Runfile("lib/children/static_child");
  absl::StatusOr<std::string> dy = Runfile("lib/children/dynamic_child");
  ASSERT_TRUE(st.ok() && dy.ok());
  absl::StatusOr<int> s = CountSyscalls(ExecSpec(*st, {*st}));
  if (absl::IsPermissionDenied(s.status())) GTEST_SKIP() << "ptrace not allowed: " << s.status();
  absl::StatusOr<int> d = CountSyscalls(ExecSpec(*dy, {*dy}));
  ASSERT_TRUE(s.ok() && d.ok()) << s.status() << d.status();
  EXPECT_GT(*d, *s);
}

TEST(CountSyscalls, MissingProgramIsNotFound) {
  absl::StatusOr<int> n = CountSyscalls(ExecSpec("/nonexistent/prog", {"prog"}));
  if (absl::IsPermissionDenied(n.status())) GTEST_SKIP() << n.status();
  EXPECT_EQ(n.status().code(), absl::StatusCode::kNotFound) << n.status();
  EXPECT_THAT(n.status().message(), ::testing::HasSubstr("/nonexistent/prog"));
}

}  // namespace
}  // namespace spawnlab
