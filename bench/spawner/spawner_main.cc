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

}  // namespace

int main(int argc, char** argv) {
  // Nothing outlives the harness; and if the harness is already gone, go too.
  const pid_t parent = getppid();
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) return 1;

  long ballast_mib = 0, threads = 0;
  bool touch = false, unplaced = false, count_instructions = false, empty_env = false;
  std::string default_method, default_child;
  int positional = 0;
  for (int i = 1; i < argc; ++i) {
    if (strncmp(argv[i], "--ballast_mib=", 14) == 0) {
      char* end;
      ballast_mib = strtol(argv[i] + 14, &end, 10);
      if (*end != '\0' || ballast_mib < 0) return Usage();
    } else if (strncmp(argv[i], "--threads=", 10) == 0) {
      char* end;
      threads = strtol(argv[i] + 10, &end, 10);
      if (*end != '\0' || threads < 0 || threads > 100000) return Usage();
    } else if (strcmp(argv[i], "--touch") == 0) {
      touch = true;
    } else if (strcmp(argv[i], "--unplaced") == 0) {  // lib/ballast.h: kAsAllocated
      unplaced = true;
    } else if (strcmp(argv[i], "--count_instructions") == 0) {
      count_instructions = true;
    } else if (strcmp(argv[i], "--child_env=empty") == 0) {
      empty_env = true;
    } else if (strcmp(argv[i], "--child_env=inherit") == 0) {
      empty_env = false;
    } else if (argv[i][0] == '-') {
      return Usage();
    } else if (positional == 0) {
      default_method = argv[i];
      ++positional;
    } else if (positional == 1) {
      default_child = argv[i];
      ++positional;
    } else {
      return Usage();
    }
  }
  if (positional == 1) return Usage();
  if (positional == 2 && !spawnlab::ParseSpawnMethod(default_method).ok()) {
    fprintf(stderr, "spawner: unknown method '%s'\n", default_method.c_str());
    return 2;
  }

  spawnlab::Ballast ballast;
  if (ballast_mib > 0) {
    absl::StatusOr<spawnlab::Ballast> b =
        spawnlab::Ballast::Create(static_cast<size_t>(ballast_mib) << 20, touch,
                                  unplaced ? spawnlab::Ballast::Placement::kAsAllocated
                                           : spawnlab::Ballast::Placement::kConsecutive);
    if (!b.ok()) {
      fprintf(stderr, "spawner: ballast: %s\n", b.status().ToString().c_str());
      return 1;
    }
    ballast = *std::move(b);
  }

  {
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    for (long i = 0; i < threads; ++i) {
      pthread_t t;
      pthread_attr_t attr;
      pthread_attr_init(&attr);
      pthread_attr_setstacksize(&attr, 64 * 1024);
      const int err = pthread_create(&t, &attr, Sleeper, nullptr);
      pthread_attr_destroy(&attr);
      if (err != 0) {
        fprintf(stderr, "spawner: pthread_create: %s\n", strerror(err));
        return 1;
      }
      pthread_detach(t);
    }
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
  }

  int fds[2];
  if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) {
    perror("spawner: pipe2");
    return 1;
  }
  spawnlab::UniqueFd clock_read(fds[0]), clock_write(fds[1]);
  spawnlab::UniqueFd inherited(fcntl(clock_write.get(), F_DUPFD, 3));
  const std::string clock_fd = std::to_string(inherited.get());
  // One ExecSpec per child, made on first use.
  std::map<std::string, std::unique_ptr<spawnlab::ExecSpec>> specs;
  // The (method, child) pairs already spawned once with their exec checked.
  std::set<std::pair<spawnlab::SpawnMethod, std::string>> checked;
  // Only where asked: enabling and disabling it are system calls, one of them
  // inside the interval.
  spawnlab::UniqueFd counter;
  if (count_instructions) counter = spawnlab::OpenInstructionCounter();
  std::vector<Times> times;  // one request's, answered after its last spawn
  // The bare spawn, as spawnbench and lmbench time it (see the top).
  spawnlab::SpawnOptions options;
  options.exec_errors = spawnlab::ExecErrors::kByExitStatus;
  spawnlab::SpawnOptions checking;
  checking.exec_errors = spawnlab::ExecErrors::kAtWait;
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
      absl::StatusOr<double> adjacent = ballast.AdjacentShare();
      printf("%lld %lld %lld %lld %.4f\n", static_cast<long long>(Mappings()),
             static_cast<long long>(StatusField("VmRSS")),
             static_cast<long long>(StatusField("VmPTE")),
             static_cast<long long>(StatusField("Threads")), adjacent.ok() ? *adjacent : -1.0);
      continue;
    }
    // "spawn [METHOD CHILD]" is "spawns 1 [METHOD CHILD]".
    long count = 1;
    const char* rest = nullptr;  // "METHOD CHILD", or nullptr: the defaults
    if (strncmp(line, "spawn ", 6) == 0) {
      rest = line + 6;
    } else if (strncmp(line, "spawns ", 7) == 0) {
      char* end;
      count = strtol(line + 7, &end, 10);
      if (end == line + 7 || count < 1 || count > kMaxSpawnsPerRequest ||
          (*end != '\0' && *end != ' ')) {
        fprintf(stderr, "spawner: expected 'spawns N [METHOD CHILD]', N from 1 to %ld\n",
                kMaxSpawnsPerRequest);
        return 2;
      }
      if (*end == ' ') rest = end + 1;
    } else if (strcmp(line, "spawn") != 0) {
      fprintf(stderr, "spawner: unknown request '%s'\n", line);
      return 2;
    }
    std::string method_name = default_method, child = default_child;
    if (rest != nullptr) {
      const char* space = strchr(rest, ' ');
      if (space == nullptr) {
        fprintf(stderr, "spawner: expected METHOD CHILD after '%.*s'\n",
                static_cast<int>(rest - line - 1), line);
        return 2;
      }
      method_name.assign(rest, space);
      child = space + 1;
    }
    if (child.empty()) {
      fprintf(stderr, "spawner: '%s' names no child, and none was given at start\n", line);
      return 2;
    }
    absl::StatusOr<spawnlab::SpawnMethod> method = spawnlab::ParseSpawnMethod(method_name);
    if (!method.ok()) {
      fprintf(stderr, "spawner: %s\n", std::string(method.status().message()).c_str());
      return 2;
    }
    std::unique_ptr<spawnlab::ExecSpec>& spec = specs[child];
    if (spec == nullptr) {
      std::vector<std::string> child_argv = {child, clock_fd};
      spec = empty_env ? std::make_unique<spawnlab::ExecSpec>(child, std::move(child_argv),
                                                              std::vector<std::string>{})
                       : std::make_unique<spawnlab::ExecSpec>(child, std::move(child_argv));
    }
    if (checked.insert({*method, child}).second) {
      // Untimed: the exec's errno, should it fail, and the child's reading.
      absl::StatusOr<spawnlab::Child> c = spawnlab::Spawn(*method, *spec, checking);
      int64_t ignored;
      if (!RanToItsEnd(c.ok() ? c->Wait() : absl::StatusOr<spawnlab::ExitStatus>(c.status()),
                       clock_read.get(), child, &ignored)) {
        return 1;
      }
    }
    // The spawns back to back, as the tools' loops run them: nothing crosses
    // the pipe until the last is reaped.
    times.clear();
    times.reserve(static_cast<size_t>(count));
    int64_t faults_before = ReapedChildrenFaults();
    for (long i = 0; i < count; ++i) {
      if (counter.valid()) {
        ioctl(counter.get(), PERF_EVENT_IOC_RESET, 0);
        ioctl(counter.get(), PERF_EVENT_IOC_ENABLE, 0);
      }
      const int64_t t0 = Now();
      absl::StatusOr<spawnlab::Child> c = spawnlab::Spawn(*method, *spec, options);
      if (counter.valid()) ioctl(counter.get(), PERF_EVENT_IOC_DISABLE, 0);
      if (!c.ok()) {
        fprintf(stderr, "spawner: %s\n", c.status().ToString().c_str());
        return 1;
      }
      absl::StatusOr<spawnlab::ExitStatus> status = c->Wait();
      const int64_t t1 = Now();
      int64_t child_clock = 0, instructions = -1;
      if (!RanToItsEnd(status, clock_read.get(), child, &child_clock)) return 1;
      if (counter.valid() &&
          read(counter.get(), &instructions, sizeof(instructions)) != sizeof(instructions)) {
        instructions = -1;
      }
      const int64_t faults_after = ReapedChildrenFaults();
      const int64_t child_faults =
          faults_before < 0 || faults_after < 0 ? -1 : faults_after - faults_before;
      faults_before = faults_after;
      times.push_back({child_clock - t0, t1 - t0, instructions, child_faults});
    }
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
  return 0;
}
