// server.cc: an HTTP/1.1 server on loopback with W worker processes, in one
// of three models (shared listener, SO_REUSEPORT, user-space proxy) and with
// one of five accept mechanisms (blocking, epoll, epoll-exclusive, uring,
// uring-multishot), for the accept experiment and for wrk.
//
//   bazel run //experiments/accept:server -- --model=reuseport --mechanism=epoll --workers=2
//
// It binds 127.0.0.1 only, bounds what each client may cost, prints
// "listening on 127.0.0.1:PORT" when ready and stops, reaping every worker,
// on SIGINT or SIGTERM. Its full contract (models, mechanisms, limits,
// output, exit codes): README.md, "The server".

#include <liburing.h>
#include <linux/filter.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/flags/commandlineflag.h"
#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/flags/usage.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "absl/time/time.h"
#include "experiments/accept/serve.h"
#include "experiments/accept/server_common.h"
#include "lib/probes.h"

ABSL_FLAG(std::string, model, "shared", "shared, reuseport, reuseport-cpu or proxy");
ABSL_FLAG(std::string, mechanism, "epoll",
          "blocking, epoll, epoll-exclusive, uring or uring-multishot");
ABSL_FLAG(int, workers, 0, "Worker processes; 0 means one per CPU.");
ABSL_FLAG(int, port, 8080, "TCP port on 127.0.0.1; 0 picks a free one.");
ABSL_FLAG(bool, die_with_parent, false,
          "Stop (as on SIGTERM) when the process that started the server dies: for harnesses.");
ABSL_FLAG(int, expect_parent, 0,
          "With --die_with_parent: the pid the parent must have; any other parent (the harness "
          "died before the server started) is an error.");
ABSL_FLAG(absl::Duration, header_timeout, absl::Seconds(10),
          "A request head must arrive within this of the connection or of its first byte.");
ABSL_FLAG(absl::Duration, idle_timeout, absl::Seconds(60),
          "A connection with nothing read or written for this long is closed.");
ABSL_FLAG(int, nofile, 0,
          "If set, lower the descriptor limit (RLIMIT_NOFILE) to this: to see the server run out "
          "of descriptors.");
ABSL_FLAG(int, max_connections, 10000,
          "Open connections per worker (client connections for the proxy's relay); at the limit "
          "a worker stops accepting until one closes.");
ABSL_FLAG(int64_t, handler_spin, 0,
          "Rounds of a busy loop per request before its answer: a CPU-heavy handler.");

namespace spawnlab::accept {
namespace {

// Abseil's parser exits 1 on a flag it cannot read, and the contract above is
// 2 for bad input: so every `--name=value` and `--name value` is tried first
// with the flag's own parser, and an unknown flag is refused the same way.
void CheckFlagsOrExit(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    absl::string_view arg = argv[i];
    if (arg == "--") break;
    if (!absl::ConsumePrefix(&arg, "--") && !absl::ConsumePrefix(&arg, "-")) continue;
    const size_t eq = arg.find('=');
    const absl::string_view name = arg.substr(0, eq);
    if (name == "help" || name == "helpfull" || name == "helpshort" || name == "helpon" ||
        name == "helpmatch" || name == "version") {
      continue;  // Abseil's own, which it answers
    }
    absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
    if (flag == nullptr && absl::StartsWith(name, "no")) {
      absl::CommandLineFlag* negated = absl::FindCommandLineFlag(name.substr(2));
      if (negated != nullptr && negated->IsOfType<bool>() && eq == absl::string_view::npos)
        continue;
    }
    if (flag == nullptr)
      Fail(kExitBadInput, absl::StrCat("unknown flag --", name, " (see --help)"));
    std::string value;
    if (eq != absl::string_view::npos) {
      value = std::string(arg.substr(eq + 1));
    } else if (flag->IsOfType<bool>()) {
      continue;
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      Fail(kExitBadInput, absl::StrCat("--", name, " needs a value"));
    }
    std::string error;
    if (!flag->ParseFrom(value, &error)) {
      Fail(kExitBadInput, absl::StrCat("--", name, "=", value, ": ", error));
    }
  }
}

enum class Mechanism { kBlocking, kEpoll, kEpollExclusive, kUring, kUringMultishot };

// The server as the flags ask for it (the limits go to `limits`).
struct Config {
  std::string model, mechanism_name;
  Mechanism mechanism;
  int workers;
  int port;
  long cpus;
};

Mechanism ParseMechanism(const std::string& name) {
  const std::map<std::string, Mechanism> mechanisms = {
      {"blocking", Mechanism::kBlocking},
      {"epoll", Mechanism::kEpoll},
      {"epoll-exclusive", Mechanism::kEpollExclusive},
      {"uring", Mechanism::kUring},
      {"uring-multishot", Mechanism::kUringMultishot}};
  auto m = mechanisms.find(name);
  if (m == mechanisms.end()) {
    Fail(kExitBadInput, absl::StrCat("unknown --mechanism '", name,
                                     "': expected blocking, epoll, epoll-exclusive, uring or "
                                     "uring-multishot"));
  }
  return m->second;
}

// The timeouts, the connection cap, the handler's cost and the descriptor
// limit, into `limits` (and RLIMIT_NOFILE).
void ReadLimits() {
  const absl::Duration header_timeout = absl::GetFlag(FLAGS_header_timeout);
  const absl::Duration idle_timeout = absl::GetFlag(FLAGS_idle_timeout);
  for (const auto& [name, d] :
       {std::pair<const char*, absl::Duration>{"header_timeout", header_timeout},
        {"idle_timeout", idle_timeout}}) {
    if (d < absl::Milliseconds(1) || d > absl::Hours(24)) {
      Fail(kExitBadInput,
           absl::StrCat("--", name, "=", absl::FormatDuration(d), ": expected 1ms to 24h"));
    }
  }
  const int max_connections = absl::GetFlag(FLAGS_max_connections);
  if (max_connections < 1) {
    Fail(kExitBadInput,
         absl::StrCat("--max_connections=", max_connections, ": expected 1 or more"));
  }
  limits.handler_spin = absl::GetFlag(FLAGS_handler_spin);
  if (limits.handler_spin < 0) Fail(kExitBadInput, "--handler_spin must be 0 or more");
  if (const int nofile = absl::GetFlag(FLAGS_nofile); nofile != 0) {
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    rl.rlim_cur = static_cast<rlim_t>(nofile);
    if (nofile < 8 || setrlimit(RLIMIT_NOFILE, &rl) != 0) {
      Fail(kExitBadInput,
           absl::StrCat("--nofile=", nofile, ": expected 8 up to the hard limit ", rl.rlim_max));
    }
  }
  limits.header_ns = absl::ToInt64Nanoseconds(header_timeout);
  limits.idle_ns = absl::ToInt64Nanoseconds(idle_timeout);
  limits.max_connections = static_cast<size_t>(max_connections);
  // Timeouts are checked four times per the shorter one (10 ms to 1 s apart).
  limits.tick_ns = std::clamp<int64_t>(std::min(limits.header_ns, limits.idle_ns) / 4, 10'000'000,
                                       1'000'000'000);
}

// Reads and checks every flag; a bad one ends the process with exit code 2,
// a mechanism the kernel lacks with 3.
Config ReadFlags(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "HTTP server on 127.0.0.1 for the accept experiment: --model, --mechanism, --workers, "
      "--port. Runs until SIGINT or SIGTERM.");
  CheckFlagsOrExit(argc, argv);
  std::vector<char*> rest = absl::ParseCommandLine(argc, argv);
  if (rest.size() > 1) Fail(kExitBadInput, absl::StrCat("unexpected argument '", rest[1], "'"));
  Config c;
  c.model = absl::GetFlag(FLAGS_model);
  c.mechanism_name = absl::GetFlag(FLAGS_mechanism);
  if (c.model != "shared" && c.model != "reuseport" && c.model != "reuseport-cpu" &&
      c.model != "proxy") {
    Fail(kExitBadInput, absl::StrCat("unknown --model '", c.model,
                                     "': expected shared, reuseport, reuseport-cpu or proxy"));
  }
  c.mechanism = ParseMechanism(c.mechanism_name);
  c.cpus = sysconf(_SC_NPROCESSORS_ONLN);
  c.workers = absl::GetFlag(FLAGS_workers);
  if (c.workers == 0) c.workers = static_cast<int>(c.cpus);
  if (c.workers < 1 || c.workers > 256) {
    Fail(kExitBadInput, absl::StrCat("--workers=", c.workers, ": expected 1 to 256"));
  }
  c.port = absl::GetFlag(FLAGS_port);
  if (c.port < 0 || c.port > 65535) {
    Fail(kExitBadInput, absl::StrCat("--port=", c.port, ": out of range"));
  }
  ReadLimits();
  if (c.mechanism == Mechanism::kUring || c.mechanism == Mechanism::kUringMultishot) {
    if (absl::Status s = spawnlab::ProbeIoUringOpcode(IORING_OP_ACCEPT); !s.ok()) {
      Fail(kExitUnsupported, std::string(s.message()));
    }
  }
  if (absl::GetFlag(FLAGS_expect_parent) != 0 && !absl::GetFlag(FLAGS_die_with_parent)) {
    Fail(kExitBadInput, "--expect_parent needs --die_with_parent");
  }
  return c;
}

// --die_with_parent: SIGTERM when the parent dies. PR_SET_PDEATHSIG watches
// the parent of the moment: if the harness died before this, the server was
// reparented and would run forever, so that is an error.
void DieWithParent(pid_t parent_at_start) {
  int armed = 0;
  if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || prctl(PR_GET_PDEATHSIG, &armed) != 0 ||
      armed != SIGTERM) {
    Fail(1, absl::StrCat("--die_with_parent: PR_SET_PDEATHSIG did not take: ", strerror(errno)));
  }
  const pid_t parent = getppid();
  if (parent != parent_at_start) {
    Fail(1, absl::StrCat("--die_with_parent: the parent (pid ", parent_at_start,
                         ") died before the server started"));
  }
  const int expect_parent = absl::GetFlag(FLAGS_expect_parent);
  if (expect_parent != 0 && parent != expect_parent) {
    Fail(1, absl::StrCat("--die_with_parent: the parent is pid ", parent, ", not --expect_parent=",
                         expect_parent, ": the process that started the server is gone"));
  }
}

[[noreturn]] void RunWorker(Mechanism m, int listener, int worker) {
  switch (m) {
    case Mechanism::kBlocking:
      ServeBlocking(listener, worker);
    case Mechanism::kEpoll:
      ServeEpoll(listener, worker, false);
    case Mechanism::kEpollExclusive:
      ServeEpoll(listener, worker, true);
    case Mechanism::kUring:
      ServeUring(listener, worker, false);
    case Mechanism::kUringMultishot:
      ServeUring(listener, worker, true);
  }
  _exit(1);
}

// The supervisor's children: forks them, each with its slot of the shared
// counters and dying with the supervisor.
class Children {
 public:
  Children(int slots, const sigset_t& original_mask)
      : slots_(slots), original_mask_(original_mask) {
    void* shared = mmap(nullptr, slots * sizeof(Stats), PROT_READ | PROT_WRITE,
                        MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED) Fail(1, absl::StrCat("mmap: ", strerror(errno)));
    stats_ = new (shared) Stats[slots];
  }

  // Forks a process that runs `body` and counts into slot `slot`.
  void Fork(int slot, const std::function<void()>& body) {
    const pid_t supervisor = getpid();
    pid_t pid = fork();
    if (pid < 0) Fail(1, absl::StrCat("fork: ", strerror(errno)));
    if (pid == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != supervisor) _exit(1);  // the supervisor died already
      signal(SIGINT, SIG_DFL);
      signal(SIGTERM, SIG_DFL);
      sigprocmask(SIG_SETMASK, &original_mask_, nullptr);
      stats = &stats_[slot];
      body();
      _exit(1);
    }
    pids_.push_back(pid);
  }

  // Waits for SIGINT, SIGTERM or a child's end; then kills and reaps every
  // child. The exit code: 0 on a signal, 3 if a worker found its mechanism
  // missing, 1 if one ended otherwise.
  int SuperviseAndStop(const sigset_t& waited) {
    int code = 0;
    while (true) {
      siginfo_t info;
      int sig = sigwaitinfo(&waited, &info);
      if (sig < 0) continue;
      if (sig == SIGCHLD) {
        int status;
        pid_t dead = waitpid(-1, &status, WNOHANG);
        if (dead <= 0) continue;
        for (pid_t& p : pids_) {
          if (p == dead) p = -1;
        }
        code = WIFEXITED(status) && WEXITSTATUS(status) == kExitUnsupported ? kExitUnsupported : 1;
        fprintf(stderr, "server: worker %d ended unexpectedly (wait status %d); stopping\n", dead,
                status);
      }
      break;  // SIGINT, SIGTERM, or a worker lost: stop everything
    }
    for (pid_t p : pids_) {
      if (p > 0) kill(p, SIGKILL);
    }
    for (pid_t p : pids_) {
      if (p <= 0) continue;
      int status;
      while (waitpid(p, &status, 0) < 0 && errno == EINTR) {
      }
    }
    return code;
  }

  // The line "stats ..." of the counters summed over every child.
  void PrintStats() const {
    int64_t sums[5] = {};
    for (int i = 0; i < slots_; ++i) {
      sums[0] += stats_[i].accept_pauses;
      sums[1] += stats_[i].header_timeouts;
      sums[2] += stats_[i].idle_timeouts;
      sums[3] += stats_[i].rejected;
      sums[4] += stats_[i].output_high_water;
    }
    printf(
        "stats accept_pauses=%lld header_timeouts=%lld idle_timeouts=%lld rejected=%lld "
        "output_high_water=%lld\n",
        static_cast<long long>(sums[0]), static_cast<long long>(sums[1]),
        static_cast<long long>(sums[2]), static_cast<long long>(sums[3]),
        static_cast<long long>(sums[4]));
    fflush(stdout);
  }

  const std::vector<pid_t>& pids() const { return pids_; }

 private:
  const int slots_;
  const sigset_t original_mask_;
  Stats* stats_;
  std::vector<pid_t> pids_;
};

// A listener, or the end of the process: a port in use is the caller's
// mistake (exit 2); anything else is not.
int MustListen(int port, bool reuseport) {
  absl::StatusOr<int> fd = Listen(port, reuseport);
  if (!fd.ok()) {
    const std::string message(fd.status().message());
    Fail(absl::StrContains(message, "in use") ? kExitBadInput : 1, message);
  }
  return *fd;
}

// The shared model: one listener, made before the workers are forked. Returns
// the port.
int StartShared(const Config& c, Children& children) {
  const int fd = MustListen(c.port, false);
  if (c.mechanism != Mechanism::kBlocking) SetNonBlocking(fd);
  for (int w = 0; w < c.workers; ++w) {
    children.Fork(w, [&, w] { RunWorker(c.mechanism, fd, w); });
  }
  return PortOf(fd);
}

// reuseport-cpu's program on the group: the listener of the CPU handling the
// SYN (SO_ATTACH_REUSEPORT_CBPF, Linux 4.5).
void AttachCpuProgram(int listener) {
  struct sock_filter code[] = {
      {BPF_LD | BPF_W | BPF_ABS, 0, 0, static_cast<uint32_t>(SKF_AD_OFF + SKF_AD_CPU)},
      {BPF_RET | BPF_A, 0, 0, 0},
  };
  struct sock_fprog prog = {2, code};
  if (setsockopt(listener, SOL_SOCKET, SO_ATTACH_REUSEPORT_CBPF, &prog, sizeof(prog)) != 0) {
    Fail(errno == EINVAL || errno == ENOPROTOOPT ? kExitUnsupported : 1,
         absl::StrCat("SO_ATTACH_REUSEPORT_CBPF (Linux 4.5): ", strerror(errno)));
  }
}

// The reuseport models: one SO_REUSEPORT listener per worker; with
// reuseport-cpu, worker w pinned to CPU w. Returns the port.
int StartReusePort(const Config& c, Children& children) {
  // The group's sockets are numbered in the order they listen: listener w
  // is index w, which the CPU program returns for CPU w.
  std::vector<int> listeners;
  int public_port = c.port;
  for (int w = 0; w < c.workers; ++w) {
    int fd = MustListen(w == 0 ? c.port : public_port, true);
    if (c.mechanism != Mechanism::kBlocking) SetNonBlocking(fd);
    if (w == 0) public_port = PortOf(fd);
    listeners.push_back(fd);
  }
  const bool per_cpu = c.model == "reuseport-cpu";
  if (per_cpu) {
    if (c.workers > c.cpus) {
      Fail(kExitBadInput, absl::StrCat("--model=reuseport-cpu needs a worker per CPU at most (",
                                       c.workers, " workers, ", c.cpus, " CPUs)"));
    }
    AttachCpuProgram(listeners[0]);
  }
  for (int w = 0; w < c.workers; ++w) {
    const int fd = listeners[w];
    children.Fork(w, [&, w, fd, per_cpu] {
      for (int other : listeners) {
        if (other != fd) close(other);
      }
      if (per_cpu) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(w, &one);
        if (sched_setaffinity(0, sizeof(one), &one) != 0) {
          Fail(1, absl::StrCat("pinning worker ", w, " to CPU ", w, ": ", strerror(errno)));
        }
      }
      RunWorker(c.mechanism, fd, w);
    });
  }
  return public_port;
}

// The proxy model: W backend workers on loopback ports of their own, and the
// relay on the public port. Returns the port.
int StartProxy(const Config& c, Children& children) {
  const int front = MustListen(c.port, false);
  SetNonBlocking(front);
  std::vector<int> backend_ports;
  for (int w = 0; w < c.workers; ++w) {
    int fd = MustListen(0, false);
    if (c.mechanism != Mechanism::kBlocking) SetNonBlocking(fd);
    backend_ports.push_back(PortOf(fd));
    children.Fork(w, [&, w, fd] {
      close(front);
      RunWorker(c.mechanism, fd, w);
    });
    close(fd);
  }
  children.Fork(c.workers, [&] { Relay(front, backend_ports); });
  return PortOf(front);
}

}  // namespace
}  // namespace spawnlab::accept

int main(int argc, char** argv) {
  namespace sa = spawnlab::accept;
  // Before anything else: the parent that --die_with_parent will watch.
  const pid_t parent_at_start = getppid();
  const sa::Config c = sa::ReadFlags(argc, argv);
  if (absl::GetFlag(FLAGS_die_with_parent)) sa::DieWithParent(parent_at_start);
  // A server uses every CPU, whatever a parent (a pinned bench) had.
  cpu_set_t all;
  CPU_ZERO(&all);
  for (long cpu = 0; cpu < c.cpus && cpu < CPU_SETSIZE; ++cpu) CPU_SET(cpu, &all);
  sched_setaffinity(0, sizeof(all), &all);

  // Signals go to the supervisor's sigwaitinfo, never to handlers.
  sigset_t waited, original;
  sigemptyset(&waited);
  sigaddset(&waited, SIGINT);
  sigaddset(&waited, SIGTERM);
  sigaddset(&waited, SIGCHLD);
  sigprocmask(SIG_BLOCK, &waited, &original);
  signal(SIGPIPE, SIG_IGN);

  // One slot of counters per child: the workers and the proxy's relay.
  sa::Children children(c.workers + 1, original);
  const int port = c.model == "shared"  ? sa::StartShared(c, children)
                   : c.model == "proxy" ? sa::StartProxy(c, children)
                                        : sa::StartReusePort(c, children);
  printf("listening on 127.0.0.1:%d model=%s mechanism=%s workers=%d\n", port, c.model.c_str(),
         c.mechanism_name.c_str(), c.workers);
  std::vector<std::string> pids;
  for (pid_t p : children.pids()) pids.push_back(std::to_string(p));
  printf("workers %s\n", absl::StrJoin(pids, " ").c_str());
  fflush(stdout);
  const int code = children.SuperviseAndStop(waited);
  children.PrintStats();
  return code;
}
