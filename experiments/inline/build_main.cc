// build_main.cc: building a Command (lib/command.h), timed in a binary whose
// lib/command and lib/spawn were compiled with one inlining setting (see
// BUILD.bazel), for the inline bench's build rows.
//
//   command_build_<inlining> N PROGRAM
//
// builds Command(PROGRAM).Arg("-").Env("SPAWNLAB", "1").Timeout(1 s) N times
// after N/10 to warm up (the same object the command bench's build row
// makes), spawning nothing, and prints the mean nanoseconds per build.

#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/time/time.h"
#include "lib/clock.h"
#include "lib/command.h"

namespace {

// Keeps the compiler from dropping a build whose object is never used.
void Escape(void* p) { asm volatile("" : : "g"(p) : "memory"); }

void Build(const std::string& program) {
  spawnlab::Command cmd(program);
  cmd.Arg("-").Env("SPAWNLAB", "1").Timeout(absl::Seconds(1));
  Escape(&cmd);
}

}  // namespace

int main(int argc, char** argv) {
  char* end = nullptr;
  const long n = argc == 3 ? std::strtol(argv[1], &end, 10) : 0;
  if (argc != 3 || *end != '\0' || n < 1) {
    std::fprintf(stderr, "usage: command_build N PROGRAM (N a positive integer)\n");
    return 2;
  }
  const std::string program = argv[2];
  for (long i = 0; i < n / 10; ++i) Build(program);
  const int64_t t0 = spawnlab::MonotonicNanos();
  for (long i = 0; i < n; ++i) Build(program);
  const int64_t t1 = spawnlab::MonotonicNanos();
  std::printf("%.3f\n", static_cast<double>(t1 - t0) / static_cast<double>(n));
  return 0;
}
