// http.cc: see http.h.

#include "experiments/accept/http.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace spawnlab {
namespace http {
namespace {

constexpr size_t kMaxRequest = 8192;

// The value of `name` among the header lines of `head`, if present.
std::optional<absl::string_view> Header(absl::string_view head, absl::string_view name) {
  for (absl::string_view line : absl::StrSplit(head, "\r\n")) {
    size_t colon = line.find(':');
    if (colon == absl::string_view::npos) continue;
    if (absl::EqualsIgnoreCase(absl::StripAsciiWhitespace(line.substr(0, colon)), name)) {
      return absl::StripAsciiWhitespace(line.substr(colon + 1));
    }
  }
  return std::nullopt;
}

}  // namespace

size_t Respond(absl::string_view in, int worker, bool force_close, std::string* out, bool* close) {
  size_t used = 0;
  *close = false;
  while (!*close) {
    absl::string_view rest = in.substr(used);
    size_t end = rest.find("\r\n\r\n");
    if (end == absl::string_view::npos) {
      if (rest.size() > kMaxRequest) {
        absl::StrAppend(out, "HTTP/1.1 431 Request Header Fields Too Large\r\n",
                        "Content-Length: 0\r\nConnection: close\r\n\r\n");
        *close = true;
        used = in.size();
      }
      break;
    }
    absl::string_view head = rest.substr(0, end);
    used += end + 4;
    std::optional<absl::string_view> connection = Header(head, "Connection");
    const bool http10 = absl::StrContains(head.substr(0, head.find("\r\n")), "HTTP/1.0");
    *close = force_close || (connection && absl::EqualsIgnoreCase(*connection, "close")) ||
             (http10 && !(connection && absl::EqualsIgnoreCase(*connection, "keep-alive")));
    absl::StrAppend(out, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 3\r\n",
                    "X-Worker: ", worker, "\r\n", *close ? "Connection: close\r\n" : "",
                    "\r\nok\n");
  }
  return used;
}

std::optional<Response> ParseResponse(absl::string_view in) {
  size_t end = in.find("\r\n\r\n");
  if (end == absl::string_view::npos) return std::nullopt;
  absl::string_view head = in.substr(0, end);
  Response r;
  absl::string_view status_line = head.substr(0, head.find("\r\n"));
  std::vector<absl::string_view> parts = absl::StrSplit(status_line, ' ');
  if (parts.size() < 2 || !absl::StartsWith(parts[0], "HTTP/1.") ||
      !absl::SimpleAtoi(parts[1], &r.status)) {
    r.status = 0;
    r.length = in.size();
    return r;
  }
  size_t body = 0;
  if (auto v = Header(head, "Content-Length")) absl::SimpleAtoi(*v, &body);
  if (auto v = Header(head, "X-Worker")) absl::SimpleAtoi(*v, &r.worker);
  if (auto v = Header(head, "Connection")) r.close = absl::EqualsIgnoreCase(*v, "close");
  if (in.size() < end + 4 + body) return std::nullopt;
  r.length = end + 4 + body;
  return r;
}

std::string Request(bool keep_alive) {
  return absl::StrCat("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n",
                      keep_alive ? "" : "Connection: close\r\n", "\r\n");
}

}  // namespace http
}  // namespace spawnlab
