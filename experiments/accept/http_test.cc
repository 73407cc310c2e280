// http_test.cc: requests are answered, pipelined and partial ones handled,
// keep-alive and close honoured; responses parse.

#include "experiments/accept/http.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace spawnlab {
namespace http {
namespace {

using ::testing::HasSubstr;

TEST(Http, AnswersPipelinedRequestsAndKeepsAPartialOne) {
  std::string in = Request(true) + Request(true) + "GET / HT";
  std::string out;
  bool close;
  size_t used = Respond(in, 3, false, &out, &close);
  EXPECT_EQ(used, 2 * Request(true).size());
  EXPECT_FALSE(close);
  std::optional<Response> first = ParseResponse(out);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->status, 200);
  EXPECT_EQ(first->worker, 3);
  std::optional<Response> second = ParseResponse(absl::string_view(out).substr(first->length));
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(first->length + second->length, out.size());
}

TEST(Http, ClosesWhenAskedOrForced) {
  std::string out;
  bool close;
  Respond(Request(false), 0, false, &out, &close);
  EXPECT_TRUE(close);
  EXPECT_TRUE(ParseResponse(out)->close);
  out.clear();
  Respond(Request(true), 0, true, &out, &close);
  EXPECT_TRUE(close);
  out.clear();
  Respond("GET / HTTP/1.0\r\n\r\n", 0, false, &out, &close);
  EXPECT_TRUE(close);
}

TEST(Http, OversizedRequestIs431) {
  std::string out;
  bool close;
  Respond(std::string(9000, 'a'), 0, false, &out, &close);
  EXPECT_TRUE(close);
  EXPECT_THAT(out, HasSubstr("431"));
}

TEST(Http, IncompleteAndMalformedResponses) {
  EXPECT_FALSE(ParseResponse("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok").has_value());
  std::optional<Response> bad = ParseResponse("garbage\r\n\r\n");
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->status, 0);
}

}  // namespace
}  // namespace http
}  // namespace spawnlab
