// probes.cc: see probes.h. Each probe runs once per process.

#include "lib/probes.h"

#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <linux/close_range.h>
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "lib/cgroup.h"
#include "lib/clone3.h"
#include "lib/unique_fd.h"

namespace spawnlab {
namespace {

// A Status for a probe that failed with `err`, naming the feature and, for
// ENOSYS, the kernel that introduced it.
absl::Status Missing(absl::string_view feature, int err, absl::string_view since) {
  std::string why;
  switch (err) {
    case ENOSYS:
      why = absl::StrCat("the kernel lacks it (ENOSYS); it needs ", since);
      break;
    case EINVAL:
      why = absl::StrCat("the kernel rejects it (EINVAL); it needs ", since);
      break;
    case EPERM:
    case EACCES:
      why = absl::StrCat("not permitted here (", strerrorname_np(err),
                         "): a seccomp filter, an LSM or a sysctl forbids it");
      break;
    default:
      why = absl::StrCat("failed with ", strerrorname_np(err));
  }
  return absl::ErrnoToStatus(err, absl::StrCat(feature, ": ", why));
}

std::string ReadFirstLine(const char* path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return std::string(absl::StripAsciiWhitespace(line));
}

int ExitAtOnce(void*) { return 0; }

// clone3 without CLONE_VM whose child exits at once; reaps it.
absl::Status TryClone3(uint64_t extra_flags, int cgroup_fd, absl::string_view feature,
                       absl::string_view since) {
  struct clone_args args = {};
  int pidfd = -1;
  args.flags = extra_flags;
  args.exit_signal = SIGCHLD;
  if (extra_flags & CLONE_PIDFD) args.pidfd = reinterpret_cast<uintptr_t>(&pidfd);
  if (extra_flags & CLONE_INTO_CGROUP) args.cgroup = static_cast<uint64_t>(cgroup_fd);
  long r = spawnlab_clone3(&args, sizeof(args), ExitAtOnce, nullptr);
  if (r < 0) return Missing(feature, static_cast<int>(-r), since);
  UniqueFd owned(pidfd);
  int status;
  while (waitpid(static_cast<pid_t>(r), &status, 0) < 0 && errno == EINTR) {
  }
  if ((extra_flags & CLONE_PIDFD) && pidfd < 0) {
    return absl::InternalError(absl::StrCat(feature, ": clone3 gave no pidfd"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ProbeClone3() {
  static const absl::Status* const result = [] {
    // As the kernel selftests do: a NULL, zero-sized argument gets EINVAL from
    // a kernel that has clone3 and ENOSYS from one that has not.
    long r = syscall(SYS_clone3, nullptr, 0);
    int err = r < 0 ? errno : 0;
    if (err == EINVAL) return new absl::Status();
    if (err == 0) return new absl::Status(absl::InternalError("clone3(NULL, 0) succeeded"));
    return new absl::Status(Missing("clone3", err, "Linux 5.3"));
  }();
  return *result;
}

absl::Status ProbeClonePidfd() {
  static const absl::Status* const result = [] {
    absl::Status s = ProbeClone3();
    if (!s.ok()) return new absl::Status(s);
    return new absl::Status(TryClone3(CLONE_PIDFD, -1, "CLONE_PIDFD", "Linux 5.3"));
  }();
  return *result;
}

absl::Status ProbeCloneIntoCgroup() {
  static const absl::Status* const result = [] {
    absl::Status s = ProbeClone3();
    if (!s.ok()) return new absl::Status(s);
    absl::StatusOr<std::string> own = OwnCgroupV2Dir();
    if (!own.ok()) {
      return new absl::Status(absl::FailedPreconditionError(
          absl::StrCat("CLONE_INTO_CGROUP: ", own.status().message())));
    }
    const std::string& dir = *own;
    UniqueFd fd(open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!fd.valid()) {
      return new absl::Status(
          absl::ErrnoToStatus(errno, absl::StrCat("CLONE_INTO_CGROUP: open ", dir)));
    }
    return new absl::Status(
        TryClone3(CLONE_INTO_CGROUP, fd.get(), "CLONE_INTO_CGROUP", "Linux 5.7"));
  }();
  return *result;
}

absl::Status ProbeCloneClearSighand() {
  static const absl::Status* const result = [] {
    absl::Status s = ProbeClone3();
    if (!s.ok()) return new absl::Status(s);
    return new absl::Status(TryClone3(0x100000000ULL /* CLONE_CLEAR_SIGHAND */, -1,
                                      "CLONE_CLEAR_SIGHAND", "Linux 5.5"));
  }();
  return *result;
}

absl::Status ProbePidfdOpen() {
  static const absl::Status* const result = [] {
    long fd = syscall(SYS_pidfd_open, getpid(), 0);
    if (fd < 0) return new absl::Status(Missing("pidfd_open", errno, "Linux 5.3"));
    close(static_cast<int>(fd));
    return new absl::Status();
  }();
  return *result;
}

absl::Status ProbeIoUring() {
  static const absl::Status* const result = [] {
    struct io_uring ring;
    int r = io_uring_queue_init(2, &ring, 0);
    if (r == 0) {
      io_uring_queue_exit(&ring);
      return new absl::Status();
    }
    absl::Status s = Missing("io_uring", -r, "Linux 5.1");
    std::string disabled = ReadFirstLine("/proc/sys/kernel/io_uring_disabled");
    if (!disabled.empty() && disabled != "0") {
      s = absl::Status(s.code(),
                       absl::StrCat(s.message(), " (kernel.io_uring_disabled=", disabled, ")"));
    }
    return new absl::Status(s);
  }();
  return *result;
}

absl::Status ProbeIoUringOpcode(int opcode) {
  absl::Status ring = ProbeIoUring();
  if (!ring.ok()) return ring;
  // io_uring_get_probe sets up a ring of its own; ask once, keep the answer.
  static struct io_uring_probe* const probe = io_uring_get_probe();
  if (probe == nullptr) {
    return absl::UnavailableError(
        "io_uring: IORING_REGISTER_PROBE failed (Linux 5.6 or later needed)");
  }
  if (opcode < 0 || !io_uring_opcode_supported(probe, opcode)) {
    return absl::UnimplementedError(absl::StrCat(
        "io_uring opcode ", opcode, " is not supported by this kernel (its last opcode is ",
        static_cast<int>(probe->last_op), ")"));
  }
  return absl::OkStatus();
}

absl::Status ProbeMemfdCreate() {
  static const absl::Status* const result = [] {
    int fd = memfd_create("spawnlab-probe", MFD_CLOEXEC);
    if (fd < 0) return new absl::Status(Missing("memfd_create", errno, "Linux 3.17"));
    close(fd);
    return new absl::Status();
  }();
  return *result;
}

absl::Status ProbeExecveat() {
  static const absl::Status* const result = [] {
    // An invalid descriptor: EBADF proves the call exists without exec'ing.
    long r = syscall(SYS_execveat, -1, "", nullptr, nullptr, AT_EMPTY_PATH);
    int err = r < 0 ? errno : 0;
    if (err == EBADF) return new absl::Status();
    return new absl::Status(Missing("execveat", err, "Linux 3.19"));
  }();
  return *result;
}

namespace {
// close_range(2) with `flags` on a descriptor of its own, which it closes or
// marks: 0, or the errno (ENOSYS before 5.9; EINVAL for a flag it lacks).
int TryCloseRange(unsigned int flags) {
  int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  long r = syscall(SYS_close_range, fd, fd, flags);
  int err = r < 0 ? errno : 0;
  close(fd);  // EBADF if close_range closed it; harmless
  return err;
}
}  // namespace

absl::Status ProbeWaitidPidfd() {
  static const absl::Status* const result = [] {
    // A descriptor that is not a pidfd: EBADF proves P_PIDFD is understood
    // (a negative one would be EINVAL either way); before 5.4 the idtype
    // itself is EINVAL.
    int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return new absl::Status(absl::ErrnoToStatus(errno, "open /dev/null"));
    siginfo_t info;
    const int r = waitid(static_cast<idtype_t>(3 /* P_PIDFD */), static_cast<id_t>(fd), &info,
                         WEXITED | WNOHANG);
    const int err = r < 0 ? errno : 0;
    close(fd);
    if (err == EBADF) return new absl::Status();
    return new absl::Status(Missing("waitid(P_PIDFD)", err == 0 ? EINVAL : err, "Linux 5.4"));
  }();
  return *result;
}

absl::Status ProbeCloseRange() {
  static const absl::Status* const result = [] {
    int err = TryCloseRange(0);
    return new absl::Status(err == 0 ? absl::OkStatus() : Missing("close_range", err, "Linux 5.9"));
  }();
  return *result;
}

absl::Status ProbeCloseRangeCloexec() {
  static const absl::Status* const result = [] {
    int err = TryCloseRange(CLOSE_RANGE_CLOEXEC);
    return new absl::Status(err == 0 ? absl::OkStatus()
                                     : Missing("CLOSE_RANGE_CLOEXEC", err, "Linux 5.11"));
  }();
  return *result;
}

UniqueFd OpenInstructionCounter() {
  struct perf_event_attr attr = {};
  attr.size = sizeof(attr);
  attr.type = PERF_TYPE_HARDWARE;
  attr.config = PERF_COUNT_HW_INSTRUCTIONS;
  attr.disabled = 1;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  return UniqueFd(
      static_cast<int>(syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC)));
}

absl::Status ProbePerfInstructions() {
  static const absl::Status* const result = [] {
    if (OpenInstructionCounter().valid()) return new absl::Status();
    const int err = errno;
    std::string why;
    if (err == ENOENT || err == EOPNOTSUPP) {
      why = "this machine does not expose a hardware instruction counter (a VM often does not)";
    } else if (err == EACCES || err == EPERM) {
      why = absl::StrCat("not permitted (kernel.perf_event_paranoid=",
                         ReadFirstLine("/proc/sys/kernel/perf_event_paranoid"), ")");
    } else if (err == ENOSYS) {
      why = "the kernel lacks perf_event_open (ENOSYS): built without perf events";
    } else {
      why = "it failed";  // ErrnoToStatus adds the errno's own words
    }
    return new absl::Status(absl::ErrnoToStatus(
        err, absl::StrCat("perf_event_open(PERF_COUNT_HW_INSTRUCTIONS): ", why)));
  }();
  return *result;
}

std::vector<ProbeResult> AllProbes() {
  return {
      {"clone3", "Linux 5.3", ProbeClone3()},
      {"clone_pidfd", "Linux 5.3", ProbeClonePidfd()},
      {"clone_clear_sighand", "Linux 5.5", ProbeCloneClearSighand()},
      {"clone_into_cgroup", "Linux 5.7", ProbeCloneIntoCgroup()},
      {"pidfd_open", "Linux 5.3", ProbePidfdOpen()},
      {"io_uring", "Linux 5.1", ProbeIoUring()},
      {"io_uring_waitid", "Linux 6.7", ProbeIoUringOpcode(kIoringOpWaitid)},
      {"memfd_create", "Linux 3.17", ProbeMemfdCreate()},
      {"execveat", "Linux 3.19", ProbeExecveat()},
      {"waitid_pidfd", "Linux 5.4", ProbeWaitidPidfd()},
      {"close_range", "Linux 5.9", ProbeCloseRange()},
      {"close_range_cloexec", "Linux 5.11", ProbeCloseRangeCloexec()},
      {"perf_instructions", "Linux 2.6.31", ProbePerfInstructions()},
  };
}

}  // namespace spawnlab
