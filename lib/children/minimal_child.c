/* minimal_child.c: the smallest program the spawn benches start: static, no
 * libc, no dynamic loader, no C runtime.
 *
 *   minimal_child [CLOCK_FD [EXIT_CODE]]
 *
 * _start reads CLOCK_MONOTONIC before anything else (by the raw syscall, as
 * there is no vDSO lookup without libc) and, if CLOCK_FD is given (not "-"),
 * writes it there as 8 bytes of nanoseconds; then it exits with EXIT_CODE. This
 * is the spawnbench child: the interval to its first instruction is the pure
 * cost of creating a process and exec'ing, with no loader work. x86_64 only. */

#include <asm/unistd.h>
#include <linux/time.h>

static long Syscall3(long n, long a, long b, long c) {
  long ret;
  __asm__ volatile("syscall"
                   : "=a"(ret)
                   : "a"(n), "D"(a), "S"(b), "d"(c)
                   : "rcx", "r11", "memory");
  return ret;
}

static long ParseInt(const char* s) {
  long v = 0;
  while (*s >= '0' && *s <= '9') v = v * 10 + (*s++ - '0');
  return v;
}

/* Called by _start with the initial stack pointer: argc, then argv[]. */
__attribute__((used, noreturn)) void spawnlab_minimal_main(long* sp) {
  struct timespec now;
  Syscall3(__NR_clock_gettime, CLOCK_MONOTONIC, (long)&now, 0);
  long argc = sp[0];
  char** argv = (char**)(sp + 1);
  if (argc > 1 && argv[1][0] != '-') {
    long ns = now.tv_sec * 1000000000L + now.tv_nsec;
    Syscall3(__NR_write, ParseInt(argv[1]), (long)&ns, sizeof(ns));
  }
  Syscall3(__NR_exit_group, argc > 2 ? ParseInt(argv[2]) : 0, 0, 0);
  __builtin_unreachable();
}

__asm__(
    ".text\n"
    ".globl _start\n"
    "_start:\n"
    "  xorl %ebp, %ebp\n"
    "  movq %rsp, %rdi\n"
    "  andq $-16, %rsp\n"
    "  call spawnlab_minimal_main\n"
    "  hlt\n");
