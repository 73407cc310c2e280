// probes_test.cc: each probe answers, consistently, and leaves nothing behind.
// The probes are checked against each other and against the kernel release;
// a feature the kernel lacks must come back as a reason, not a crash.

#include "lib/probes.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cstdio>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/hygiene.h"
#include "lib/testing/status_matchers.h"

using ::spawnlab::testing::IsOk;

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
  for (const ProbeResult& p : AllProbes()) {
    SCOPED_TRACE(p.name);
    EXPECT_THAT(p.since, ::testing::MatchesRegex("Linux [0-9]+\\.[0-9]+(\\.[0-9]+)?"));
    if (!p.status.ok()) {
      EXPECT_FALSE(p.status.message().empty());
    }
  }
  EXPECT_THAT(hygiene.Check(), IsOk()) << hygiene.Check();
}

// Each probe against an attempt of its own, made here by raw syscall: a
// probe that said "missing" for a call the kernel takes (or the reverse)
// fails this. ENOSYS is "the kernel lacks it"; anything else means the call
// exists (clone3 with size 0 is EINVAL; pidfd_open(-1) is EINVAL).
bool SyscallExists(long nr, long a0, long a1) {
  errno = 0;
  const long r = syscall(nr, a0, a1);
  if (r >= 0) close(static_cast<int>(r));
  return !(r < 0 && (errno == ENOSYS || errno == EPERM));
}

TEST(Probes, EachAgreesWithADirectAttempt) {
  EXPECT_EQ(ProbeClone3().ok(), SyscallExists(SYS_clone3, 0, 0)) << ProbeClone3();
  EXPECT_EQ(ProbePidfdOpen().ok(), SyscallExists(SYS_pidfd_open, getpid(), 0)) << ProbePidfdOpen();
  EXPECT_EQ(ProbeMemfdCreate().ok(),
            SyscallExists(SYS_memfd_create, reinterpret_cast<long>("probe-check"), MFD_CLOEXEC))
      << ProbeMemfdCreate();
  // io_uring_setup(0 entries) is EINVAL where the call exists; io_uring_disabled=2 is EPERM.
  struct io_uring_params params = {};
  EXPECT_EQ(ProbeIoUring().ok(),
            SyscallExists(SYS_io_uring_setup, 1, reinterpret_cast<long>(&params)))
      << ProbeIoUring();
}

TEST(Probes, WaitidPidfdMatchesTheKernelRelease) {
  // P_PIDFD arrived in 5.4. A probe that asks the wrong way (a negative
  // descriptor is EINVAL on every kernel) would say no on any of them.
  if (KernelVersion() < std::make_pair(5, 4)) {
    EXPECT_FALSE(ProbeWaitidPidfd().ok());
  } else {
    EXPECT_THAT(ProbeWaitidPidfd(), IsOk()) << ProbeWaitidPidfd();
  }
}

TEST(Probes, CloseRangeCloexecNeedsCloseRange) {
  if (!ProbeCloseRange().ok()) {
    EXPECT_FALSE(ProbeCloseRangeCloexec().ok());
  }
  if (!ProbeCloseRangeCloexec().ok()) GTEST_SKIP() << ProbeCloseRangeCloexec();
  EXPECT_THAT(ProbeCloseRange(), IsOk()) << ProbeCloseRange();
}

TEST(Probes, CloseRangeLeavesNoDescriptorBehind) {
  const int before = open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(before, 0);
  close(before);
  (void)ProbeCloseRange();
  (void)ProbeCloseRangeCloexec();
  const int after = open("/dev/null", O_RDONLY | O_CLOEXEC);
  EXPECT_EQ(after, before) << "a probe left a descriptor open";
  close(after);
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
  EXPECT_THAT(ProbeClone3(), IsOk());
}

TEST(Probes, MemfdAndExecveatOnAnyModernKernel) {
  if (KernelVersion() < std::make_pair(3, 19)) GTEST_SKIP() << "kernel older than 3.19";
  EXPECT_THAT(ProbeMemfdCreate(), IsOk()) << ProbeMemfdCreate();
  EXPECT_THAT(ProbeExecveat(), IsOk()) << ProbeExecveat();
}

TEST(Probes, IoUringOpcodes) {
  if (absl::Status s = ProbeIoUring(); !s.ok()) {
    // The reason is passed on to every opcode.
    EXPECT_EQ(ProbeIoUringOpcode(0), s);
    GTEST_SKIP() << s;
  }
  EXPECT_THAT(ProbeIoUringOpcode(0), IsOk()) << "IORING_OP_NOP";
  absl::Status bogus = ProbeIoUringOpcode(250);
  EXPECT_EQ(bogus.code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(ProbeIoUringOpcode(-1).code(), absl::StatusCode::kUnimplemented);
}

}  // namespace
}  // namespace spawnlab
