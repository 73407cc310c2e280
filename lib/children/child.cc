// child.cc: the program the spawn benches start, built static and dynamic.
//
//   child [CLOCK_FD [EXIT_CODE]]
//
// The first thing main() does is read CLOCK_MONOTONIC; if CLOCK_FD is given
// (not "-"), the reading goes to that inherited descriptor as 8 bytes of
// nanoseconds, the spawnbench way of timing "spawn to the child's first
// instruction". Then it exits with EXIT_CODE (default 0).
//
// The C++ runtime is linked (iostream is not used, to keep static init out of
// the interval): the dynamic build thus loads libstdc++, libm, libgcc_s and libc.

#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>

int main(int argc, char** argv) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  if (argc > 1 && argv[1][0] != '-') {
    int64_t ns = int64_t{now.tv_sec} * 1000000000 + now.tv_nsec;
    int fd = atoi(argv[1]);
    if (write(fd, &ns, sizeof(ns)) != sizeof(ns)) return 125;
  }
  return argc > 2 ? atoi(argv[2]) : 0;
}
