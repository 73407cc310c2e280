// probes.h: does this kernel offer a feature? Each probe tries the feature
// once (the kernel selftests' way: call it and read the errno), caches the
// answer, and returns OK or a Status whose message says what is missing and why.
//
// Tests skip on a failed probe and benches write a skipped row with its message:
//
//   if (absl::Status s = spawnlab::ProbeClone3(); !s.ok()) {
//     GTEST_SKIP() << s;
//   }

#ifndef SPAWNLAB_LIB_PROBES_H_
#define SPAWNLAB_LIB_PROBES_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "lib/unique_fd.h"

namespace spawnlab {

absl::Status ProbeClone3();                   // clone3(2), Linux 5.3
absl::Status ProbeClonePidfd();               // CLONE_PIDFD, with clone3
absl::Status ProbeCloneIntoCgroup();          // CLONE_INTO_CGROUP, Linux 5.7, cgroup v2
absl::Status ProbeCloneClearSighand();        // CLONE_CLEAR_SIGHAND, Linux 5.5
absl::Status ProbePidfdOpen();                // pidfd_open(2), Linux 5.3
absl::Status ProbeIoUring();                  // io_uring_setup(2), and io_uring_disabled
absl::Status ProbeIoUringOpcode(int opcode);  // via io_uring_get_probe
absl::Status ProbeMemfdCreate();              // memfd_create(2), Linux 3.17
absl::Status ProbeExecveat();                 // execveat(2), Linux 3.19
absl::Status ProbeWaitidPidfd();              // waitid(P_PIDFD, ...), Linux 5.4
absl::Status ProbeCloseRange();               // close_range(2), Linux 5.9
absl::Status ProbeCloseRangeCloexec();        // close_range's CLOSE_RANGE_CLOEXEC, Linux 5.11
absl::Status ProbePerfInstructions();         // perf_event_open of retired instructions

// A counter of the user-space instructions the calling thread retires
// (perf_event_open, created disabled); invalid where ProbePerfInstructions
// fails. Enable and read it with the PERF_EVENT_IOC_* ioctls.
UniqueFd OpenInstructionCounter();

// The io_uring opcode IORING_OP_WAITID (Linux 6.7): liburing 2.3 predates it,
// so its number is written here, from the kernel's include/uapi/linux/io_uring.h.
inline constexpr int kIoringOpWaitid = 50;

// A kernel feature, the release that added it, and whether this kernel has it.
struct ProbeResult {
  std::string name;   // "clone3"
  std::string since;  // "Linux 5.3"
  absl::Status status;
};

// Every feature spawnlab probes, for the environment record (`probe.NAME` and
// `probe.NAME.since`) and the report's kernel-feature matrix. A new kernel
// interface starts here: its probe, and a line below with the release.
std::vector<ProbeResult> AllProbes();

}  // namespace spawnlab

#endif  // SPAWNLAB_LIB_PROBES_H_
