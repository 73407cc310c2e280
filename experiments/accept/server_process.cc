// server_process.cc: see server_process.h.

#include "experiments/accept/server_process.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace spawnlab {

absl::StatusOr<ServerProcess> ServerProcess::Start(const std::string& binary,
                                                   const std::string& model,
                                                   const std::string& mechanism, int workers,
                                                   int port,
                                                   const std::vector<std::string>& extra_flags) {
  std::vector<std::string> args = {absl::StrCat("--model=", model),
                                   absl::StrCat("--mechanism=", mechanism),
                                   absl::StrCat("--workers=", workers),
                                   absl::StrCat("--port=", port),
                                   "--die_with_parent",
                                   absl::StrCat("--expect_parent=", getpid())};
  args.insert(args.end(), extra_flags.begin(), extra_flags.end());
  absl::StatusOr<Process> p = Command(binary)
                                  .Args(args)
                                  .Stdout(Stdio::Pipe())
                                  .Stderr(Stdio::Pipe())
                                  .Timeout(absl::Minutes(30))
                                  .Start();
  if (!p.ok()) return p.status();
  ServerProcess server(*std::move(p));
  std::string out;
  const absl::Time deadline = absl::Now() + absl::Seconds(20);
  while (!absl::StrContains(out, "\nworkers ") || !absl::EndsWith(out, "\n")) {
    struct pollfd pfd = {server.process_.stdout_fd(), POLLIN, 0};
    int left = static_cast<int>(absl::ToInt64Milliseconds(deadline - absl::Now()));
    if (left <= 0) return absl::DeadlineExceededError("the server did not start in 20 s");
    int r = poll(&pfd, 1, left);
    if (r < 0 && errno == EINTR) continue;
    char buf[512];
    ssize_t n = r > 0 ? read(server.process_.stdout_fd(), buf, sizeof(buf)) : 0;
    if (n > 0) {
      out.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EAGAIN) continue;
    if (r == 0) continue;
    // EOF: the server exited; say why.
    server.stopped_ = true;
    absl::StatusOr<CommandResult> done = server.process_.Wait();
    if (!done.ok()) return done.status();
    absl::string_view said_view = absl::StripAsciiWhitespace(done->err);
    absl::ConsumePrefix(&said_view, "server: ");
    const std::string said(said_view);
    if (done->status.exited() && done->status.exit_code() == 3) {
      return absl::UnimplementedError(said);
    }
    if (done->status.exited() && done->status.exit_code() == 2) {
      return absl::InvalidArgumentError(said);
    }
    return absl::InternalError(
        absl::StrCat("the server ended with ", done->status.ToString(), ": ", said));
  }
  for (absl::string_view line : absl::StrSplit(out, '\n')) {
    if (absl::ConsumePrefix(&line, "listening on 127.0.0.1:")) {
      absl::SimpleAtoi(line.substr(0, line.find(' ')), &server.port_);
    } else if (absl::ConsumePrefix(&line, "workers ")) {
      for (absl::string_view pid : absl::StrSplit(line, ' ', absl::SkipEmpty())) {
        int v;
        if (absl::SimpleAtoi(pid, &v)) server.children_.push_back(v);
      }
    }
  }
  if (server.port_ <= 0) return absl::InternalError(absl::StrCat("the server said: ", out));
  return server;
}

absl::StatusOr<ExitStatus> ServerProcess::Stop() {
  if (stopped_) return absl::FailedPreconditionError("the server was stopped already");
  stopped_ = true;
  kill(process_.pid(), SIGTERM);
  absl::StatusOr<CommandResult> done = process_.Wait();
  if (!done.ok()) return done.status();
  for (absl::string_view line : absl::StrSplit(done->out, '\n')) {
    if (!absl::ConsumePrefix(&line, "stats ")) continue;
    for (absl::string_view field : absl::StrSplit(line, ' ', absl::SkipEmpty())) {
      std::pair<absl::string_view, absl::string_view> kv = absl::StrSplit(field, '=');
      int64_t v;
      if (absl::SimpleAtoi(kv.second, &v)) stats_[std::string(kv.first)] = v;
    }
  }
  return done->status;
}

}  // namespace spawnlab
