// spawn_test.cc: every spawn method starts each child, returns its exit code,
// reports bad paths clearly, and leaves no zombie and no descriptor behind.

#include "lib/spawn.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/clone3.h"
#include "lib/probes.h"
#include "lib/runfiles.h"
#include "lib/testing/hygiene.h"
#include "lib/testing/signal_state.h"
#include "lib/testing/status_matchers.h"

using ::spawnlab::testing::IsOk;

namespace spawnlab {
namespace {

using ::testing::HasSubstr;

int64_t NowNanos() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

std::string TempPath(absl::string_view name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  return absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/", name);
}

class SpawnTest : public ::testing::TestWithParam<SpawnMethod> {
 protected:
  void SetUp() override {
    SpawnMethod m = GetParam();
    if (m == SpawnMethod::kClone3 || m == SpawnMethod::kClone3Cow) {
      if (absl::Status s = ProbeClonePidfd(); !s.ok()) GTEST_SKIP() << s;
    }
  }
  testing::Hygiene hygiene_;
};

TEST_P(SpawnTest, EveryChildRunsReportsItsClockAndExitCode) {
  for (const char* child :
       {"lib/children/static_child", "lib/children/dynamic_child", "lib/children/minimal_child"}) {
    SCOPED_TRACE(child);
    absl::StatusOr<std::string> path = Runfile(child);
    ASSERT_THAT(path, IsOk()) << path.status();
    int fds[2];
    ASSERT_EQ(pipe2(fds, O_CLOEXEC), 0);
    UniqueFd read_end(fds[0]);
    // The write end is passed on: only it must survive the exec.
    UniqueFd write_end(fcntl(fds[1], F_DUPFD, 3));
    close(fds[1]);
    ExecSpec spec(*path, {*path, absl::StrCat(write_end.get()), "7"});
    const int64_t before = NowNanos();
    absl::StatusOr<Child> spawned = Spawn(GetParam(), spec);
    ASSERT_THAT(spawned, IsOk()) << spawned.status();
    absl::StatusOr<ExitStatus> status = spawned->Wait();
    const int64_t after = NowNanos();
    ASSERT_THAT(status, IsOk()) << status.status();
    EXPECT_TRUE(status->exited()) << status->ToString();
    EXPECT_EQ(status->exit_code(), 7);
    EXPECT_TRUE(spawned->reaped());
    int64_t child_clock = 0;
    ASSERT_EQ(read(read_end.get(), &child_clock, sizeof(child_clock)), sizeof(child_clock));
    EXPECT_GT(child_clock, before);
    EXPECT_LT(child_clock, after);
  }
  EXPECT_THAT(hygiene_.Check(), IsOk()) << hygiene_.Check();
}

// close_other_fds: the program sees 0-2 and the mapped targets only, whatever
// the parent had open, inheritable or not.
TEST_P(SpawnTest, CloseOtherFdsLeavesOnlyTheStandardAndTheMappedDescriptors) {
  const int inheritable = open("/dev/null", O_RDONLY);
  const int source = open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(inheritable, 0);
  ASSERT_GE(source, 0);
  // `ls` lists its own directory descriptor too: 0, 1, 2, 7 and that one.
  const ExecSpec count("/bin/sh", {"sh", "-c", "exit $(ls /proc/self/fd | wc -l)"});
  auto descriptors_seen = [&](bool close_others) {
    SpawnOptions options;
    options.fd_map = {{source, 7}};
    options.close_other_fds = close_others;
    absl::StatusOr<Child> child = Spawn(GetParam(), count, options);
    if (!child.ok()) return -1;
    absl::StatusOr<ExitStatus> status = child->Wait();
    return status.ok() && status->exited() ? status->exit_code() : -1;
  };
  const int without = descriptors_seen(false);
  const int with = descriptors_seen(true);
  // The fallbacks a kernel before 5.11 (or without /proc) takes.
  SetCloseOthersWayForTesting(CloseOthersWay::kProcWalk);
  const int by_proc_walk = descriptors_seen(true);
  SetCloseOthersWayForTesting(CloseOthersWay::kEveryDescriptor);
  const int by_every_descriptor = descriptors_seen(true);
  SetCloseOthersWayForTesting(CloseOthersWay::kFastest);
  close(inheritable);
  close(source);
  EXPECT_GE(without, 6) << "the inheritable descriptor did not reach the child";
  EXPECT_EQ(with, 5) << "close_other_fds left descriptors open, or closed a mapped one";
  EXPECT_EQ(by_proc_walk, 5) << "the /proc/self/fd walk left descriptors open, or closed a "
                                "mapped one";
  EXPECT_EQ(by_every_descriptor, 5) << "closing each descriptor up to the limit left some open, "
                                       "or closed a mapped one";
}

TEST_P(SpawnTest, ExitCodesComeBack) {
  absl::StatusOr<std::string> path = Runfile("lib/children/minimal_child");
  ASSERT_THAT(path, IsOk()) << path.status();
  for (int code : {0, 1, 42, 255}) {
    absl::StatusOr<Child> child =
        Spawn(GetParam(), ExecSpec(*path, {*path, "-", absl::StrCat(code)}));
    ASSERT_THAT(child, IsOk()) << child.status();
    absl::StatusOr<ExitStatus> status = child->Wait();
    ASSERT_THAT(status, IsOk()) << status.status();
    EXPECT_EQ(status->exit_code(), code);
    EXPECT_EQ(status->success(), code == 0);
  }
  EXPECT_THAT(hygiene_.Check(), IsOk()) << hygiene_.Check();
}

TEST_P(SpawnTest, MissingProgramIsNotFoundNamingThePath) {
  const std::string missing = TempPath("no-such-program");
  absl::StatusOr<Child> child = Spawn(GetParam(), ExecSpec(missing, {missing}));
  ASSERT_FALSE(child.ok());
  EXPECT_EQ(child.status().code(), absl::StatusCode::kNotFound) << child.status();
  EXPECT_THAT(child.status().message(), HasSubstr(missing));
  EXPECT_THAT(hygiene_.Check(), IsOk()) << hygiene_.Check();
}

TEST_P(SpawnTest, NonExecutableProgramIsPermissionDenied) {
  const std::string plain = TempPath("not-executable");
  std::ofstream(plain) << "#!/bin/sh\nexit 0\n";
  ASSERT_EQ(chmod(plain.c_str(), 0644), 0);
  absl::StatusOr<Child> child = Spawn(GetParam(), ExecSpec(plain, {plain}));
  ASSERT_FALSE(child.ok());
  EXPECT_EQ(child.status().code(), absl::StatusCode::kPermissionDenied) << child.status();
  EXPECT_THAT(child.status().message(), HasSubstr(plain));
  EXPECT_THAT(hygiene_.Check(), IsOk()) << hygiene_.Check();
}

TEST_P(SpawnTest, EnvironmentIsPassed) {
  ExecSpec spec("/bin/sh", {"sh", "-c", "test \"$SPAWNLAB_X\" = yes"}, {"SPAWNLAB_X=yes"});
  absl::StatusOr<Child> child = Spawn(GetParam(), spec);
  ASSERT_THAT(child, IsOk()) << child.status();
  absl::StatusOr<ExitStatus> status = child->Wait();
  ASSERT_THAT(status, IsOk()) << status.status();
  EXPECT_TRUE(status->success()) << status->ToString();
}

// S000-4: a descriptor without O_CLOEXEC crosses fork+exec; one with it does not.
TEST_P(SpawnTest, OnlyDescriptorsWithoutCloexecAreInherited) {
  for (bool cloexec : {false, true}) {
    UniqueFd fd(open("/dev/null", O_RDONLY | (cloexec ? O_CLOEXEC : 0)));
    ASSERT_TRUE(fd.valid());
    ExecSpec spec("/bin/sh", {"sh", "-c", absl::StrCat("test -e /proc/self/fd/", fd.get())});
    absl::StatusOr<Child> child = Spawn(GetParam(), spec);
    ASSERT_THAT(child, IsOk()) << child.status();
    absl::StatusOr<ExitStatus> status = child->Wait();
    ASSERT_THAT(status, IsOk()) << status.status();
    EXPECT_EQ(status->success(), !cloexec) << "O_CLOEXEC=" << cloexec;
  }
}

TEST_P(SpawnTest, DestroyingARunningChildKillsAndReapsIt) {
  {
    absl::StatusOr<Child> child = Spawn(GetParam(), ExecSpec("/bin/sleep", {"sleep", "600"}));
    ASSERT_THAT(child, IsOk()) << child.status();
    absl::StatusOr<ExitStatus> status = child->WaitFor(absl::Milliseconds(20));
    EXPECT_EQ(status.status().code(), absl::StatusCode::kDeadlineExceeded);
    EXPECT_FALSE(child->reaped());
  }
  EXPECT_THAT(hygiene_.Check(), IsOk()) << hygiene_.Check();
}

TEST_P(SpawnTest, KillEndsTheChildWithTheSignal) {
  absl::StatusOr<Child> child = Spawn(GetParam(), ExecSpec("/bin/sleep", {"sleep", "600"}));
  ASSERT_THAT(child, IsOk()) << child.status();
  ASSERT_THAT(child->Kill(SIGTERM), IsOk());
  absl::StatusOr<ExitStatus> status = child->WaitFor(absl::Seconds(30));
  ASSERT_THAT(status, IsOk()) << status.status();
  EXPECT_TRUE(status->signaled());
  EXPECT_EQ(status->term_signal(), SIGTERM);
  EXPECT_EQ(child->Wait().status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST_P(SpawnTest, Clone3MethodsGiveAPidfdUnlessToldNot) {
  absl::StatusOr<Child> child = Spawn(GetParam(), ExecSpec("/bin/sleep", {"sleep", "600"}));
  ASSERT_THAT(child, IsOk()) << child.status();
  bool wants_pidfd = GetParam() == SpawnMethod::kClone3 || GetParam() == SpawnMethod::kClone3Cow;
  EXPECT_EQ(child->pidfd() >= 0, wants_pidfd);
  SpawnOptions no_pidfd;
  no_pidfd.want_pidfd = false;
  absl::StatusOr<Child> other =
      Spawn(GetParam(), ExecSpec("/bin/sleep", {"sleep", "600"}), no_pidfd);
  ASSERT_THAT(other, IsOk()) << other.status();
  EXPECT_EQ(other->pidfd(), -1);
}

// Runs `script` under /bin/sh with `options` plus stdout mapped to a pipe;
// returns what it printed, or the error.
absl::StatusOr<std::string> Output(SpawnMethod method, const ExecSpec& spec, SpawnOptions options) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return absl::ErrnoToStatus(errno, "pipe2");
  UniqueFd read_end(fds[0]), write_end(fds[1]);
  options.fd_map.push_back({write_end.get(), 1});
  absl::StatusOr<Child> child = Spawn(method, spec, options);
  write_end.reset();
  if (!child.ok()) return child.status();
  std::string out;
  char buf[256];
  ssize_t n;
  while ((n = read(read_end.get(), buf, sizeof(buf))) > 0) out.append(buf, static_cast<size_t>(n));
  absl::StatusOr<ExitStatus> status = child->Wait();
  if (!status.ok()) return status.status();
  if (!status->success()) return absl::InternalError(status->ToString());
  return out;
}

absl::StatusOr<std::string> ShellOutput(SpawnMethod method, const std::string& script,
                                        SpawnOptions options) {
  return Output(method, ExecSpec("/bin/sh", {"sh", "-c", script}), options);
}

TEST_P(SpawnTest, OptionsMapDescriptorsAndChangeDirectory) {
  absl::StatusOr<std::string> out = ShellOutput(GetParam(), "echo hello", {});
  ASSERT_THAT(out, IsOk()) << out.status();
  EXPECT_EQ(*out, "hello\n");
  SpawnOptions in_tmp;
  in_tmp.working_dir = "/tmp";
  out = ShellOutput(GetParam(), "pwd", in_tmp);
  ASSERT_THAT(out, IsOk()) << out.status();
  EXPECT_EQ(*out, "/tmp\n");
  EXPECT_THAT(hygiene_.Check(), IsOk()) << hygiene_.Check();
}

TEST_P(SpawnTest, MissingWorkingDirectoryIsNotFoundNamingIt) {
  SpawnOptions options;
  options.working_dir = TempPath("no-such-dir");
  absl::StatusOr<Child> child = Spawn(GetParam(), ExecSpec("/bin/true", {"true"}), options);
  ASSERT_FALSE(child.ok());
  EXPECT_EQ(child.status().code(), absl::StatusCode::kNotFound) << child.status();
  EXPECT_THAT(child.status().message(), HasSubstr("no-such-dir"));
  EXPECT_THAT(hygiene_.Check(), IsOk()) << hygiene_.Check();
}

// ExecErrors::kAtWait: fork and clone3-cow return before the exec, and the
// same error comes from Wait; the other methods know at once and still fail
// the Spawn. Either way the child is reaped and the report pipe closed.
absl::Status SpawnAndWait(SpawnMethod method, const ExecSpec& spec, SpawnOptions options,
                          bool wait_for) {
  options.exec_errors = ExecErrors::kAtWait;
  absl::StatusOr<Child> child = Spawn(method, spec, options);
  const bool deferred = method == SpawnMethod::kFork || method == SpawnMethod::kClone3Cow;
  if (!child.ok() && deferred) {
    return absl::InternalError(absl::StrCat("Spawn failed: ", child.status().ToString()));
  }
  if (!child.ok()) return child.status();
  absl::StatusOr<ExitStatus> status = wait_for ? child->WaitFor(absl::Seconds(60)) : child->Wait();
  if (!child->reaped()) return absl::InternalError("the child was not reaped");
  if (!status.ok()) return status.status();
  return status->success() ? absl::OkStatus() : absl::UnknownError(status->ToString());
}

TEST_P(SpawnTest, ExecErrorsAtWaitReportTheFailedExecFromWait) {
  const std::string missing = TempPath("no-such-program");
  for (bool wait_for : {false, true}) {
    absl::Status s = SpawnAndWait(GetParam(), ExecSpec(missing, {missing}), {}, wait_for);
    EXPECT_EQ(s.code(), absl::StatusCode::kNotFound) << s;
    EXPECT_THAT(s.message(), HasSubstr(missing));
    EXPECT_THAT(s.message(), HasSubstr(SpawnMethodName(GetParam())));
    SpawnOptions in_missing_dir;
    in_missing_dir.working_dir = TempPath("no-such-dir");
    s = SpawnAndWait(GetParam(), ExecSpec("/bin/true", {"true"}), in_missing_dir, wait_for);
    EXPECT_EQ(s.code(), absl::StatusCode::kNotFound) << s;
    EXPECT_THAT(s.message(), HasSubstr("chdir"));
    EXPECT_THAT(s.message(), HasSubstr("no-such-dir"));
  }
  EXPECT_THAT(hygiene_.Check(), IsOk()) << hygiene_.Check();
}

TEST_P(SpawnTest, ExecErrorsAtWaitLeaveASuccessfulChildsStatusAlone) {
  EXPECT_THAT(SpawnAndWait(GetParam(), ExecSpec("/bin/true", {"true"}), {}, false), IsOk());
  absl::Status s = SpawnAndWait(GetParam(), ExecSpec("/bin/false", {"false"}), {}, true);
  // Exit 1 is the program's, not an exec error.
  EXPECT_EQ(s.code(), absl::StatusCode::kUnknown) << s;
  // A child dropped before its Wait, or released, takes its report pipe with it.
  for (bool release : {false, true}) {
    SpawnOptions options;
    options.exec_errors = ExecErrors::kAtWait;
    absl::StatusOr<Child> child =
        Spawn(GetParam(), ExecSpec("/bin/sleep", {"sleep", "600"}), options);
    ASSERT_THAT(child, IsOk()) << child.status();
    if (release) {
      const pid_t pid = child->pid();
      ASSERT_EQ(child->Release(), pid);
      ASSERT_EQ(kill(pid, SIGKILL), 0);
      int status;
      ASSERT_EQ(waitpid(pid, &status, 0), pid);
    }
  }
  EXPECT_THAT(hygiene_.Check(), IsOk()) << hygiene_.Check();
}

// ExecErrors::kByExitStatus: no pipe at all. A fork or clone3-cow child whose
// exec fails exits 127, which Wait returns as the status it is; the other
// methods know at once and still fail the Spawn. A good child is untouched.
TEST_P(SpawnTest, ExecErrorsByExitStatusLeaveOnlyTheExitStatus) {
  const bool copying = GetParam() == SpawnMethod::kFork || GetParam() == SpawnMethod::kClone3Cow;
  SpawnOptions options;
  options.exec_errors = ExecErrors::kByExitStatus;
  const std::string missing = TempPath("no-such-program");
  absl::StatusOr<Child> child = Spawn(GetParam(), ExecSpec(missing, {missing}), options);
  if (copying) {
    ASSERT_THAT(child, IsOk()) << child.status();
    absl::StatusOr<ExitStatus> status = child->Wait();
    ASSERT_THAT(status, IsOk()) << status.status();
    EXPECT_TRUE(status->exited());
    EXPECT_EQ(status->exit_code(), 127);
  } else {
    EXPECT_EQ(child.status().code(), absl::StatusCode::kNotFound) << child.status();
  }
  for (int code : {0, 3}) {
    absl::StatusOr<Child> good =
        Spawn(GetParam(), ExecSpec("/bin/sh", {"sh", "-c", absl::StrCat("exit ", code)}), options);
    ASSERT_THAT(good, IsOk()) << good.status();
    absl::StatusOr<ExitStatus> status = good->WaitFor(absl::Seconds(60));
    ASSERT_THAT(status, IsOk()) << status.status();
    EXPECT_EQ(status->exit_code(), code);
  }
  EXPECT_THAT(hygiene_.Check(), IsOk()) << hygiene_.Check();
}

TEST_P(SpawnTest, ExecsADescriptor) {
  absl::StatusOr<std::string> path = Runfile("lib/children/minimal_child");
  ASSERT_THAT(path, IsOk());
  UniqueFd fd(open(path->c_str(), O_PATH | O_CLOEXEC));
  ASSERT_TRUE(fd.valid());
  SpawnOptions options;
  options.exec_fd = fd.get();
  absl::StatusOr<Child> child = Spawn(
      GetParam(), ExecSpec("minimal_child (by descriptor)", {"minimal_child", "-", "4"}), options);
  if (GetParam() == SpawnMethod::kPosixSpawn) {
    EXPECT_EQ(child.status().code(), absl::StatusCode::kInvalidArgument);
    return;
  }
  ASSERT_THAT(child, IsOk()) << child.status();
  absl::StatusOr<ExitStatus> status = child->Wait();
  ASSERT_THAT(status, IsOk());
  EXPECT_EQ(status->exit_code(), 4);
  fd.reset();
  EXPECT_THAT(hygiene_.Check(), IsOk()) << hygiene_.Check();
}

volatile sig_atomic_t usr1_seen = 0;
void OnUsr1(int) { usr1_seen = 1; }

TEST_P(SpawnTest, ResettingHandlersKeepsTheParentsOwnAndItsMask) {
  if (GetParam() == SpawnMethod::kClone3) {
    if (absl::Status s = ProbeCloneClearSighand(); !s.ok()) GTEST_SKIP() << s;
  }
  struct sigaction sa = {}, old;
  sa.sa_handler = OnUsr1;
  ASSERT_EQ(sigaction(SIGUSR1, &sa, &old), 0);
  sigset_t before, after;
  pthread_sigmask(SIG_SETMASK, nullptr, &before);
  SpawnOptions options;
  options.reset_signal_handlers = true;
  // The child starts with default dispositions: SIGUSR1 to itself kills it.
  absl::StatusOr<Child> child =
      Spawn(GetParam(), ExecSpec("/bin/sh", {"sh", "-c", "kill -USR1 $$; exit 0"}), options);
  ASSERT_THAT(child, IsOk()) << child.status();
  absl::StatusOr<ExitStatus> status = child->Wait();
  ASSERT_THAT(status, IsOk());
  EXPECT_TRUE(status->signaled() && status->term_signal() == SIGUSR1) << status->ToString();
  // The parent keeps its handler and its signal mask.
  struct sigaction now;
  sigaction(SIGUSR1, nullptr, &now);
  EXPECT_EQ(now.sa_handler, OnUsr1);
  pthread_sigmask(SIG_SETMASK, nullptr, &after);
  for (int sig = 1; sig < NSIG; ++sig) {
    EXPECT_EQ(sigismember(&before, sig), sigismember(&after, sig)) << sig;
  }
  raise(SIGUSR1);
  EXPECT_EQ(usr1_seen, 1);
  sigaction(SIGUSR1, &old, nullptr);
}

// A descriptor mapped onto itself ({fd, fd}) loses its close-on-exec flag in
// the child, as posix_spawn_file_actions_adddup2 does since POSIX 2024.
TEST_P(SpawnTest, ADescriptorMappedToItselfIsInherited) {
  UniqueFd fd(open("/dev/null", O_RDONLY | O_CLOEXEC));
  ASSERT_TRUE(fd.valid());
  SpawnOptions options;
  options.fd_map.push_back({fd.get(), fd.get()});
  absl::StatusOr<std::string> out = ShellOutput(
      GetParam(), absl::StrCat("test -e /proc/self/fd/", fd.get(), " && echo yes"), options);
  ASSERT_THAT(out, IsOk()) << out.status();
  EXPECT_EQ(*out, "yes\n");
  // The parent's copy keeps its flag.
  EXPECT_EQ(fcntl(fd.get(), F_GETFD), FD_CLOEXEC);
}

// A mapping whose target is the descriptor the spawn's own exec-error pipe
// would get must not hide an exec failure (fork and clone3-cow report it on
// that pipe).
TEST_P(SpawnTest, AMappingOntoTheErrorPipeStillReportsAMissingProgram) {
  UniqueFd devnull(open("/dev/null", O_WRONLY | O_CLOEXEC));
  ASSERT_TRUE(devnull.valid());
  // The two lowest free descriptors: a pipe made now would get them.
  UniqueFd a(open("/dev/null", O_RDONLY | O_CLOEXEC)), b(open("/dev/null", O_RDONLY | O_CLOEXEC));
  ASSERT_TRUE(a.valid() && b.valid());
  const int read_end = a.get(), write_end = b.get();
  a.reset();
  b.reset();
  for (int target : {read_end, write_end}) {
    SpawnOptions options;
    options.fd_map.push_back({devnull.get(), target});
    absl::StatusOr<Child> child =
        Spawn(GetParam(), ExecSpec(TempPath("no-such-program"), {"x"}), options);
    EXPECT_EQ(child.status().code(), absl::StatusCode::kNotFound)
        << "target " << target << ": " << child.status();
  }
  devnull.reset();
  EXPECT_THAT(hygiene_.Check(), IsOk()) << hygiene_.Check();
}

// A mapping that cannot be made is an error, by every method (posix_spawn's
// file actions included), never a child started without it.
TEST_P(SpawnTest, AnImpossibleMappingIsAnError) {
  for (int from : {-1, 100000}) {
    SpawnOptions options;
    options.fd_map.push_back({from, 5});
    absl::StatusOr<Child> child = Spawn(GetParam(), ExecSpec("/bin/true", {"true"}), options);
    EXPECT_FALSE(child.ok()) << "from " << from;
    if (!child.ok()) {
      EXPECT_EQ(child.status().code(), absl::StatusCode::kFailedPrecondition)
          << child.status();  // EBADF
    }
  }
  EXPECT_THAT(hygiene_.Check(), IsOk()) << hygiene_.Check();
}

// The child's signal masks, spawned by `method` with `options` from a caller
// that ignores SIGPIPE, SIGXFSZ and SIGHUP and blocks SIGUSR2.
absl::StatusOr<testing::SignalMasks> ChildSignalMasks(SpawnMethod method,
                                                      const SpawnOptions& options) {
  testing::CallerSignals caller({SIGPIPE, SIGXFSZ, SIGHUP}, {SIGUSR2});
  const ExecSpec grep("/bin/grep", {"grep", "-E", "^Sig(Blk|Ign)", "/proc/self/status"});
  absl::StatusOr<std::string> out = Output(method, grep, options);
  if (!out.ok()) return out.status();
  return testing::ParseSignalMasks(*out);
}

// default_signals: nothing ignored and nothing blocked in the child.
TEST_P(SpawnTest, DefaultSignalsGiveTheChildAFreshStart) {
  if (GetParam() == SpawnMethod::kClone3) {
    if (absl::Status s = ProbeCloneClearSighand(); !s.ok()) GTEST_SKIP() << s;
  }
  SpawnOptions options;
  options.default_signals = true;
  absl::StatusOr<testing::SignalMasks> m = ChildSignalMasks(GetParam(), options);
  ASSERT_THAT(m, IsOk()) << m.status();
  EXPECT_EQ(m->blocked & ~testing::kGlibcOwnSignals, 0u) << std::hex << m->blocked;
  EXPECT_EQ(m->ignored & ~testing::kGlibcOwnSignals, 0u) << std::hex << m->ignored;
  // Without the option the child inherits both (the bare primitive).
  absl::StatusOr<testing::SignalMasks> inherited = ChildSignalMasks(GetParam(), SpawnOptions());
  ASSERT_THAT(inherited, IsOk()) << inherited.status();
  EXPECT_NE(inherited->ignored & testing::Bit(SIGPIPE), 0u);
  EXPECT_NE(inherited->blocked & testing::Bit(SIGUSR2), 0u);
}

// restore_signals: SIGPIPE and SIGXFSZ back at SIG_DFL and the mask empty;
// SIGHUP, ignored by the parent's own parent (nohup), stays ignored.
TEST_P(SpawnTest, RestoreSignalsResetsPipeAndXfszOnly) {
  if (GetParam() == SpawnMethod::kClone3) {
    if (absl::Status s = ProbeCloneClearSighand(); !s.ok()) GTEST_SKIP() << s;
  }
  SpawnOptions options;
  options.restore_signals = true;
  absl::StatusOr<testing::SignalMasks> m = ChildSignalMasks(GetParam(), options);
  ASSERT_THAT(m, IsOk()) << m.status();
  EXPECT_EQ(m->blocked & ~testing::kGlibcOwnSignals, 0u) << std::hex << m->blocked;
  EXPECT_EQ(m->ignored & (testing::Bit(SIGPIPE) | testing::Bit(SIGXFSZ)), 0u)
      << std::hex << m->ignored;
  EXPECT_NE(m->ignored & testing::Bit(SIGHUP), 0u) << std::hex << m->ignored;
}

TEST_P(SpawnTest, ANewProcessGroupIsLedByTheChild) {
  SpawnOptions options;
  options.new_process_group = true;
  absl::StatusOr<std::string> out = ShellOutput(
      GetParam(), "test \"$(cut -d' ' -f5 /proc/$$/stat)\" = $$ && echo leader", options);
  ASSERT_THAT(out, IsOk()) << out.status();
  EXPECT_EQ(*out, "leader\n");
}

// A child that someone else reaped (waitpid(-1), a SIGCHLD handler) is let
// go: its pid may be another process's by now, and must not be signalled.
TEST_P(SpawnTest, AChildReapedElsewhereIsLetGo) {
  absl::StatusOr<Child> child = Spawn(GetParam(), ExecSpec("/bin/true", {"true"}));
  ASSERT_THAT(child, IsOk()) << child.status();
  int status;
  ASSERT_EQ(waitpid(child->pid(), &status, 0), child->pid());
  absl::StatusOr<ExitStatus> again = child->Wait();
  EXPECT_FALSE(again.ok());
  EXPECT_TRUE(child->reaped());
}

INSTANTIATE_TEST_SUITE_P(AllMethods, SpawnTest, ::testing::ValuesIn(AllSpawnMethods()),
                         [](const ::testing::TestParamInfo<SpawnMethod>& info) {
                           return absl::StrReplaceAll(SpawnMethodName(info.param), {{"-", "_"}});
                         });

TEST(SpawnMethodName, RoundTripsAndRejectsUnknownNames) {
  for (SpawnMethod m : AllSpawnMethods()) {
    absl::StatusOr<SpawnMethod> parsed = ParseSpawnMethod(SpawnMethodName(m));
    ASSERT_THAT(parsed, IsOk());
    EXPECT_EQ(*parsed, m);
  }
  absl::StatusOr<SpawnMethod> bad = ParseSpawnMethod("spoon");
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("spoon"));
}

// Without CLONE_VM the child runs on a copy of the caller's stack: the
// function it calls must still find the stack aligned as the ABI says (16
// bytes at the call), or SSE code (printf's "%f") faults.
int ChildChecksItsStack(void*) {
  const bool aligned = reinterpret_cast<uintptr_t>(__builtin_frame_address(0)) % 16 == 0;
  char buf[32];
  snprintf(buf, sizeof(buf), "%f", 1.5);
  return aligned && std::string(buf) == "1.500000" ? 0 : 1;
}

TEST(Clone3, TheChildFunctionRunsOnAnAlignedStack) {
  if (absl::Status s = ProbeClonePidfd(); !s.ok()) GTEST_SKIP() << s;
  struct clone_args args = {};
  args.exit_signal = SIGCHLD;
  const long pid = spawnlab_clone3(&args, sizeof(args), ChildChecksItsStack, nullptr);
  ASSERT_GT(pid, 0) << strerror(static_cast<int>(-pid));
  int status;
  ASSERT_EQ(waitpid(static_cast<pid_t>(pid), &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << ExitStatus(status).ToString();
}

TEST(PollTimeoutMs, RoundsUpAndNeverWraps) {
  EXPECT_EQ(PollTimeoutMs(-5), 0);
  EXPECT_EQ(PollTimeoutMs(0), 0);
  EXPECT_EQ(PollTimeoutMs(1), 1);
  EXPECT_EQ(PollTimeoutMs(1000000), 2);
  EXPECT_EQ(PollTimeoutMs(INT64_MAX), INT_MAX);
  EXPECT_EQ(PollTimeoutMs(absl::ToInt64Nanoseconds(absl::InfiniteDuration())), INT_MAX);
}

TEST(ExitStatus, DescribesItself) {
  EXPECT_EQ(ExitStatus(3 << 8).ToString(), "exit 3");
  EXPECT_THAT(ExitStatus(SIGKILL).ToString(), HasSubstr("signal 9"));
}

}  // namespace
}  // namespace spawnlab
