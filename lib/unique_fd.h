// unique_fd.h: a file descriptor with one owner, closed when the owner goes.
//
// Every descriptor spawnlab opens is held in a UniqueFd, so that no error path
// leaks one (the tests check /proc/self/fd before and after).
//
// Example:
//
//   spawnlab::UniqueFd fd(open("/etc/hostname", O_RDONLY | O_CLOEXEC));
//   if (!fd.valid()) return absl::ErrnoToStatus(errno, "open /etc/hostname");
//   read(fd.get(), buf, sizeof(buf));
//   // closed here

#ifndef SPAWNLAB_LIB_UNIQUE_FD_H_
#define SPAWNLAB_LIB_UNIQUE_FD_H_

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <utility>

namespace spawnlab {

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    reset(other.release());
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(); }

  bool valid() const { return fd_ >= 0; }
  int get() const { return fd_; }

  // Gives up ownership without closing.
  int release() { return std::exchange(fd_, -1); }

  // Closes the held descriptor (if any) and holds `fd` instead.
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

// write(2) that turns a reader's absence into -1 with errno EPIPE instead of a
// SIGPIPE that would kill the caller: SIGPIPE is blocked in this thread around
// the write, and the one the write raised is consumed, so the caller's own
// disposition and mask are left as they were (as a library must). EINTR is
// retried.
inline ssize_t WriteWithoutSigpipe(int fd, const void* data, size_t size) {
  sigset_t pipe_only, old, pending;
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_only, &old);
  // A SIGPIPE already pending before the write is the caller's: leave it.
  sigpending(&pending);
  const bool was_pending = sigismember(&pending, SIGPIPE) == 1;
  ssize_t n;
  do {
    n = ::write(fd, data, size);
  } while (n < 0 && errno == EINTR);
  const int saved = errno;
  if (n < 0 && saved == EPIPE && !was_pending) {
    const struct timespec zero = {0, 0};
    while (sigtimedwait(&pipe_only, nullptr, &zero) == SIGPIPE) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  errno = saved;
  return n;
}

}  // namespace spawnlab

#endif  // SPAWNLAB_LIB_UNIQUE_FD_H_
