// unique_fd_test.cc: a UniqueFd closes what it owns exactly once.

#include "lib/unique_fd.h"

#include <fcntl.h>

#include "gtest/gtest.h"
#include "lib/testing/hygiene.h"
#include "lib/testing/status_matchers.h"

using ::spawnlab::testing::IsOk;

namespace spawnlab {
namespace {

bool IsOpen(int fd) { return fcntl(fd, F_GETFD) != -1; }

TEST(UniqueFd, ClosesOnDestructionResetAndMove) {
  testing::Hygiene hygiene;
  int raw;
  {
    UniqueFd fd(open("/dev/null", O_RDONLY | O_CLOEXEC));
    ASSERT_TRUE(fd.valid());
    raw = fd.get();
    UniqueFd other = std::move(fd);
    EXPECT_FALSE(fd.valid());
    EXPECT_EQ(other.get(), raw);
    EXPECT_TRUE(IsOpen(raw));
  }
  EXPECT_FALSE(IsOpen(raw));

  UniqueFd a(open("/dev/null", O_RDONLY | O_CLOEXEC));
  UniqueFd b(open("/dev/null", O_RDONLY | O_CLOEXEC));
  const int a_raw = a.get();
  a = std::move(b);  // a's old descriptor is closed
  EXPECT_FALSE(IsOpen(a_raw));
  a.reset();
  EXPECT_FALSE(a.valid());

  UniqueFd c(open("/dev/null", O_RDONLY | O_CLOEXEC));
  int released = c.release();
  EXPECT_TRUE(IsOpen(released));
  close(released);
  EXPECT_THAT(hygiene.Check(), IsOk()) << hygiene.Check();
}

}  // namespace
}  // namespace spawnlab
