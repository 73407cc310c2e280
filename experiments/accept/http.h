// http.h: the little HTTP/1.1 the accept experiment speaks, on both sides.
//
// Enough for wrk and for the bench's own load generator: requests are read up
// to their blank line (no bodies); each gets "200 OK", a 3-byte body and an
// X-Worker header naming the worker that served it; keep-alive unless either
// side says "Connection: close". What is not a request line gets "400 Bad
// Request" and the connection closed, so that a stream of bare "\r\n\r\n"
// cannot make the server write many times what it reads.
//
//   OutputBuffer out;  // server side, `in` holding what was read
//   Answered a = spawnlab::http::Respond(in, /*worker=*/2, /*force_close=*/false,
//                                        /*max_output=*/kHighWater - out.size(), out.string());
//   in.erase(0, a.consumed);
//   ... write(fd, out.data(), out.size()) ... out.Consume(written);

#ifndef SPAWNLAB_EXPERIMENTS_ACCEPT_HTTP_H_
#define SPAWNLAB_EXPERIMENTS_ACCEPT_HTTP_H_

#include <cstddef>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace spawnlab {
namespace http {

// The longest request head accepted; a longer one is answered with 431.
inline constexpr size_t kMaxRequest = 8192;

struct Answered {
  size_t consumed = 0;    // bytes of `in` used up
  int requests = 0;       // responses appended (a 400 or 431 included)
  bool close = false;     // close the connection once the output is sent
  bool rejected = false;  // a 400 or 431 was sent
};

// Answers the complete requests at the front of `in`, appending the responses
// to `out`, and stops once it has appended `max_output` bytes or more (the
// caller's high-water mark: the rest stays in `in` until the client has read
// what is pending). Sets close if a request said so, was HTTP/1.0 without
// keep-alive, was rejected, or `force_close`. A head larger than kMaxRequest
// without its blank line is answered with 431; what is not a request line
// with 400.
Answered Respond(absl::string_view in, int worker, bool force_close, size_t max_output,
                 std::string* out);

// Bytes waiting to be written to a socket. Partial writes advance an offset
// instead of erasing from the front, so draining n bytes in small writes costs
// O(n), not O(n^2).
class OutputBuffer {
 public:
  const char* data() const { return buffer_.data() + offset_; }
  size_t size() const { return buffer_.size() - offset_; }
  bool empty() const { return size() == 0; }
  // The string to append to (compacted first if most of it is sent).
  std::string* string() {
    if (offset_ > 0 && offset_ >= buffer_.size() / 2) {
      buffer_.erase(0, offset_);
      offset_ = 0;
    }
    return &buffer_;
  }
  void Append(absl::string_view bytes) { string()->append(bytes.data(), bytes.size()); }
  void Consume(size_t n) {
    offset_ += n;
    if (offset_ >= buffer_.size()) {
      buffer_.clear();
      offset_ = 0;
    }
  }

 private:
  std::string buffer_;
  size_t offset_ = 0;
};

// A response as the load generator reads it.
struct Response {
  int status = 0;
  int worker = -1;     // X-Worker, -1 if absent
  bool close = false;  // Connection: close
  size_t length = 0;   // bytes of `in` the whole response takes
};

// Parses one complete response at the front of `in`; nullopt if it is not all
// there yet. Malformed input gives status 0.
std::optional<Response> ParseResponse(absl::string_view in);

// The request the load generator sends.
std::string Request(bool keep_alive);

}  // namespace http
}  // namespace spawnlab

#endif  // SPAWNLAB_EXPERIMENTS_ACCEPT_HTTP_H_
