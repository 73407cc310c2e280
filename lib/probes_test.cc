// probes_test.cc: each probe answers, consistently, and leaves nothing behind.
// The probes are checked against each other and against the kernel release;
// a feature the kernel lacks must come back as a reason, not a crash.

#include "lib/probes.h"

#include <sys/utsname.h>

#include <cstdio>

#include "gtest/gtest.h"
#include "lib/testing/hygiene.h"

namespace spawnlab {
namespace {

// (major, minor) of the running kernel.
std::pair<int, int> KernelVersion() {
  struct utsname u;
  int major = 0, minor = 0;
  if (uname(&u) == 0) sscanf(u.release, "%d.%d", &major, &minor);
  return {major, minor};
}

TEST(Probes, EveryProbeAnswersWithAReasonWhenItFails) {
  testing::Hygiene hygiene;
  for (const auto& [name, status] : AllProbes()) {
    SCOPED_TRACE(name);
    if (!status.ok()) {
      EXPECT_FALSE(status.message().empty());
    }
  }
  EXPECT_TRUE(hygiene.Check().ok()) << hygiene.Check();
}

TEST(Probes, AnswersAreCachedAndStable) {
  EXPECT_EQ(ProbeClone3(), ProbeClone3());
  EXPECT_EQ(ProbeIoUring(), ProbeIoUring());
}

TEST(Probes, Clone3MatchesTheKernelRelease) {
  // clone3 arrived in 5.3; a seccomp filter may still hide it (ENOSYS or EPERM).
  if (KernelVersion() < std::make_pair(5, 3)) {
    EXPECT_FALSE(ProbeClone3().ok());
  } else if (!ProbeClone3().ok()) {
    GTEST_SKIP() << "kernel >= 5.3 but clone3 is filtered: " << ProbeClone3();
  }
}

TEST(Probes, PidfdNeedsClone3) {
  if (!ProbeClone3().ok()) {
    EXPECT_FALSE(ProbeClonePidfd().ok());
  }
  if (!ProbeClonePidfd().ok()) GTEST_SKIP() << ProbeClonePidfd();
  EXPECT_TRUE(ProbeClone3().ok());
}

TEST(Probes, MemfdAndExecveatOnAnyModernKernel) {
  if (KernelVersion() < std::make_pair(3, 19)) GTEST_SKIP() << "kernel older than 3.19";
  EXPECT_TRUE(ProbeMemfdCreate().ok()) << ProbeMemfdCreate();
  EXPECT_TRUE(ProbeExecveat().ok()) << ProbeExecveat();
}

TEST(Probes, IoUringOpcodes) {
  if (absl::Status s = ProbeIoUring(); !s.ok()) {
    // The reason is passed on to every opcode.
    EXPECT_EQ(ProbeIoUringOpcode(0), s);
    GTEST_SKIP() << s;
  }
  EXPECT_TRUE(ProbeIoUringOpcode(0).ok()) << "IORING_OP_NOP";
  absl::Status bogus = ProbeIoUringOpcode(250);
  EXPECT_EQ(bogus.code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(ProbeIoUringOpcode(-1).code(), absl::StatusCode::kUnimplemented);
}

}  // namespace
}  // namespace spawnlab
