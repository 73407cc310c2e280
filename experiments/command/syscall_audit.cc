// syscall_audit.cc: strace -f -c over spawn_loop, per spawn.

#include "experiments/command/syscall_audit.h"

#include <stdlib.h>
#include <unistd.h>

#include <cmath>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/time.h"
#include "lib/command.h"
#include "lib/safe_file.h"

namespace spawnlab {

namespace {

constexpr char kStrace[] = "/usr/bin/strace";

// One run of the loop under strace: its calls by name.
absl::StatusOr<SyscallCounts> Traced(const std::string& dir, const std::string& spawn_loop,
                                     absl::string_view api, const std::string& child, int spawns) {
  const std::string out = absl::StrCat(dir, "/", api, "-", spawns);
  // LeakSanitizer refuses to run under ptrace: an ASan build of the loop
  // would exit before its first spawn.
  const char* asan = getenv("ASAN_OPTIONS");
  const std::string asan_options = absl::StrCat(
      asan != nullptr && *asan != '\0' ? absl::StrCat(asan, ":") : "", "detect_leaks=0");
  absl::StatusOr<CommandResult> r =
      Command(kStrace)
          .Env("ASAN_OPTIONS", asan_options)
          .Args({"-f", "-c", "-U", "name,calls", "-o", out, "--", spawn_loop,
                 absl::StrCat("--api=", api), absl::StrCat("--n=", spawns), child})
          .Stdout(Stdio::Null())
          .Stderr(Stdio::Pipe())
          .Timeout(absl::Minutes(1))
          .Run();
  if (!r.ok()) return r.status();
  const std::string err(absl::StripAsciiWhitespace(r->err));
  if (!r->status.success()) {
    // strace's own words when it may not attach (seccomp, Yama, a sandbox).
    if (absl::StrContains(err, "strace: attach") ||
        absl::StrContains(err, "Operation not permitted")) {
      return absl::PermissionDeniedError(
          absl::StrCat("strace cannot trace here (ptrace is not allowed): ", err));
    }
    return absl::InternalError(absl::StrCat("strace ", spawn_loop, " --api=", api, " --n=", spawns,
                                            ": ", r->status.ToString(), ": ", err));
  }
  absl::StatusOr<std::string> text = ReadFileToString(out);
  if (!text.ok()) return text.status();
  return ParseStraceCounts(*text);
}

}  // namespace

absl::StatusOr<SyscallCounts> ParseStraceCounts(absl::string_view text) {
  SyscallCounts counts;
  bool header = false;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipWhitespace())) {
    std::vector<absl::string_view> f = absl::StrSplit(line, ' ', absl::SkipWhitespace());
    if (f.size() == 2 && f[0] == "syscall" && f[1] == "calls") {
      header = true;
      continue;
    }
    if (!header || absl::StartsWith(f[0], "-") || f[0] == "total") continue;
    double calls = 0;
    if (f.size() != 2 || !absl::SimpleAtod(f[1], &calls) || calls < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("strace -c output: expected \"NAME CALLS\", got \"", line, "\""));
    }
    counts[std::string(f[0])] += calls;
  }
  if (!header) {
    return absl::InvalidArgumentError(
        "strace -c output: no \"syscall calls\" header (was it run with -U name,calls?)");
  }
  return counts;
}

SyscallCounts PerSpawn(const SyscallCounts& with, const SyscallCounts& without, int spawns) {
  SyscallCounts per;
  SyscallCounts all = with;
  for (const auto& [name, calls] : without) all.emplace(name, 0.0);
  for (const auto& [name, calls] : all) {
    auto base = without.find(name);
    const double diff = calls - (base == without.end() ? 0.0 : base->second);
    if (diff != 0 && spawns > 0) per[name] = diff / spawns;
  }
  return per;
}

absl::StatusOr<SyscallCounts> SyscallsPerSpawn(const std::string& spawn_loop, absl::string_view api,
                                               const std::string& child, int spawns) {
  if (access(kStrace, X_OK) != 0) {
    return absl::NotFoundError(
        absl::StrCat(kStrace, " is not installed (./bazelw installs Debian's strace)"));
  }
  if (spawns < 1) return absl::InvalidArgumentError("spawns: at least 1");
  // A fresh private folder (mkdtemp, 0700) for strace's -o: no name another
  // user could have planted a link at.
  absl::StatusOr<TempDir> dir = TempDir::Make("spawnlab-syscall-audit");
  if (!dir.ok()) return dir.status();
  absl::StatusOr<SyscallCounts> with = Traced(dir->path(), spawn_loop, api, child, spawns);
  if (!with.ok()) return with.status();
  absl::StatusOr<SyscallCounts> without = Traced(dir->path(), spawn_loop, api, child, 0);
  if (!without.ok()) return without.status();
  return PerSpawn(*with, *without, spawns);
}

}  // namespace spawnlab
