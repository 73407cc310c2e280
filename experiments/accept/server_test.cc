// server_test.cc: every model and mechanism answers concurrent clients
// correctly in both load modes; stopping (or killing) the server leaves no
// process behind; bad flags and a port in use are clear errors; io_uring
// mechanisms skip with the reason where the kernel lacks them.

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>

#include "absl/strings/str_replace.h"
#include "experiments/accept/loadgen.h"
#include "lib/command.h"
#include "experiments/accept/server_process.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/runfiles.h"
#include "lib/testing/hygiene.h"

namespace spawnlab {
namespace {

using ::testing::HasSubstr;

std::string Server() {
  absl::StatusOr<std::string> p = Runfile("experiments/accept/server");
  return p.ok() ? *p : "";
}

// True once `pid` no longer exists (polling for up to 5 s).
bool Gone(pid_t pid) {
  for (int i = 0; i < 500; ++i) {
    if (kill(pid, 0) != 0 && errno == ESRCH) return true;
    usleep(10000);
  }
  return false;
}

struct Case {
  const char* model;
  const char* mechanism;
};

class ServeTest : public ::testing::TestWithParam<Case> {};

TEST_P(ServeTest, AnswersConcurrentClientsAndStopsCleanly) {
  testing::Hygiene hygiene;
  std::vector<pid_t> children;
  {
    absl::StatusOr<ServerProcess> s =
        ServerProcess::Start(Server(), GetParam().model, GetParam().mechanism, 2);
    if (absl::IsUnimplemented(s.status())) GTEST_SKIP() << s.status();
    ASSERT_TRUE(s.ok()) << s.status();
    children = s->children();
    EXPECT_GE(children.size(), 2u);
    for (bool keep_alive : {true, false}) {
      LoadOptions o;
      o.port = s->port();
      o.keep_alive = keep_alive;
      o.connections = 8;
      o.max_requests = 300;
      o.duration = absl::Seconds(20);
      absl::StatusOr<LoadResult> r = RunLoad(o);
      ASSERT_TRUE(r.ok()) << r.status();
      EXPECT_EQ(r->requests, 300) << "keep_alive=" << keep_alive << " " << r->first_error;
      EXPECT_EQ(r->errors, 0) << r->first_error;
      EXPECT_EQ(r->timeouts, 0);
      EXPECT_EQ(r->non_2xx, 0);
      int64_t by_workers = 0;
      for (const auto& [worker, count] : r->per_worker) {
        EXPECT_GE(worker, 0);
        EXPECT_LT(worker, 2);
        by_workers += count;
      }
      EXPECT_EQ(by_workers, 300);
    }
    absl::StatusOr<ExitStatus> stopped = s->Stop();
    ASSERT_TRUE(stopped.ok()) << stopped.status();
    EXPECT_TRUE(stopped->success()) << stopped->ToString();
  }
  for (pid_t child : children) EXPECT_TRUE(Gone(child)) << child;
  EXPECT_TRUE(hygiene.Check().ok()) << hygiene.Check();
}

std::vector<Case> AllCases() {
  std::vector<Case> cases;
  for (const char* model : {"shared", "reuseport", "proxy"}) {
    for (const char* mech : {"blocking", "epoll", "epoll-exclusive", "uring", "uring-multishot"}) {
      cases.push_back({model, mech});
    }
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(All, ServeTest, ::testing::ValuesIn(AllCases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return absl::StrReplaceAll(
                               std::string(info.param.model) + "_" + info.param.mechanism,
                               {{"-", "_"}});
                         });

// SIGKILL leaves the supervisor no chance to clean up: PR_SET_PDEATHSIG must.
TEST(Server, KillingTheSupervisorTakesTheWorkersWithIt) {
  absl::StatusOr<ServerProcess> t = ServerProcess::Start(Server(), "reuseport", "epoll", 2);
  ASSERT_TRUE(t.ok()) << t.status();
  std::vector<pid_t> children = t->children();
  ASSERT_FALSE(children.empty());
  // Find the supervisor: the parent of a worker.
  FILE* f = fopen(("/proc/" + std::to_string(children[0]) + "/stat").c_str(), "r");
  ASSERT_NE(f, nullptr);
  int pid, ppid;
  char comm[256], state;
  ASSERT_EQ(fscanf(f, "%d %255s %c %d", &pid, comm, &state, &ppid), 4);
  fclose(f);
  ASSERT_EQ(kill(ppid, SIGKILL), 0);
  for (pid_t child : children) EXPECT_TRUE(Gone(child)) << child;
  absl::StatusOr<ExitStatus> killed = t->Stop();
  ASSERT_TRUE(killed.ok());
  EXPECT_TRUE(killed->signaled());
}

// The server started by a harness that is killed (as a bench under Ctrl-C or a
// test timing out) must not outlive it: a helper process starts one and is
// SIGKILLed.
TEST(Server, DiesWithTheProcessThatStartedIt) {
  absl::StatusOr<Process> helper =
      Command("/bin/sh")
          .Args({"-c", "\"$0\" --model=shared --mechanism=epoll --workers=2 --port=0 "
                       "--die_with_parent & echo $!; wait",
                 Server()})
          .Stdout(Stdio::Pipe())
          .Start();
  ASSERT_TRUE(helper.ok()) << helper.status();
  // The shell prints the server's pid first, then the server its own lines.
  std::string out;
  char buf[256];
  for (int i = 0; i < 500 && out.find("workers ") == std::string::npos; ++i) {
    ssize_t n = read(helper->stdout_fd(), buf, sizeof(buf));
    if (n > 0) out.append(buf, static_cast<size_t>(n));
    usleep(10000);
  }
  const pid_t server = std::atoi(out.c_str());
  ASSERT_GT(server, 0) << out;
  ASSERT_EQ(kill(helper->pid(), SIGKILL), 0);
  EXPECT_TRUE(Gone(server)) << "the server outlived the process that started it";
}

TEST(Server, BadFlagsAreClearErrors) {
  absl::StatusOr<ServerProcess> s = ServerProcess::Start(Server(), "bogus", "epoll", 2);
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument) << s.status();
  EXPECT_THAT(s.status().message(), HasSubstr("unknown --model 'bogus'"));
  s = ServerProcess::Start(Server(), "shared", "telepathy", 2);
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument) << s.status();
  EXPECT_THAT(s.status().message(), HasSubstr("--mechanism"));
  s = ServerProcess::Start(Server(), "shared", "epoll", -3);
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument) << s.status();
}

TEST(Server, APortInUseIsAClearError) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_in addr = {};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(listen(fd, 1), 0);
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  const int port = ntohs(addr.sin_port);
  for (const char* model : {"shared", "reuseport", "proxy"}) {
    absl::StatusOr<ServerProcess> s = ServerProcess::Start(Server(), model, "epoll", 2, port);
    EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument) << model << s.status();
    EXPECT_THAT(s.status().message(), HasSubstr("in use"));
  }
  close(fd);
}

}  // namespace
}  // namespace spawnlab
