// http.h: the little HTTP/1.1 the accept experiment speaks, on both sides.
//
// Enough for wrk and for the bench's own load generator: requests are read up
// to their blank line (bodies are not expected), every request gets
// "200 OK" with a 3-byte body and an X-Worker header naming the worker that
// served it, and keep-alive is the default unless the request or the server
// says "Connection: close".
//
// Example (server side):
//
//   std::string in = ..., out;
//   bool close = false;
//   size_t used = spawnlab::http::Respond(in, /*worker=*/2, /*force_close=*/false, &out, &close);
//   in.erase(0, used);

#ifndef SPAWNLAB_EXPERIMENTS_ACCEPT_HTTP_H_
#define SPAWNLAB_EXPERIMENTS_ACCEPT_HTTP_H_

#include <cstddef>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace spawnlab {
namespace http {

// Answers every complete request at the front of `in`, appending the
// responses to `out`. Returns the bytes of `in` consumed. Sets *close if the
// connection must be closed after `out` is sent (a request said so, or
// `force_close`). A request larger than 8 KiB without its blank line is
// answered with 431 and closes the connection.
size_t Respond(absl::string_view in, int worker, bool force_close, std::string* out, bool* close);

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
