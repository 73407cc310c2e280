// command_test.cc: every feature of Command and every error it reports, with
// no leaked descriptor and no zombie afterwards.

#include "lib/command.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/runfiles.h"
#include "lib/testing/hygiene.h"

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
  void TearDown() override { EXPECT_TRUE(hygiene_.Check().ok()) << hygiene_.Check(); }
  testing::Hygiene hygiene_;
};

TEST_F(CommandTest, RunsAndReturnsTheExitStatus) {
  absl::StatusOr<CommandResult> r = Command("/bin/sh").Args({"-c", "exit 3"}).Run();
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->status.exited());
  EXPECT_EQ(r->status.exit_code(), 3);
  EXPECT_FALSE(r->status.success());
}

TEST_F(CommandTest, FindsProgramsInPath) {
  absl::StatusOr<CommandResult> r = Command("true").Run();
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->status.success());
}

TEST_F(CommandTest, CapturesStdoutAndStderrThroughPipes) {
  absl::StatusOr<CommandResult> r = Command("/bin/sh")
                                        .Args({"-c", "echo out; echo err >&2"})
                                        .Stdout(Stdio::Pipe())
                                        .Stderr(Stdio::Pipe())
                                        .Run();
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out, "out\n");
  EXPECT_EQ(r->err, "err\n");
}

TEST_F(CommandTest, CapturesMoreThanAPipeHolds) {
  // 1 MiB: the child blocks unless the parent reads while it waits.
  absl::StatusOr<CommandResult> r =
      Command("/bin/sh").Args({"-c", "head -c 1048576 /dev/zero"}).Stdout(Stdio::Pipe()).Run();
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out.size(), 1048576u);
}

TEST_F(CommandTest, FeedsInputToStdin) {
  std::string big(200000, 'x');
  absl::StatusOr<CommandResult> r =
      Command("/bin/sh").Args({"-c", "wc -c"}).Input(big).Stdout(Stdio::Pipe()).Run();
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(std::stoi(r->out), 200000);
}

TEST_F(CommandTest, NullAndFiles) {
  const std::string in = Tmp("in.txt"), out = Tmp("out.txt");
  std::ofstream(in) << "from a file\n";
  ASSERT_TRUE(Command("/bin/cat").Stdin(Stdio::File(in)).Stdout(Stdio::File(out)).Run().ok());
  EXPECT_EQ(ReadAll(out), "from a file\n");
  ASSERT_TRUE(Command("/bin/echo").Arg("again").Stdout(Stdio::AppendFile(out)).Run().ok());
  EXPECT_EQ(ReadAll(out), "from a file\nagain\n");
  absl::StatusOr<CommandResult> r = Command("/bin/sh")
                                        .Args({"-c", "cat; echo done"})
                                        .Stdin(Stdio::Null())
                                        .Stdout(Stdio::Pipe())
                                        .Stderr(Stdio::Null())
                                        .Run();
  ASSERT_TRUE(r.ok()) << r.status();
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
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out, "yes added unset\n");
  r = Command("/usr/bin/env").ClearEnv().Env("ONLY", "this").Stdout(Stdio::Pipe()).Run();
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out, "ONLY=this\n");
  unsetenv("SPAWNLAB_INHERITED");
}

TEST_F(CommandTest, WorkingDirectory) {
  absl::StatusOr<CommandResult> r = Command("/bin/pwd").Dir("/tmp").Stdout(Stdio::Pipe()).Run();
  ASSERT_TRUE(r.ok()) << r.status();
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
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out, "hi\n");
  EXPECT_LT(absl::Now() - start, absl::Milliseconds(900));
}

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
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_GT(p->pid(), 0);
  absl::StatusOr<CommandResult> r = p->Wait();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status.exit_code(), 5);
  {
    absl::StatusOr<Process> running =
        Command("/bin/sleep").Arg("600").Stdout(Stdio::Pipe()).Start();
    ASSERT_TRUE(running.ok());
    EXPECT_GE(running->stdout_fd(), 0);
  }  // killed, reaped, pipe closed: TearDown checks
}

TEST_F(CommandTest, RunsTheMinimalChild) {
  absl::StatusOr<std::string> child = Runfile("lib/children/minimal_child");
  ASSERT_TRUE(child.ok());
  absl::StatusOr<CommandResult> r = Command(*child).Args({"-", "9"}).Run();
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->status.exit_code(), 9);
}

TEST(CommandSpawnMethod, IsAVforkFamilyMethod) {
  SpawnMethod m = CommandSpawnMethod();
  EXPECT_TRUE(m == SpawnMethod::kClone3 || m == SpawnMethod::kVfork) << SpawnMethodName(m);
}

}  // namespace
}  // namespace spawnlab
