// spawner_main.cc: a parent process that spawns on request, for benches whose
// variable is the *parent*: its size, how it is linked, how lib/spawn was
// compiled. SpawnerDriver (driver.h) talks to it over a pipe; the timing loop
// runs here, in the parent being measured, and only results cross the pipe.
//
//   spawner [--ballast_mib=N [--touch] [--unplaced]] [--threads=N] [--count_instructions]
//           [--child_env=inherit|empty] [METHOD CHILD]
//
// Prints "ready MAPPINGS", then answers "spawns N [METHOD CHILD]", "spawn",
// "shape" and "nop" on stdin until EOF. It dies with the process that
// started it (PR_SET_PDEATHSIG). The flags and the protocol in full:
// README.md beside this file.

#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "lib/ballast.h"
#include "lib/probes.h"
#include "lib/spawn.h"
#include "lib/unique_fd.h"

namespace {

int64_t Now() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

int64_t Mappings() {
  FILE* f = fopen("/proc/self/maps", "re");
  if (f == nullptr) return -1;
  int64_t lines = 0;
  for (int c; (c = fgetc(f)) != EOF;) lines += c == '\n';
  fclose(f);
  return lines;
}

// A "Key:   N kB" line of /proc/self/status, or -1.
int64_t StatusField(const char* key) {
  FILE* f = fopen("/proc/self/status", "re");
  if (f == nullptr) return -1;
  char line[256];
  int64_t value = -1;
  const size_t n = strlen(key);
  while (fgets(line, sizeof(line), f) != nullptr) {
    if (strncmp(line, key, n) == 0 && line[n] == ':') {
      value = strtoll(line + n + 1, nullptr, 10);
      break;
    }
  }
  fclose(f);
  return value;
}

int Usage() {
  fprintf(stderr,
          "usage: spawner [--ballast_mib=N [--touch] [--unplaced]] [--threads=N] "
          "[--count_instructions] "
          "[--child_env=inherit|empty] [METHOD CHILD]\n");
  return 2;
}

// The most spawns one request may ask for.
constexpr long kMaxSpawnsPerRequest = 1000000;

// After a child's Wait: whether it exited 0 having written its clock reading
// (into *clock) to `clock_fd`; if not, says why on stderr.
bool RanToItsEnd(const absl::StatusOr<spawnlab::ExitStatus>& status, int clock_fd,
                 const std::string& child, int64_t* clock) {
  if (!status.ok()) {
    fprintf(stderr, "spawner: %s\n", status.status().ToString().c_str());
    return false;
  }
  if (!status->success() || read(clock_fd, clock, sizeof(*clock)) != sizeof(*clock)) {
    fprintf(stderr, "spawner: %s did not run to its end (%s)\n", child.c_str(),
            status->ToString().c_str());
    return false;
  }
  return true;
}

// One spawn's answer (see the top).
struct Times {
  int64_t to_start_ns, to_exit_ns, instructions, child_faults;
};

// The page faults (minor and major) of every child reaped so far; -1 where
// getrusage fails.
int64_t ReapedChildrenFaults() {
  struct rusage ru;
  if (getrusage(RUSAGE_CHILDREN, &ru) != 0) return -1;
  return int64_t{ru.ru_minflt} + int64_t{ru.ru_majflt};
}

// A helper thread that only sleeps, every signal blocked.
void* Sleeper(void*) {
  for (;;) pause();
  return nullptr;
}

// The command line (see the top).
struct Flags {
  long ballast_mib = 0, threads = 0;
  bool touch = false, unplaced = false, count_instructions = false, empty_env = false;
  std::string default_method, default_child;
};

// Parses argv into *flags; 0, or the exit status to leave with.
int ParseFlags(int argc, char** argv, Flags* flags) {
  int positional = 0;
  for (int i = 1; i < argc; ++i) {
    char* end;
    if (strncmp(argv[i], "--ballast_mib=", 14) == 0) {
      flags->ballast_mib = strtol(argv[i] + 14, &end, 10);
      if (*end != '\0' || flags->ballast_mib < 0) return Usage();
    } else if (strncmp(argv[i], "--threads=", 10) == 0) {
      flags->threads = strtol(argv[i] + 10, &end, 10);
      if (*end != '\0' || flags->threads < 0 || flags->threads > 100000) return Usage();
    } else if (strcmp(argv[i], "--touch") == 0) {
      flags->touch = true;
    } else if (strcmp(argv[i], "--unplaced") == 0) {  // lib/ballast.h: kAsAllocated
      flags->unplaced = true;
    } else if (strcmp(argv[i], "--count_instructions") == 0) {
      flags->count_instructions = true;
    } else if (strcmp(argv[i], "--child_env=empty") == 0) {
      flags->empty_env = true;
    } else if (strcmp(argv[i], "--child_env=inherit") == 0) {
      flags->empty_env = false;
    } else if (argv[i][0] == '-' || positional == 2) {
      return Usage();
    } else {
      (positional++ == 0 ? flags->default_method : flags->default_child) = argv[i];
    }
  }
  if (positional == 1) return Usage();
  if (positional == 2 && !spawnlab::ParseSpawnMethod(flags->default_method).ok()) {
    fprintf(stderr, "spawner: unknown method '%s'\n", flags->default_method.c_str());
    return 2;
  }
  return 0;
}

// Starts `n` helper threads that only sleep, with every signal blocked.
bool StartSleepers(long n) {
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  bool ok = true;
  for (long i = 0; ok && i < n; ++i) {
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 64 * 1024);
    const int err = pthread_create(&t, &attr, Sleeper, nullptr);
    pthread_attr_destroy(&attr);
    if (err != 0) {
      fprintf(stderr, "spawner: pthread_create: %s\n", strerror(err));
      ok = false;
    } else {
      pthread_detach(t);
    }
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return ok;
}

// One "spawn[s]" request: how many, of which child, by which method.
struct Request {
  long count = 1;
  spawnlab::SpawnMethod method;
  std::string child;
};

// Parses a "spawn [METHOD CHILD]" or "spawns N [METHOD CHILD]" line; false,
// having said why on stderr, if it is not one.
bool ParseRequest(const char* line, const Flags& flags, Request* request) {
  const char* rest = nullptr;  // "METHOD CHILD", or nullptr: the defaults
  if (strncmp(line, "spawn ", 6) == 0) {
    rest = line + 6;
  } else if (strncmp(line, "spawns ", 7) == 0) {
    char* end;
    request->count = strtol(line + 7, &end, 10);
    if (end == line + 7 || request->count < 1 || request->count > kMaxSpawnsPerRequest ||
        (*end != '\0' && *end != ' ')) {
      fprintf(stderr, "spawner: expected 'spawns N [METHOD CHILD]', N from 1 to %ld\n",
              kMaxSpawnsPerRequest);
      return false;
    }
    if (*end == ' ') rest = end + 1;
  } else if (strcmp(line, "spawn") != 0) {
    fprintf(stderr, "spawner: unknown request '%s'\n", line);
    return false;
  }
  std::string method_name = flags.default_method;
  request->child = flags.default_child;
  if (rest != nullptr) {
    const char* space = strchr(rest, ' ');
    if (space == nullptr) {
      fprintf(stderr, "spawner: expected METHOD CHILD after '%.*s'\n",
              static_cast<int>(rest - line - 1), line);
      return false;
    }
    method_name.assign(rest, space);
    request->child = space + 1;
  }
  if (request->child.empty()) {
    fprintf(stderr, "spawner: '%s' names no child, and none was given at start\n", line);
    return false;
  }
  absl::StatusOr<spawnlab::SpawnMethod> method = spawnlab::ParseSpawnMethod(method_name);
  if (!method.ok()) {
    fprintf(stderr, "spawner: %s\n", std::string(method.status().message()).c_str());
    return false;
  }
  request->method = *method;
  return true;
}

// The parent's state between requests: the clock pipe its children write to,
// each child's ExecSpec, which (method, child) pairs were checked, and the
// instruction counter where asked for.
class Spawner {
 public:
  explicit Spawner(const Flags& flags) : flags_(flags) {
    // The bare spawn, as spawnbench and lmbench time it (see the top): no
    // pidfd either, which clone3 would otherwise make and close with every
    // child (a file, a descriptor and its close that clone's spawn has not).
    options_.exec_errors = spawnlab::ExecErrors::kByExitStatus;
    options_.want_pidfd = false;
    checking_.exec_errors = spawnlab::ExecErrors::kAtWait;
    checking_.want_pidfd = false;
  }

  bool Open() {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) {
      perror("spawner: pipe2");
      return false;
    }
    clock_read_ = spawnlab::UniqueFd(fds[0]);
    clock_write_ = spawnlab::UniqueFd(fds[1]);
    inherited_ = spawnlab::UniqueFd(fcntl(clock_write_.get(), F_DUPFD, 3));
    // Only where asked: enabling and disabling it are system calls, one of
    // them inside the interval.
    if (flags_.count_instructions) counter_ = spawnlab::OpenInstructionCounter();
    return true;
  }

  // Checks the pair once (untimed), then times `r.count` spawns back to back
  // into *times; false, having said why on stderr, on any failure.
  bool Serve(const Request& r, std::vector<Times>* times) {
    const spawnlab::ExecSpec& spec = SpecFor(r.child);
    if (checked_.insert({r.method, r.child}).second) {
      // Untimed: the exec's errno, should it fail, and the child's reading.
      absl::StatusOr<spawnlab::Child> c = spawnlab::Spawn(r.method, spec, checking_);
      int64_t ignored;
      if (!RanToItsEnd(c.ok() ? c->Wait() : absl::StatusOr<spawnlab::ExitStatus>(c.status()),
                       clock_read_.get(), r.child, &ignored)) {
        return false;
      }
    }
    return TimeSpawns(r, spec, times);
  }

 private:
  const spawnlab::ExecSpec& SpecFor(const std::string& child) {
    std::unique_ptr<spawnlab::ExecSpec>& spec = specs_[child];
    if (spec == nullptr) {
      std::vector<std::string> child_argv = {child, std::to_string(inherited_.get())};
      spec = flags_.empty_env
                 ? std::make_unique<spawnlab::ExecSpec>(child, std::move(child_argv),
                                                        std::vector<std::string>{})
                 : std::make_unique<spawnlab::ExecSpec>(child, std::move(child_argv));
    }
    return *spec;
  }

  // The spawns back to back, as the tools' loops run them: nothing crosses
  // the pipe until the last is reaped.
  bool TimeSpawns(const Request& r, const spawnlab::ExecSpec& spec, std::vector<Times>* times) {
    times->clear();
    times->reserve(static_cast<size_t>(r.count));
    int64_t faults_before = ReapedChildrenFaults();
    for (long i = 0; i < r.count; ++i) {
      if (counter_.valid()) {
        ioctl(counter_.get(), PERF_EVENT_IOC_RESET, 0);
        ioctl(counter_.get(), PERF_EVENT_IOC_ENABLE, 0);
      }
      const int64_t t0 = Now();
      absl::StatusOr<spawnlab::Child> c = spawnlab::Spawn(r.method, spec, options_);
      if (counter_.valid()) ioctl(counter_.get(), PERF_EVENT_IOC_DISABLE, 0);
      if (!c.ok()) {
        fprintf(stderr, "spawner: %s\n", c.status().ToString().c_str());
        return false;
      }
      absl::StatusOr<spawnlab::ExitStatus> status = c->Wait();
      const int64_t t1 = Now();
      int64_t child_clock = 0, instructions = -1;
      if (!RanToItsEnd(status, clock_read_.get(), r.child, &child_clock)) return false;
      if (counter_.valid() &&
          read(counter_.get(), &instructions, sizeof(instructions)) != sizeof(instructions)) {
        instructions = -1;
      }
      const int64_t faults_after = ReapedChildrenFaults();
      const int64_t child_faults =
          faults_before < 0 || faults_after < 0 ? -1 : faults_after - faults_before;
      faults_before = faults_after;
      times->push_back({child_clock - t0, t1 - t0, instructions, child_faults});
    }
    return true;
  }

  const Flags& flags_;
  spawnlab::SpawnOptions options_, checking_;
  spawnlab::UniqueFd clock_read_, clock_write_, inherited_, counter_;
  std::map<std::string, std::unique_ptr<spawnlab::ExecSpec>> specs_;
  std::set<std::pair<spawnlab::SpawnMethod, std::string>> checked_;
};

void PrintShape(const spawnlab::Ballast& ballast) {
  absl::StatusOr<double> adjacent = ballast.AdjacentShare();
  printf("%lld %lld %lld %lld %.4f\n", static_cast<long long>(Mappings()),
         static_cast<long long>(StatusField("VmRSS")),
         static_cast<long long>(StatusField("VmPTE")),
         static_cast<long long>(StatusField("Threads")), adjacent.ok() ? *adjacent : -1.0);
}

void PrintTimes(const std::vector<Times>& times) {
  std::string answer;
  char buf[96];
  for (const Times& t : times) {
    snprintf(buf, sizeof(buf), "%lld %lld %lld %lld\n", static_cast<long long>(t.to_start_ns),
             static_cast<long long>(t.to_exit_ns), static_cast<long long>(t.instructions),
             static_cast<long long>(t.child_faults));
    answer += buf;
  }
  fwrite(answer.data(), 1, answer.size(), stdout);
  fflush(stdout);
}

// Answers requests on stdin until EOF (0), or a bad request (2) or failed
// spawn (1).
int ServeRequests(const Flags& flags, const spawnlab::Ballast& ballast) {
  Spawner spawner(flags);
  if (!spawner.Open()) return 1;
  std::vector<Times> times;  // one request's, answered after its last spawn
  setvbuf(stdout, nullptr, _IOLBF, 0);
  printf("ready %lld\n", static_cast<long long>(Mappings()));
  char line[4096];
  while (fgets(line, sizeof(line), stdin) != nullptr) {
    char* nl = strchr(line, '\n');
    if (nl == nullptr) {
      fprintf(stderr, "spawner: request too long\n");
      return 2;
    }
    *nl = '\0';
    if (strcmp(line, "nop") == 0) {
      printf("ok\n");
      continue;
    }
    if (strcmp(line, "shape") == 0) {
      PrintShape(ballast);
      continue;
    }
    Request request;
    if (!ParseRequest(line, flags, &request)) return 2;
    if (!spawner.Serve(request, &times)) return 1;
    PrintTimes(times);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // Nothing outlives the harness; and if the harness is already gone, go too.
  const pid_t parent = getppid();
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) return 1;
  Flags flags;
  if (const int bad = ParseFlags(argc, argv, &flags); bad != 0) return bad;
  spawnlab::Ballast ballast;
  if (flags.ballast_mib > 0) {
    absl::StatusOr<spawnlab::Ballast> b = spawnlab::Ballast::Create(
        static_cast<size_t>(flags.ballast_mib) << 20, flags.touch,
        flags.unplaced ? spawnlab::Ballast::Placement::kAsAllocated
                       : spawnlab::Ballast::Placement::kConsecutive);
    if (!b.ok()) {
      fprintf(stderr, "spawner: ballast: %s\n", b.status().ToString().c_str());
      return 1;
    }
    ballast = *std::move(b);
  }
  if (!StartSleepers(flags.threads)) return 1;
  return ServeRequests(flags, ballast);
}
