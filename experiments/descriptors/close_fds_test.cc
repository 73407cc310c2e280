// close_fds_test: each way leaves the exec'd program with only 0, 1 and 2
// (kNone with every inherited descriptor), whatever was open before.

#include "experiments/descriptors/close_fds.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lib/probes.h"
#include "lib/testing/hygiene.h"
#include "lib/testing/status_matchers.h"

using ::spawnlab::testing::IsOk;

namespace spawnlab {
namespace {

// Forks; the child closes by `way` and execs a shell that counts its open
// descriptors (ls /proc/self/fd lists 0-2, and its own directory handle) and
// exits with that count.
int DescriptorsAfterExec(Way way, int limit) {
  pid_t pid = fork();
  if (pid == 0) {
    CloseInChild(way, limit);
    execl("/bin/sh", "sh", "-c", "exit $(ls /proc/self/fd | wc -l)", static_cast<char*>(nullptr));
    _exit(255);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

class CloseFdsTest : public ::testing::TestWithParam<Way> {};

TEST_P(CloseFdsTest, OnlyTheStandardDescriptorsReachTheProgram) {
  const Way way = GetParam();
  if (way == Way::kCloseRange && !ProbeCloseRange().ok()) GTEST_SKIP() << ProbeCloseRange();
  if (way == Way::kCloexec && !ProbeCloseRangeCloexec().ok()) {
    GTEST_SKIP() << ProbeCloseRangeCloexec();
  }
  testing::Hygiene hygiene;
  std::vector<int> open_fds;
  for (int i = 0; i < 20; ++i) open_fds.push_back(open("/dev/null", O_RDONLY));  // inheritable
  const int baseline = DescriptorsAfterExec(Way::kNone, 1024);
  const int after = DescriptorsAfterExec(way, 1024);
  for (int fd : open_fds) close(fd);
  EXPECT_THAT(hygiene.Check(), IsOk()) << hygiene.Check();
  // ls's own directory descriptor makes 4 where only 0-2 are left.
  EXPECT_GE(baseline, 4 + 20) << "the inherited descriptors did not reach the child";
  if (way == Way::kNone) {
    EXPECT_EQ(after, baseline);
  } else {
    EXPECT_EQ(after, 4) << WayName(way) << " left descriptors open";
  }
}

INSTANTIATE_TEST_SUITE_P(EveryWay, CloseFdsTest,
                         ::testing::Values(Way::kNone, Way::kCloseRange, Way::kCloexec,
                                           Way::kProcWalk, Way::kLoop),
                         [](const ::testing::TestParamInfo<Way>& info) {
                           std::string name = WayName(info.param);
                           for (char& c : name) {
                             if (c == '-') c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace spawnlab
