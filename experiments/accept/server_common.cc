#include "experiments/accept/server_common.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "lib/clock.h"

namespace spawnlab::accept {

Limits limits;
Stats* stats = nullptr;

void Fail(int code, const std::string& message) {
  fprintf(stderr, "server: %s\n", message.c_str());
  fflush(stderr);
  _exit(code);
}

int64_t Now() { return spawnlab::MonotonicNanos(); }

void Spin(int64_t rounds) {
  uint64_t x = 1;
  for (int64_t i = 0; i < rounds; ++i) x = x * 6364136223846793005u + 1442695040888963407u;
  asm volatile("" : : "r"(x));
}

absl::StatusOr<int> Listen(int port, bool reuseport) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::ErrnoToStatus(errno, "socket");
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (reuseport) setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one));
  struct sockaddr_in addr = {};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    int err = errno;
    close(fd);
    return absl::ErrnoToStatus(err, err == EADDRINUSE
                                        ? absl::StrCat("port ", port, " on 127.0.0.1 is in use")
                                        : absl::StrCat("bind 127.0.0.1:", port));
  }
  if (listen(fd, 4096) != 0) {
    int err = errno;
    close(fd);
    return absl::ErrnoToStatus(err, "listen");
  }
  return fd;
}

int PortOf(int fd) {
  struct sockaddr_in addr = {};
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  return ntohs(addr.sin_port);
}

void SetNonBlocking(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

bool OutOfResources(int err) {
  return err == EMFILE || err == ENFILE || err == ENOBUFS || err == ENOMEM;
}

bool RetryAccept(int err) {
  return err == EINTR || err == ECONNABORTED || err == EPROTO || err == EPERM;
}

}  // namespace spawnlab::accept
