// The blocking mechanism: accept4, then one connection served to its end.

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "experiments/accept/connection.h"
#include "experiments/accept/serve.h"
#include "experiments/accept/server_common.h"

namespace spawnlab::accept {
namespace {

// Serves one accepted connection: one request (Connection: close), bounded
// by the header timeout while it waits and the send timeout while it writes.
void ServeOne(int fd, int worker) {
  char buf[kChunk];
  Conn c(Now());
  while (!c.Finished()) {
    // A slow or silent client holds the worker for --header_timeout at most.
    const int64_t wait_ns = c.Deadline().second - Now();
    struct pollfd pfd = {fd, POLLIN, 0};
    int r = wait_ns <= 0 ? 0 : poll(&pfd, 1, static_cast<int>((wait_ns + 999'999) / 1'000'000));
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) {
      c.Expired(Now());
      return;
    }
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    c.Received(buf, static_cast<size_t>(n), Now());
    c.Produce(worker, /*force_close=*/true);
    // Blocking writes: a send timeout leaves output unsent.
    if (!Flush(fd, c, Now())) return;
    if (!c.out.empty()) {
      stats->idle_timeouts++;
      return;
    }
  }
}

}  // namespace

void ServeBlocking(int listener, int worker) {
  const struct timeval send_timeout = {
      static_cast<time_t>(limits.idle_ns / 1'000'000'000),
      static_cast<suseconds_t>(limits.idle_ns % 1'000'000'000 / 1000)};
  while (true) {
    int fd = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (OutOfResources(errno)) {
        stats->accept_pauses++;
        poll(nullptr, 0, static_cast<int>(kAcceptPauseNs / 1'000'000));
        continue;
      }
      if (RetryAccept(errno)) continue;
      Fail(1, absl::StrCat("accept4: ", strerror(errno)));
    }
    // A client that stops reading holds the worker for --idle_timeout.
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &send_timeout, sizeof(send_timeout));
    ServeOne(fd, worker);
    close(fd);
  }
}

}  // namespace spawnlab::accept
