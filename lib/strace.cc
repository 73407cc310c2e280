// strace.cc: a program run under strace, its trace returned.

#include "lib/strace.h"

#include <stdlib.h>
#include <unistd.h>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "lib/command.h"
#include "lib/safe_file.h"

namespace spawnlab {

absl::StatusOr<std::string> RunUnderStrace(const std::vector<std::string>& options,
                                           const std::vector<std::string>& argv,
                                           absl::Duration timeout) {
  if (access(kStracePath, X_OK) != 0) {
    return absl::NotFoundError(
        absl::StrCat(kStracePath, " is not installed (./bazelw installs Debian's strace)"));
  }
  if (argv.empty()) return absl::InvalidArgumentError("RunUnderStrace: no program");
  // A fresh private folder (mkdtemp, 0700) for -o: no name another user could
  // have planted a link at for root's strace to write through.
  absl::StatusOr<TempDir> dir = TempDir::Make("spawnlab-strace");
  if (!dir.ok()) return dir.status();
  const std::string log = dir->path() + "/strace.log";
  std::vector<std::string> args = options;
  for (const std::string& a : {std::string("-o"), log, std::string("--")}) args.push_back(a);
  args.insert(args.end(), argv.begin(), argv.end());
  const char* asan = getenv("ASAN_OPTIONS");
  absl::StatusOr<CommandResult> r =
      Command(kStracePath)
          .Args(args)
          .Env("ASAN_OPTIONS",
               absl::StrCat(asan != nullptr && *asan != '\0' ? absl::StrCat(asan, ":") : "",
                            "detect_leaks=0"))
          .Stdout(Stdio::Null())
          .Stderr(Stdio::Pipe())
          .Timeout(timeout)
          .Run();
  if (!r.ok()) return r.status();
  const std::string err(absl::StripAsciiWhitespace(r->err));
  if (!r->status.success()) {
    // strace's own words when it may not attach.
    if (absl::StrContains(err, "strace: attach") ||
        absl::StrContains(err, "Operation not permitted")) {
      return absl::PermissionDeniedError(
          absl::StrCat("strace cannot trace here (ptrace is not allowed): ", err));
    }
    return absl::InternalError(
        absl::StrCat("strace ", argv[0], ": ", r->status.ToString(), ": ", err));
  }
  return ReadFileToString(log);
}

}  // namespace spawnlab
