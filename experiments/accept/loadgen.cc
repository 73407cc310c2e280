// loadgen.cc: see loadgen.h.

#include "experiments/accept/loadgen.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "experiments/accept/http.h"
#include "lib/clock.h"
#include "lib/unique_fd.h"

namespace spawnlab {
namespace {

struct Slot {
  int fd = -1;
  bool connecting = false;
  int64_t started_ns = 0;  // latency origin of the request in flight
  bool in_flight = false;
  std::string in;
  size_t sent = 0;
};

}  // namespace

void LoadResult::Append(const LoadResult& later) {
  requests += later.requests;
  non_2xx += later.non_2xx;
  errors += later.errors;
  timeouts += later.timeouts;
  connections += later.connections;
  seconds += later.seconds;
  latency_us.insert(latency_us.end(), later.latency_us.begin(), later.latency_us.end());
  for (const auto& [worker, n] : later.per_worker) per_worker[worker] += n;
  if (first_error.empty()) first_error = later.first_error;
}

double LoadResult::Percentile(double p) const {
  if (latency_us.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::vector<double> v = latency_us;
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size())));
  return v[std::min(v.size() - 1, i == 0 ? 0 : i - 1)];
}

double LoadResult::SpreadStddev(int workers) const {
  if (workers < 1) return std::numeric_limits<double>::quiet_NaN();
  double sum = 0, sq = 0;
  for (int w = 0; w < workers; ++w) {
    auto it = per_worker.find(w);
    double c = it == per_worker.end() ? 0 : static_cast<double>(it->second);
    sum += c;
    sq += c * c;
  }
  double mean = sum / workers;
  return std::sqrt(std::max(0.0, sq / workers - mean * mean));
}

double LoadResult::SpreadMaxOverMin(int workers) const {
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  for (int w = 0; w < workers; ++w) {
    auto it = per_worker.find(w);
    double c = it == per_worker.end() ? 0 : static_cast<double>(it->second);
    lo = std::min(lo, c);
    hi = std::max(hi, c);
  }
  return lo == 0 ? std::numeric_limits<double>::infinity() : hi / lo;
}

namespace {
absl::StatusOr<LoadResult> RunLoadThread(const LoadOptions& o);
}  // namespace

absl::StatusOr<LoadResult> RunLoad(const LoadOptions& o) {
  if (o.port <= 0 || o.port > 65535) return absl::InvalidArgumentError("port out of range");
  if (o.connections < 1) return absl::InvalidArgumentError("connections must be at least 1");
  if (o.threads < 1) return absl::InvalidArgumentError("threads must be at least 1");
  if (o.threads == 1) return RunLoadThread(o);
  if (o.connections < o.threads || o.max_requests < o.threads) {
    return absl::InvalidArgumentError("each load thread needs a connection and a request");
  }
  const int cpus = std::max(1, static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)));
  std::vector<absl::StatusOr<LoadResult>> parts(static_cast<size_t>(o.threads),
                                                absl::InternalError("not run"));
  std::vector<std::thread> threads;
  for (int t = 0; t < o.threads; ++t) {
    LoadOptions share = o;
    share.threads = 1;
    share.connections = o.connections / o.threads + (t < o.connections % o.threads ? 1 : 0);
    share.max_requests = o.max_requests / o.threads;
    threads.emplace_back([share, t, cpus, &parts] {
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(t % cpus, &one);
      if (int e = pthread_setaffinity_np(pthread_self(), sizeof(one), &one); e != 0) {
        parts[t] =
            absl::ErrnoToStatus(e, absl::StrCat("pinning load thread ", t, " to CPU ", t % cpus));
        return;
      }
      parts[t] = RunLoadThread(share);
    });
  }
  for (std::thread& th : threads) th.join();
  LoadResult all;
  for (absl::StatusOr<LoadResult>& p : parts) {
    if (!p.ok()) return p.status();
    // The threads ran at the same time: the load lasted as long as the longest.
    const double seconds = std::max(all.seconds, p->seconds);
    all.Append(*p);
    all.seconds = seconds;
  }
  return all;
}

namespace {

// One load thread: its connections, each with at most one request in flight,
// driven through one epoll set until the duration or the request count runs
// out.
class LoadThread {
 public:
  explicit LoadThread(const LoadOptions& o)
      : o_(o),
        ep_(epoll_create1(EPOLL_CLOEXEC)),
        request_(http::Request(o.keep_alive)),
        slots_(static_cast<size_t>(o.connections)),
        t_begin_(MonotonicNanos()),
        stop_ns_(t_begin_ + absl::ToInt64Nanoseconds(o.duration)),
        timeout_ns_(absl::ToInt64Nanoseconds(o.request_timeout)),
        last_response_ns_(t_begin_) {
    addr_.sin_family = AF_INET;
    addr_.sin_port = htons(static_cast<uint16_t>(o.port));
    addr_.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  }

  absl::StatusOr<LoadResult> Run() {
    if (!ep_.valid()) return absl::ErrnoToStatus(errno, "epoll_create1");
    for (Slot& s : slots_) {
      if (MayStart()) BeginRequest(s);
    }
    struct epoll_event events[256];
    while (true) {
      const bool any_in_flight = ExpireTimedOut();
      if (!any_in_flight && !MayStart()) break;
      if (!any_in_flight) {
        for (Slot& s : slots_) {
          if (!s.in_flight && MayStart()) BeginRequest(s);
        }
        continue;
      }
      int n = epoll_wait(ep_.get(), events, 256, 50);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return absl::ErrnoToStatus(errno, "epoll_wait");
      for (int i = 0; i < n; ++i) {
        Slot& s = *static_cast<Slot*>(events[i].data.ptr);
        if (s.fd >= 0) Event(s, events[i].events);
      }
    }
    for (Slot& s : slots_) CloseSlot(s);
    result_.seconds = static_cast<double>(last_response_ns_ - t_begin_) * 1e-9;
    return result_;
  }

 private:
  void Error(const std::string& what) {
    ++result_.errors;
    if (result_.first_error.empty()) result_.first_error = what;
  }

  void CloseSlot(Slot& s) {
    if (s.fd >= 0) {
      epoll_ctl(ep_.get(), EPOLL_CTL_DEL, s.fd, nullptr);
      close(s.fd);
    }
    s = Slot();
  }

  bool MayStart() const { return started_ < o_.max_requests && MonotonicNanos() < stop_ns_; }

  // Sends what remains of the request; false on failure.
  bool SendRequest(Slot& s) {
    while (s.sent < request_.size()) {
      ssize_t w = send(s.fd, request_.data() + s.sent, request_.size() - s.sent, MSG_NOSIGNAL);
      if (w < 0 && errno == EAGAIN) return true;
      if (w <= 0) return false;
      s.sent += static_cast<size_t>(w);
    }
    struct epoll_event ev = {EPOLLIN, {.ptr = &s}};
    epoll_ctl(ep_.get(), EPOLL_CTL_MOD, s.fd, &ev);
    return true;
  }

  // A new request on the slot's connection, or on a new one (whose connect
  // the latency includes).
  void BeginRequest(Slot& s) {
    ++started_;
    s.in_flight = true;
    s.sent = 0;
    s.in.clear();
    if (s.fd < 0) {
      s.fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
      int one = 1;
      setsockopt(s.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
      s.started_ns = MonotonicNanos();
      ++result_.connections;
      int r = connect(s.fd, reinterpret_cast<sockaddr*>(&addr_), sizeof(addr_));
      s.connecting = r != 0;
      if (r != 0 && errno != EINPROGRESS) {
        Error(absl::StrCat("connect: ", strerror(errno)));
        CloseSlot(s);
        return;
      }
      struct epoll_event ev = {EPOLLOUT | EPOLLIN, {.ptr = &s}};
      epoll_ctl(ep_.get(), EPOLL_CTL_ADD, s.fd, &ev);
      if (s.connecting) return;
    } else {
      s.started_ns = MonotonicNanos();
      struct epoll_event ev = {EPOLLOUT | EPOLLIN, {.ptr = &s}};
      epoll_ctl(ep_.get(), EPOLL_CTL_MOD, s.fd, &ev);
    }
    if (!SendRequest(s)) {
      Error(absl::StrCat("send: ", strerror(errno)));
      CloseSlot(s);
    }
  }

  // Counts and closes the requests past their timeout; whether any other is
  // in flight.
  bool ExpireTimedOut() {
    const int64_t now = MonotonicNanos();
    bool any_in_flight = false;
    for (Slot& s : slots_) {
      if (!s.in_flight) continue;
      if (now - s.started_ns > timeout_ns_) {
        ++result_.timeouts;
        CloseSlot(s);
        continue;
      }
      any_in_flight = true;
    }
    return any_in_flight;
  }

  void Event(Slot& s, uint32_t events) {
    if (s.connecting && (events & (EPOLLOUT | EPOLLERR | EPOLLHUP))) {
      int err = 0;
      socklen_t len = sizeof(err);
      getsockopt(s.fd, SOL_SOCKET, SO_ERROR, &err, &len);
      if (err != 0) {
        Error(absl::StrCat("connect: ", strerror(err)));
        return CloseSlot(s);
      }
      s.connecting = false;
    }
    if ((events & EPOLLOUT) && s.sent < request_.size() && !SendRequest(s)) {
      Error(absl::StrCat("send: ", strerror(errno)));
      return CloseSlot(s);
    }
    if (events & (EPOLLIN | EPOLLHUP | EPOLLERR)) Receive(s);
  }

  // Reads what came; on a whole response, counts it and starts the next
  // request.
  void Receive(Slot& s) {
    bool eof = false;
    char buf[16384];
    while (true) {
      ssize_t r = recv(s.fd, buf, sizeof(buf), 0);
      if (r > 0) {
        s.in.append(buf, static_cast<size_t>(r));
        continue;
      }
      eof = !(r < 0 && errno == EAGAIN);
      break;
    }
    std::optional<http::Response> resp = http::ParseResponse(s.in);
    if (!resp.has_value()) {
      if (eof) {
        Error(s.in.empty() ? "the server closed the connection before answering"
                           : "the server closed the connection mid-response");
        CloseSlot(s);
      }
      return;
    }
    const int64_t done = MonotonicNanos();
    last_response_ns_ = done;
    ++result_.requests;
    if (resp->status < 200 || resp->status > 299) ++result_.non_2xx;
    result_.latency_us.push_back(static_cast<double>(done - s.started_ns) / 1e3);
    ++result_.per_worker[resp->worker];
    s.in_flight = false;
    const bool reuse = o_.keep_alive && !resp->close && !eof;
    if (!reuse) CloseSlot(s);
    if (MayStart()) BeginRequest(s);
  }

  const LoadOptions o_;
  UniqueFd ep_;
  struct sockaddr_in addr_ = {};
  const std::string request_;
  LoadResult result_;
  std::vector<Slot> slots_;
  int64_t started_ = 0;
  const int64_t t_begin_, stop_ns_, timeout_ns_;
  int64_t last_response_ns_;
};

absl::StatusOr<LoadResult> RunLoadThread(const LoadOptions& o) { return LoadThread(o).Run(); }

}  // namespace

}  // namespace spawnlab
