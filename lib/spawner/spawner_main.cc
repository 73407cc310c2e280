// spawner_main.cc: a parent process that spawns on request, for benches whose
// variable is the *parent*: how it is linked, how lib/spawn was compiled.
// Each variant is this file built another way (see //lib/children:variants.bzl
// for the pattern); SpawnerDriver (driver.h) talks to it.
//
//   spawner METHOD CHILD
//
// Prints "ready MAPPINGS" (its own /proc/self/maps line count), then for each
// line "spawn" on stdin spawns CHILD by METHOD (lib/spawn.h) with a clock pipe,
// reaps it, and prints "TO_START_NS TO_EXIT_NS INSTRUCTIONS": the child's first
// clock reading and the reap, from just before the spawn call, and the
// user-space instructions this process retired in the spawn call (-1 where the
// machine does not count them). EOF on stdin ends it with status 0.

#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>

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

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: spawner METHOD CHILD\n");
    return 2;
  }
  absl::StatusOr<spawnlab::SpawnMethod> method = spawnlab::ParseSpawnMethod(argv[1]);
  if (!method.ok()) {
    fprintf(stderr, "spawner: %s\n", std::string(method.status().message()).c_str());
    return 2;
  }
  int fds[2];
  if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) {
    perror("spawner: pipe2");
    return 1;
  }
  spawnlab::UniqueFd clock_read(fds[0]), clock_write(fds[1]);
  spawnlab::UniqueFd inherited(fcntl(clock_write.get(), F_DUPFD, 3));
  const std::string child = argv[2];
  spawnlab::ExecSpec spec(child, {child, std::to_string(inherited.get())});
  spawnlab::UniqueFd counter = spawnlab::OpenInstructionCounter();
  setvbuf(stdout, nullptr, _IOLBF, 0);
  printf("ready %lld\n", static_cast<long long>(Mappings()));
  char line[64];
  while (fgets(line, sizeof(line), stdin) != nullptr) {
    if (strcmp(line, "spawn\n") != 0) {
      fprintf(stderr, "spawner: unknown request '%s'\n", line);
      return 2;
    }
    if (counter.valid()) {
      ioctl(counter.get(), PERF_EVENT_IOC_RESET, 0);
      ioctl(counter.get(), PERF_EVENT_IOC_ENABLE, 0);
    }
    const int64_t t0 = Now();
    absl::StatusOr<spawnlab::Child> c = spawnlab::Spawn(*method, spec);
    if (counter.valid()) ioctl(counter.get(), PERF_EVENT_IOC_DISABLE, 0);
    if (!c.ok()) {
      fprintf(stderr, "spawner: %s\n", c.status().ToString().c_str());
      return 1;
    }
    absl::StatusOr<spawnlab::ExitStatus> status = c->Wait();
    const int64_t t1 = Now();
    int64_t child_clock = 0, instructions = -1;
    if (!status.ok() || !status->success() ||
        read(clock_read.get(), &child_clock, sizeof(child_clock)) != sizeof(child_clock)) {
      fprintf(stderr, "spawner: %s did not run to its end\n", child.c_str());
      return 1;
    }
    if (counter.valid() &&
        read(counter.get(), &instructions, sizeof(instructions)) != sizeof(instructions)) {
      instructions = -1;
    }
    printf("%lld %lld %lld\n", static_cast<long long>(child_clock - t0),
           static_cast<long long>(t1 - t0), static_cast<long long>(instructions));
  }
  return 0;
}
