// command_test.cc: every feature of Command and every error it reports, with
// no leaked descriptor and no zombie afterwards.

#include "lib/command.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/probes.h"
#include "lib/runfiles.h"
#include "lib/testing/hygiene.h"
#include "lib/testing/signal_state.h"
#include "lib/testing/status_matchers.h"

using ::spawnlab::testing::IsOk;

namespace spawnlab {
namespace {

using ::testing::HasSubstr;

std::string Tmp(const std::string& name) {
  return absl::StrCat(std::getenv("TEST_TMPDIR"), "/", name);
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class CommandTest : public ::testing::Test {
 protected:
  void TearDown() override { EXPECT_THAT(hygiene_.Check(), IsOk()) << hygiene_.Check(); }
  testing::Hygiene hygiene_;
};

TEST_F(CommandTest, RunsAndReturnsTheExitStatus) {
  absl::StatusOr<CommandResult> r = Command("/bin/sh").Args({"-c", "exit 3"}).Run();
  ASSERT_THAT(r, IsOk()) << r.status();
  EXPECT_TRUE(r->status.exited());
  EXPECT_EQ(r->status.exit_code(), 3);
  EXPECT_FALSE(r->status.success());
}

TEST_F(CommandTest, FindsProgramsInPath) {
  absl::StatusOr<CommandResult> r = Command("true").Run();
  ASSERT_THAT(r, IsOk()) << r.status();
  EXPECT_TRUE(r->status.success());
}

TEST_F(CommandTest, CapturesStdoutAndStderrThroughPipes) {
  absl::StatusOr<CommandResult> r = Command("/bin/sh")
                                        .Args({"-c", "echo out; echo err >&2"})
                                        .Stdout(Stdio::Pipe())
                                        .Stderr(Stdio::Pipe())
                                        .Run();
  ASSERT_THAT(r, IsOk()) << r.status();
  EXPECT_EQ(r->out, "out\n");
  EXPECT_EQ(r->err, "err\n");
}

TEST_F(CommandTest, CapturesMoreThanAPipeHolds) {
  // 1 MiB: the child blocks unless the parent reads while it waits.
  absl::StatusOr<CommandResult> r =
      Command("/bin/sh").Args({"-c", "head -c 1048576 /dev/zero"}).Stdout(Stdio::Pipe()).Run();
  ASSERT_THAT(r, IsOk()) << r.status();
  EXPECT_EQ(r->out.size(), 1048576u);
}

TEST_F(CommandTest, FeedsInputToStdin) {
  std::string big(200000, 'x');
  absl::StatusOr<CommandResult> r =
      Command("/bin/sh").Args({"-c", "wc -c"}).Input(big).Stdout(Stdio::Pipe()).Run();
  ASSERT_THAT(r, IsOk()) << r.status();
  EXPECT_EQ(std::stoi(r->out), 200000);
}

TEST_F(CommandTest, NullAndFiles) {
  const std::string in = Tmp("in.txt"), out = Tmp("out.txt");
  std::ofstream(in) << "from a file\n";
  ASSERT_THAT(Command("/bin/cat").Stdin(Stdio::File(in)).Stdout(Stdio::File(out)).Run(), IsOk());
  EXPECT_EQ(ReadAll(out), "from a file\n");
  ASSERT_THAT(Command("/bin/echo").Arg("again").Stdout(Stdio::AppendFile(out)).Run(), IsOk());
  EXPECT_EQ(ReadAll(out), "from a file\nagain\n");
  absl::StatusOr<CommandResult> r = Command("/bin/sh")
                                        .Args({"-c", "cat; echo done"})
                                        .Stdin(Stdio::Null())
                                        .Stdout(Stdio::Pipe())
                                        .Stderr(Stdio::Null())
                                        .Run();
  ASSERT_THAT(r, IsOk()) << r.status();
  EXPECT_EQ(r->out, "done\n");
  EXPECT_EQ(Command("/bin/true").Stdin(Stdio::AppendFile(in)).Run().status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Command("/bin/cat").Stdin(Stdio::File(Tmp("missing"))).Run().status().code(),
            absl::StatusCode::kNotFound);
}

TEST_F(CommandTest, EnvironmentIsInheritedAddedToAndReplaced) {
  setenv("SPAWNLAB_INHERITED", "yes", 1);
  absl::StatusOr<CommandResult> r =
      Command("/bin/sh")
          .Args({"-c", "echo \"$SPAWNLAB_INHERITED $SPAWNLAB_ADDED ${SPAWNLAB_GONE-unset}\""})
          .Env("SPAWNLAB_ADDED", "added")
          .Env("SPAWNLAB_GONE", "x")
          .UnsetEnv("SPAWNLAB_GONE")
          .Stdout(Stdio::Pipe())
          .Run();
  ASSERT_THAT(r, IsOk()) << r.status();
  EXPECT_EQ(r->out, "yes added unset\n");
  r = Command("/usr/bin/env").ClearEnv().Env("ONLY", "this").Stdout(Stdio::Pipe()).Run();
  ASSERT_THAT(r, IsOk()) << r.status();
  EXPECT_EQ(r->out, "ONLY=this\n");
  unsetenv("SPAWNLAB_INHERITED");
}

TEST_F(CommandTest, WorkingDirectory) {
  absl::StatusOr<CommandResult> r = Command("/bin/pwd").Dir("/tmp").Stdout(Stdio::Pipe()).Run();
  ASSERT_THAT(r, IsOk()) << r.status();
  EXPECT_EQ(r->out, "/tmp\n");
  absl::StatusOr<CommandResult> missing = Command("/bin/pwd").Dir(Tmp("no-dir")).Run();
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound) << missing.status();
  EXPECT_THAT(missing.status().message(), HasSubstr("no-dir"));
}

TEST_F(CommandTest, TimeoutKillsAndReaps) {
  const absl::Time start = absl::Now();
  absl::StatusOr<CommandResult> r =
      Command("/bin/sleep").Arg("600").Timeout(absl::Milliseconds(100)).Run();
  EXPECT_EQ(r.status().code(), absl::StatusCode::kDeadlineExceeded) << r.status();
  EXPECT_LT(absl::Now() - start, absl::Seconds(60));
}

TEST_F(CommandTest, TimeoutHoldsWhileCapturing) {
  absl::StatusOr<CommandResult> r = Command("/bin/sh")
                                        .Args({"-c", "echo started; exec sleep 600"})
                                        .Stdout(Stdio::Pipe())
                                        .Timeout(absl::Milliseconds(100))
                                        .Run();
  EXPECT_EQ(r.status().code(), absl::StatusCode::kDeadlineExceeded) << r.status();
}

TEST_F(CommandTest, AGrandchildHoldingTheOutputDoesNotKeepWaitWaiting) {
  const absl::Time start = absl::Now();
  absl::StatusOr<CommandResult> r =
      Command("/bin/sh").Args({"-c", "sleep 1 & echo hi"}).Stdout(Stdio::Pipe()).Run();
  ASSERT_THAT(r, IsOk()) << r.status();
  EXPECT_EQ(r->out, "hi\n");
  EXPECT_LT(absl::Now() - start, absl::Milliseconds(900));
}

// Input the child never reads: EPIPE inside Wait, not a SIGPIPE that ends
// the caller (it would end this test binary with status 141).
TEST_F(CommandTest, InputTheChildDoesNotReadIsDroppedWithoutSigpipe) {
  absl::StatusOr<CommandResult> r = Command("/bin/true").Input(std::string(1 << 20, 'x')).Run();
  ASSERT_THAT(r, IsOk()) << r.status();
  EXPECT_TRUE(r->status.success());
  sigset_t pending;
  sigpending(&pending);
  EXPECT_FALSE(sigismember(&pending, SIGPIPE));
}

TEST_F(CommandTest, ANulInsideAStringIsInvalidArgument) {
  const std::string with_nul("/bin/tr\0ue", 10);
  EXPECT_EQ(Command(with_nul).Run().status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Command("/bin/echo").Arg(with_nul).Run().status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Command("/bin/true").Env("A", with_nul).Run().status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Command("/bin/true").Env(with_nul, "x").Run().status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Command("/bin/true").Dir(with_nul).Run().status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Command("/bin/true").Stdout(Stdio::File(with_nul)).Run().status().code(),
            absl::StatusCode::kInvalidArgument);
  // "A=B" as a key would set A to "B=value": refused too, as is an empty key.
  absl::StatusOr<CommandResult> eq = Command("/bin/true").Env("A=B", "x").Run();
  EXPECT_EQ(eq.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(eq.status().message(), HasSubstr("A=B"));
  EXPECT_EQ(Command("/bin/true").Env("", "x").Run().status().code(),
            absl::StatusCode::kInvalidArgument);
}

// CPU time this process has used (user and system), in milliseconds.
int64_t OwnCpuMs() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (int64_t{ru.ru_utime.tv_sec} + ru.ru_stime.tv_sec) * 1000 +
         (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000;
}

// An infinite timeout is no timeout: Wait sleeps in poll and waitpid instead
// of spinning on a zero poll timeout (a Duration that wrapped when cast to
// int). The check is on CPU used, not on elapsed time: a spin burns the
// child's 0.5 s of sleep as CPU; a sleeping wait burns next to none.
TEST_F(CommandTest, AnInfiniteTimeoutWaitsWithoutSpinning) {
  for (bool piped : {true, false}) {
    Command c = Command("/bin/sleep").Arg("0.5").Timeout(absl::InfiniteDuration());
    if (piped) c.Stdout(Stdio::Pipe());
    const int64_t cpu_before = OwnCpuMs();
    absl::StatusOr<CommandResult> r = c.Run();
    const int64_t cpu_used = OwnCpuMs() - cpu_before;
    ASSERT_THAT(r, IsOk()) << r.status();
    EXPECT_TRUE(r->status.success());
    EXPECT_LT(cpu_used, 150) << "piped=" << piped;
  }
}

// True once `pid` is gone or a zombie, polled for up to 10 s.
bool EndsSoon(pid_t pid) {
  for (int i = 0; i < 1000; ++i) {
    std::ifstream stat(absl::StrCat("/proc/", pid, "/stat"));
    std::string line;
    if (!std::getline(stat, line)) return true;
    const size_t paren = line.rfind(')');
    if (paren != std::string::npos && line.size() > paren + 2 && line[paren + 2] == 'Z') {
      return true;
    }
    usleep(10000);
  }
  return false;
}

// With NewProcessGroup, a timeout kills what the child started too; without
// it only the child is killed (as Go's exec.Command), which this also shows.
TEST_F(CommandTest, ATimeoutKillsTheWholeProcessGroup) {
  for (bool group : {true, false}) {
    const std::string pid_file = Tmp(absl::StrCat("grandchild-", group));
    Command c = Command("/bin/sh")
                    .Args({"-c", absl::StrCat("sleep 600 & echo $! > ", pid_file, "; wait")})
                    .Timeout(absl::Milliseconds(300));
    if (group) c.NewProcessGroup();
    absl::StatusOr<CommandResult> r = c.Run();
    EXPECT_EQ(r.status().code(), absl::StatusCode::kDeadlineExceeded) << r.status();
    pid_t grandchild = 0;
    ASSERT_TRUE(absl::SimpleAtoi(absl::StripAsciiWhitespace(ReadAll(pid_file)), &grandchild))
        << ReadAll(pid_file);
    if (group) {
      EXPECT_TRUE(EndsSoon(grandchild)) << "grandchild " << grandchild << " outlived the timeout";
    } else {
      EXPECT_EQ(kill(grandchild, SIGKILL), 0);  // still there: clean it up
    }
  }
}

// CloseOtherDescriptors: an inheritable descriptor of the caller's reaches
// the child without it, and not with it.
TEST_F(CommandTest, CloseOtherDescriptorsKeepsOnlyStdio) {
  const int inheritable = open("/dev/null", O_RDONLY);
  ASSERT_GE(inheritable, 0);
  const std::string probe = absl::StrCat("test -e /proc/self/fd/", inheritable);
  absl::StatusOr<CommandResult> open_in_child = Command("/bin/sh").Args({"-c", probe}).Run();
  absl::StatusOr<CommandResult> closed_in_child =
      Command("/bin/sh").Args({"-c", probe}).CloseOtherDescriptors().Run();
  close(inheritable);
  ASSERT_THAT(open_in_child, IsOk()) << open_in_child.status();
  ASSERT_THAT(closed_in_child, IsOk()) << closed_in_child.status();
  EXPECT_TRUE(open_in_child->status.success()) << "the descriptor never reached the child";
  EXPECT_FALSE(closed_in_child->status.success()) << "the descriptor was not closed";
}

// The child's SigIgn and SigBlk masks, as /proc/self/status shows them to
// grep itself.
absl::StatusOr<testing::SignalMasks> ChildSignalMasks() {
  absl::StatusOr<CommandResult> r = Command("/bin/grep")
                                        .Args({"-E", "^Sig(Ign|Blk)", "/proc/self/status"})
                                        .Stdout(Stdio::Pipe())
                                        .Run();
  if (!r.ok()) return r.status();
  return testing::ParseSignalMasks(r->out);
}

// Each path Command can take: clone3 with CLONE_CLEAR_SIGHAND (Linux 5.5), and
// vfork with the handlers reset by hand, as on an older kernel.
class CommandSignalsTest : public CommandTest, public ::testing::WithParamInterface<SpawnMethod> {
 protected:
  void SetUp() override {
    if (GetParam() == SpawnMethod::kClone3) {
      if (absl::Status s = ProbeCloneClearSighand(); !s.ok()) GTEST_SKIP() << s;
    }
    SetCommandSpawnMethodForTesting(GetParam());
  }
  void TearDown() override {
    SetCommandSpawnMethodForTesting(std::nullopt);
    CommandTest::TearDown();
  }
};

// A caller that ignores SIGPIPE and SIGXFSZ (as servers and runtimes do) or
// blocks signals does not pass that on; a signal its own parent had it ignore
// (nohup's SIGHUP) passes through the exec, as POSIX intends.
TEST_P(CommandSignalsTest, TheChildStartsAsPythonsRestoreSignalsHasIt) {
  absl::StatusOr<testing::SignalMasks> masks;
  {
    testing::CallerSignals caller({SIGPIPE, SIGXFSZ, SIGHUP}, {SIGUSR2});
    masks = ChildSignalMasks();
  }
  ASSERT_THAT(masks, IsOk()) << masks.status();
  EXPECT_EQ(masks->ignored & testing::Bit(SIGPIPE), 0u);
  EXPECT_EQ(masks->ignored & testing::Bit(SIGXFSZ), 0u);
  EXPECT_NE(masks->ignored & testing::Bit(SIGHUP), 0u) << "nohup's SIGHUP was reset";
  EXPECT_EQ(masks->blocked & ~testing::kGlibcOwnSignals, 0u) << std::hex << masks->blocked;
}

INSTANTIATE_TEST_SUITE_P(Paths, CommandSignalsTest,
                         ::testing::Values(SpawnMethod::kClone3, SpawnMethod::kVfork),
                         [](const auto& info) { return std::string(SpawnMethodName(info.param)); });

TEST_F(CommandTest, MissingProgramIsNotFound) {
  absl::StatusOr<CommandResult> by_name = Command("spawnlab-no-such-program").Run();
  EXPECT_EQ(by_name.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(by_name.status().message(), HasSubstr("spawnlab-no-such-program"));
  absl::StatusOr<CommandResult> by_path = Command(Tmp("nothing-here")).Run();
  EXPECT_EQ(by_path.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(by_path.status().message(), HasSubstr("nothing-here"));
  EXPECT_EQ(Command("").Run().status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(CommandTest, NonExecutableIsPermissionDenied) {
  const std::string plain = Tmp("plain");
  std::ofstream(plain) << "#!/bin/sh\n";
  chmod(plain.c_str(), 0644);
  absl::StatusOr<CommandResult> r = Command(plain).Run();
  EXPECT_EQ(r.status().code(), absl::StatusCode::kPermissionDenied) << r.status();
}

TEST_F(CommandTest, StartThenWaitAndDestroyingARunningProcess) {
  absl::StatusOr<Process> p = Command("/bin/sh").Args({"-c", "exit 5"}).Start();
  ASSERT_THAT(p, IsOk()) << p.status();
  EXPECT_GT(p->pid(), 0);
  absl::StatusOr<CommandResult> r = p->Wait();
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->status.exit_code(), 5);
  {
    absl::StatusOr<Process> running =
        Command("/bin/sleep").Arg("600").Stdout(Stdio::Pipe()).Start();
    ASSERT_THAT(running, IsOk());
    EXPECT_GE(running->stdout_fd(), 0);
  }  // killed, reaped, pipe closed: TearDown checks
}

TEST_F(CommandTest, RunsTheMinimalChild) {
  absl::StatusOr<std::string> child = Runfile("lib/children/minimal_child");
  ASSERT_THAT(child, IsOk());
  absl::StatusOr<CommandResult> r = Command(*child).Args({"-", "9"}).Run();
  ASSERT_THAT(r, IsOk()) << r.status();
  EXPECT_EQ(r->status.exit_code(), 9);
}

// Start keeps what it prepared for the next Start: every change must reach
// the next child, and a copy must not share what the original kept.
TEST_F(CommandTest, ARunAfterAChangeSeesTheChange) {
  Command c("/bin/echo");
  c.Arg("one").Stdout(Stdio::Pipe());
  absl::StatusOr<CommandResult> r = c.Run();
  ASSERT_THAT(r, IsOk()) << r.status();
  EXPECT_EQ(r->out, "one\n");
  r = c.Run();
  ASSERT_THAT(r, IsOk()) << r.status();
  EXPECT_EQ(r->out, "one\n");
  c.Args({"two"});
  r = c.Run();
  ASSERT_THAT(r, IsOk()) << r.status();
  EXPECT_EQ(r->out, "one two\n");
  Command copy = c;
  copy.Arg("three");
  r = copy.Run();
  ASSERT_THAT(r, IsOk()) << r.status();
  EXPECT_EQ(r->out, "one two three\n");
  r = c.Run();
  ASSERT_THAT(r, IsOk()) << r.status();
  EXPECT_EQ(r->out, "one two\n");
  c.Arg(std::string("nul\0inside", 11));
  EXPECT_EQ(c.Run().status().code(), absl::StatusCode::kInvalidArgument);
  Command env("/usr/bin/env");
  env.ClearEnv().Env("ONLY", "this").Stdout(Stdio::Pipe());
  r = env.Run();
  ASSERT_THAT(r, IsOk()) << r.status();
  EXPECT_EQ(r->out, "ONLY=this\n");
  env.Env("ALSO", "that");
  r = env.Run();
  ASSERT_THAT(r, IsOk()) << r.status();
  EXPECT_EQ(r->out, "ONLY=this\nALSO=that\n");
}

// What comes from outside the Command is read at every Start: the caller's
// environment and the $PATH lookup.
TEST_F(CommandTest, TheCallersEnvironmentAndPathAreReadAtEveryStart) {
  Command c("/bin/sh");
  c.Args({"-c", "echo \"${SPAWNLAB_LATER-unset}\""}).Stdout(Stdio::Pipe());
  absl::StatusOr<CommandResult> r = c.Run();
  ASSERT_THAT(r, IsOk()) << r.status();
  EXPECT_EQ(r->out, "unset\n");
  setenv("SPAWNLAB_LATER", "set", 1);
  r = c.Run();
  unsetenv("SPAWNLAB_LATER");
  ASSERT_THAT(r, IsOk()) << r.status();
  EXPECT_EQ(r->out, "set\n");

  // The same name in two directories, each printing which it is.
  for (const char* dir : {"path-a", "path-b"}) {
    ASSERT_EQ(mkdir(Tmp(dir).c_str(), 0755), 0) << dir;
    std::ofstream(Tmp(absl::StrCat(dir, "/spawnlab-which"))) << "#!/bin/sh\necho " << dir << "\n";
    ASSERT_EQ(chmod(Tmp(absl::StrCat(dir, "/spawnlab-which")).c_str(), 0755), 0);
  }
  const std::string saved_path = std::getenv("PATH");
  Command which("spawnlab-which");
  which.Stdout(Stdio::Pipe());
  setenv("PATH", Tmp("path-a").c_str(), 1);
  absl::StatusOr<CommandResult> a = which.Run();
  setenv("PATH", Tmp("path-b").c_str(), 1);
  absl::StatusOr<CommandResult> b = which.Run();
  setenv("PATH", saved_path.c_str(), 1);
  ASSERT_THAT(a, IsOk()) << a.status();
  ASSERT_THAT(b, IsOk()) << b.status();
  EXPECT_EQ(a->out, "path-a\n");
  EXPECT_EQ(b->out, "path-b\n");
}

TEST(CommandSpawnMethod, IsAVforkFamilyMethod) {
  SpawnMethod m = CommandSpawnMethod();
  EXPECT_TRUE(m == SpawnMethod::kClone3 || m == SpawnMethod::kVfork) << SpawnMethodName(m);
}

}  // namespace
}  // namespace spawnlab
