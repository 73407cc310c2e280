// memfd_exec_test.cc: a program exec'd from a memfd (sealed or not) runs and
// returns its exit code, leaving no descriptor and no zombie behind.

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "gtest/gtest.h"
#include "lib/probes.h"
#include "lib/runfiles.h"
#include "lib/spawn.h"
#include "lib/testing/hygiene.h"
#include "lib/unique_fd.h"
#include "lib/testing/status_matchers.h"

using ::spawnlab::testing::IsOk;

namespace spawnlab {
namespace {

TEST(MemfdExec, RunsFromMemoryWithoutLeaks) {
  if (absl::Status s = ProbeMemfdCreate(); !s.ok()) GTEST_SKIP() << s;
  if (absl::Status s = ProbeExecveat(); !s.ok()) GTEST_SKIP() << s;
  absl::StatusOr<std::string> path = Runfile("lib/children/static_child");
  ASSERT_THAT(path, IsOk());
  std::ifstream in(*path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  const std::string image = bytes.str();
  testing::Hygiene hygiene;
  for (bool sealed : {false, true}) {
    UniqueFd fd(memfd_create("child", MFD_CLOEXEC | (sealed ? MFD_ALLOW_SEALING : 0)));
    ASSERT_TRUE(fd.valid());
    ASSERT_EQ(write(fd.get(), image.data(), image.size()), static_cast<ssize_t>(image.size()));
    if (sealed) {
      ASSERT_EQ(fcntl(fd.get(), F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW), 0);
    }
    SpawnOptions options;
    options.exec_fd = fd.get();
    absl::StatusOr<Child> child =
        Spawn(SpawnMethod::kVfork, ExecSpec("child (memfd)", {"child", "-", "6"}), options);
    ASSERT_THAT(child, IsOk()) << child.status();
    absl::StatusOr<ExitStatus> status = child->Wait();
    ASSERT_THAT(status, IsOk());
    EXPECT_EQ(status->exit_code(), 6) << "sealed=" << sealed;
  }
  EXPECT_THAT(hygiene.Check(), IsOk()) << hygiene.Check();
}

}  // namespace
}  // namespace spawnlab
