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

}  // namespace spawnlab

#endif  // SPAWNLAB_LIB_UNIQUE_FD_H_
