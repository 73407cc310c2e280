// http_test.cc: requests are answered, pipelined and partial ones handled,
// keep-alive and close honoured, what is not a request rejected, output
// bounded by the caller's budget; the output buffer drains in linear time;
// responses parse.

#include "experiments/accept/http.h"

#include <limits>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace spawnlab {
namespace http {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr size_t kAll = std::numeric_limits<size_t>::max();

TEST(Http, AnswersPipelinedRequestsAndKeepsAPartialOne) {
  std::string in = Request(true) + Request(true) + "GET / HT";
  std::string out;
  Answered a = Respond(in, 3, false, kAll, &out);
  EXPECT_EQ(a.consumed, 2 * Request(true).size());
  EXPECT_EQ(a.requests, 2);
  EXPECT_FALSE(a.close);
  EXPECT_FALSE(a.rejected);
  std::optional<Response> first = ParseResponse(out);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->status, 200);
  EXPECT_EQ(first->worker, 3);
  std::optional<Response> second = ParseResponse(absl::string_view(out).substr(first->length));
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(first->length + second->length, out.size());
}

// issue 44: a Content-Length body was answered as a second request.
TEST(Http, ABodyIsDroppedNotTakenForTheNextRequest) {
  const std::string post = "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 18\r\n\r\n";
  const std::string body = "GET / HTTP/1.1\r\n\r\n";  // 18 bytes that look like a request
  ASSERT_EQ(body.size(), 18u);
  std::string out;
  Answered a = Respond(post + body, 0, false, kAll, &out);
  EXPECT_EQ(a.requests, 1);
  EXPECT_EQ(a.consumed, post.size() + body.size());
  // A body still on its way: nothing is answered or consumed yet.
  out.clear();
  a = Respond(post + body.substr(0, 5), 0, false, kAll, &out);
  EXPECT_EQ(a.requests, 0);
  EXPECT_EQ(a.consumed, 0u);
  EXPECT_TRUE(out.empty());
  // Chunked, unreadable or oversized bodies are refused, and the connection closes.
  for (const char* header : {"Transfer-Encoding: chunked", "Content-Length: lots",
                             "Content-Length: 99999999999"}) {
    out.clear();
    a = Respond(absl::StrCat("POST / HTTP/1.1\r\n", header, "\r\n\r\n"), 0, false, kAll, &out);
    EXPECT_TRUE(a.rejected) << header;
    EXPECT_TRUE(a.close) << header;
    EXPECT_THAT(out, ::testing::Not(StartsWith("HTTP/1.1 200"))) << header;
  }
}

TEST(Http, ClosesWhenAskedOrForced) {
  std::string out;
  EXPECT_TRUE(Respond(Request(false), 0, false, kAll, &out).close);
  EXPECT_TRUE(ParseResponse(out)->close);
  out.clear();
  EXPECT_TRUE(Respond(Request(true), 0, true, kAll, &out).close);
  out.clear();
  EXPECT_TRUE(Respond("GET / HTTP/1.0\r\n\r\n", 0, false, kAll, &out).close);
  out.clear();
  EXPECT_FALSE(
      Respond("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", 0, false, kAll, &out).close);
}

TEST(Http, OversizedRequestIs431) {
  std::string out;
  Answered a = Respond(std::string(9000, 'a'), 0, false, kAll, &out);
  EXPECT_TRUE(a.close);
  EXPECT_TRUE(a.rejected);
  EXPECT_EQ(a.consumed, 9000u);
  EXPECT_THAT(out, HasSubstr("431"));
}

// A bare blank line is not a request: answering each one with 90 bytes would
// let 4 bytes in buy 20 times as many out.
TEST(Http, WhatIsNotARequestLineIs400AndCloses) {
  for (const std::string& bad :
       {std::string("\r\n\r\n\r\n\r\n"), std::string("GET /\r\n\r\n"),
        std::string("GET / HTTP/2.0\r\n\r\n"), std::string("GET  / HTTP/1.1\r\n\r\n"),
        std::string("G\x01T / HTTP/1.1\r\n\r\n"), std::string("hello world\r\n\r\n")}) {
    std::string out;
    Answered a = Respond(bad + Request(true), 0, false, kAll, &out);
    EXPECT_TRUE(a.rejected) << bad;
    EXPECT_TRUE(a.close) << bad;
    EXPECT_EQ(a.consumed, bad.size() + Request(true).size()) << "the rest is dropped: " << bad;
    EXPECT_THAT(out, StartsWith("HTTP/1.1 400 ")) << bad;
    EXPECT_EQ(ParseResponse(out)->length, out.size()) << "one response only: " << bad;
  }
}

TEST(Http, OneEmptyLineBeforeARequestIsIgnored) {
  std::string out;
  Answered a = Respond("\r\n" + Request(true), 0, false, kAll, &out);
  EXPECT_FALSE(a.rejected);
  EXPECT_EQ(a.requests, 1);
  EXPECT_EQ(ParseResponse(out)->status, 200);
}

TEST(Http, StopsAtTheOutputBudgetAndLeavesTheRestForLater) {
  std::string in;
  for (int i = 0; i < 100; ++i) in += Request(true);
  std::string out;
  Answered a = Respond(in, 0, false, /*max_output=*/1, &out);
  EXPECT_EQ(a.requests, 1);
  EXPECT_EQ(a.consumed, Request(true).size());
  const size_t one = out.size();
  out.clear();
  a = Respond(in, 0, false, 10 * one, &out);
  EXPECT_EQ(a.requests, 10);
  EXPECT_EQ(out.size(), 10 * one);
}

TEST(OutputBuffer, DrainsInPiecesAndKeepsOrder) {
  OutputBuffer b;
  b.Append("hello ");
  b.Consume(2);
  EXPECT_EQ(absl::string_view(b.data(), b.size()), "llo ");
  b.Append("world");  // compacts: the offset passed half the buffer
  EXPECT_EQ(absl::string_view(b.data(), b.size()), "llo world");
  b.Consume(9);
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(b.string()->size(), 0u);
}

// Draining 8 MiB one byte at a time: with erase-from-front this is 32 Ti byte
// moves; with the offset, none until the next append.
TEST(OutputBuffer, PartialWritesDoNotMoveTheRest) {
  OutputBuffer b;
  b.Append(std::string(8 << 20, 'x'));
  const char* first = b.data();
  for (int i = 0; i < 1000; ++i) b.Consume(1);
  EXPECT_EQ(b.data(), first + 1000) << "the unsent bytes were moved";
  EXPECT_EQ(b.size(), (8u << 20) - 1000);
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
