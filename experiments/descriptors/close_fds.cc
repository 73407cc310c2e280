#include "experiments/descriptors/close_fds.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace spawnlab {

const char* WayName(Way w) {
  switch (w) {
    case Way::kNone:
      return "none";
    case Way::kCloseRange:
      return "close_range";
    case Way::kCloexec:
      return "cloexec";
    case Way::kProcWalk:
      return "proc-walk";
    case Way::kLoop:
      return "loop";
  }
  return "?";
}

void CloseInChild(Way way, int limit) {
  switch (way) {
    case Way::kNone:
      return;
    case Way::kCloseRange:
      syscall(SYS_close_range, 3u, ~0u, 0u);
      return;
    case Way::kCloexec:
      syscall(SYS_close_range, 3u, ~0u, CLOSE_RANGE_CLOEXEC);
      return;
    case Way::kProcWalk: {
      int dir = static_cast<int>(syscall(SYS_open, "/proc/self/fd", O_RDONLY | O_DIRECTORY));
      if (dir < 0) return;
      alignas(8) char buf[4096];
      for (;;) {
        long n = syscall(SYS_getdents64, dir, buf, sizeof(buf));
        if (n <= 0) break;
        for (long off = 0; off < n;) {
          const auto* d = reinterpret_cast<const struct dirent64*>(buf + off);
          int fd = 0;
          const char* p = d->d_name;
          for (; *p >= '0' && *p <= '9'; ++p) fd = fd * 10 + (*p - '0');
          if (*p == '\0' && p != d->d_name && fd >= 3 && fd != dir) syscall(SYS_close, fd);
          off += d->d_reclen;
        }
      }
      syscall(SYS_close, dir);
      return;
    }
    case Way::kLoop:
      for (int fd = 3; fd < limit; ++fd) syscall(SYS_close, fd);
      return;
  }
}

}  // namespace spawnlab
