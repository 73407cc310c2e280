// http.cc: see http.h.

#include "experiments/accept/http.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "re2/re2.h"

namespace spawnlab {
namespace http {
namespace {

// RFC 9112's request-line: a method token, a target without spaces, and the
// version. Anything else is answered with 400.
const RE2& RequestLine() {
  static const RE2* re = new RE2(R"re([!#$%&'*+.^_`|~0-9A-Za-z-]+ [^ \x00-\x1f]+ HTTP/1\.[01])re");
  return *re;
}

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

Answered Respond(absl::string_view in, int worker, bool force_close, size_t max_output,
                 std::string* out) {
  Answered a;
  const size_t start = out->size();
  while (!a.close && out->size() - start < max_output) {
    absl::string_view rest = in.substr(a.consumed);
    // One empty line before a request line is ignored (RFC 9112, 2.2).
    if (absl::ConsumePrefix(&rest, "\r\n")) a.consumed += 2;
    size_t end = rest.find("\r\n\r\n");
    if (end == absl::string_view::npos) {
      if (rest.size() > kMaxRequest) {
        absl::StrAppend(out, "HTTP/1.1 431 Request Header Fields Too Large\r\n",
                        "Content-Length: 0\r\nConnection: close\r\n\r\n");
        a.close = a.rejected = true;
        a.consumed = in.size();
        ++a.requests;
      }
      break;
    }
    absl::string_view head = rest.substr(0, end);
    a.consumed += end + 4;
    ++a.requests;
    absl::string_view request_line = head.substr(0, head.find("\r\n"));
    if (!RE2::FullMatch(re2::StringPiece(request_line.data(), request_line.size()),
                        RequestLine())) {
      absl::StrAppend(out, "HTTP/1.1 400 Bad Request\r\n",
                      "Content-Length: 0\r\nConnection: close\r\n\r\n");
      a.close = a.rejected = true;
      a.consumed = in.size();
      break;
    }
    // A body (Content-Length) is read and dropped, never taken for the next
    // request; one too large, unreadable or chunked is refused.
    size_t body = 0;
    const char* refusal = nullptr;
    if (Header(head, "Transfer-Encoding")) refusal = "501 Not Implemented";
    if (std::optional<absl::string_view> length = Header(head, "Content-Length")) {
      if (!absl::SimpleAtoi(*length, &body)) refusal = "400 Bad Request";
      if (body > kMaxRequest) refusal = "413 Content Too Large";
    }
    if (refusal != nullptr) {
      absl::StrAppend(out, "HTTP/1.1 ", refusal, "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
      a.close = a.rejected = true;
      a.consumed = in.size();
      break;
    }
    if (rest.size() < end + 4 + body) {  // the body is still on its way
      a.consumed -= end + 4;
      --a.requests;
      break;
    }
    a.consumed += body;
    std::optional<absl::string_view> connection = Header(head, "Connection");
    const bool http10 = absl::EndsWith(request_line, "HTTP/1.0");
    a.close = force_close || (connection && absl::EqualsIgnoreCase(*connection, "close")) ||
              (http10 && !(connection && absl::EqualsIgnoreCase(*connection, "keep-alive")));
    absl::StrAppend(out, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 3\r\n",
                    "X-Worker: ", worker, "\r\n", a.close ? "Connection: close\r\n" : "",
                    "\r\nok\n");
  }
  return a;
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
