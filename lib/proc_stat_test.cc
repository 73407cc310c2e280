// proc_stat_test.cc: /proc/PID/stat lines parse, names with spaces and
// parentheses included; this process reads as itself; a missing one is
// NotFound; what is not a stat line is an error.

#include "lib/proc_stat.h"

#include <unistd.h>

#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"

using ::spawnlab::testing::IsOk;

namespace spawnlab {
namespace {

TEST(ProcStat, ParsesALineWhoseNameHasSpacesAndParentheses) {
  absl::StatusOr<ProcStat> s = ParseProcStat(
      "4242 (a (b) c) S 17 4242 4242 0 -1 4194560 100 0 0 0 7 5 0 0 20 0 1 0 123 4096 33 "
      "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n");
  ASSERT_THAT(s, IsOk()) << s.status();
  EXPECT_EQ(s->comm, "a (b) c");
  EXPECT_EQ(s->state, 'S');
  EXPECT_EQ(s->ppid, 17);
  EXPECT_EQ(s->cpu_ticks, 12);
  EXPECT_EQ(s->rss_pages, 33);
  EXPECT_EQ(s->threads, 1);
}

TEST(ProcStat, ThisProcessReadsAsItself) {
  absl::StatusOr<ProcStat> s = ReadProcStat(getpid());
  ASSERT_THAT(s, IsOk()) << s.status();
  EXPECT_EQ(s->ppid, getppid());
  EXPECT_EQ(s->state, 'R');
  EXPECT_GT(s->rss_pages, 0);
  EXPECT_GE(s->threads, 1);
}

TEST(ProcStat, AMissingProcessIsNotFound) {
  EXPECT_TRUE(absl::IsNotFound(ReadProcStat(0x3fffffff).status()));
}

TEST(ProcStat, WhatIsNotAStatLineIsInvalid) {
  EXPECT_TRUE(absl::IsInvalidArgument(ParseProcStat("").status()));
  EXPECT_TRUE(absl::IsInvalidArgument(ParseProcStat("12 (x) S 1 2 3").status()));
  EXPECT_TRUE(absl::IsInvalidArgument(ParseProcStat("12 x) S").status()));
}

}  // namespace
}  // namespace spawnlab
