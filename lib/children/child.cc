// child.cc: the program the spawn benches start, built static and dynamic.
//
//   child [CLOCK_FD [EXIT_CODE [maps]]]
//
// The first thing main() does is read CLOCK_MONOTONIC; if CLOCK_FD is given
// (not "-"), the reading goes to that inherited descriptor as 8 bytes of
// nanoseconds, the spawnbench way of timing "spawn to the child's first
// instruction". With "maps", it then writes the number of its memory mappings
// (lines of /proc/self/maps) the same way, for the linking experiment's
// counters; that runs after the clock reading, and only when asked. Then it
// exits with EXIT_CODE (default 0).
//
// The C++ runtime is linked (iostream is not used, to keep static init out of
// the interval): the dynamic build thus loads libstdc++, libm, libgcc_s and libc.

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>

namespace {

int64_t CountMappings() {
  int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  int64_t lines = 0;
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof(buf))) > 0) {
    for (ssize_t i = 0; i < n; ++i) lines += buf[i] == '\n';
  }
  close(fd);
  return lines;
}

}  // namespace

int main(int argc, char** argv) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  if (argc > 1 && argv[1][0] != '-') {
    int64_t ns = int64_t{now.tv_sec} * 1000000000 + now.tv_nsec;
    int fd = atoi(argv[1]);
    if (write(fd, &ns, sizeof(ns)) != sizeof(ns)) return 125;
    if (argc > 3 && strcmp(argv[3], "maps") == 0) {
      int64_t maps = CountMappings();
      if (write(fd, &maps, sizeof(maps)) != sizeof(maps)) return 125;
    }
  }
  return argc > 2 ? atoi(argv[2]) : 0;
}
