// syscall_audit.cc: strace -f -c over spawn_loop, per spawn.

#include "experiments/command/syscall_audit.h"

#include <cmath>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "lib/strace.h"

namespace spawnlab {

namespace {

// One run of the loop under strace: its calls by name.
absl::StatusOr<SyscallCounts> Traced(const std::string& spawn_loop, absl::string_view api,
                                     const std::string& child, int spawns) {
  absl::StatusOr<std::string> table =
      RunUnderStrace({"-f", "-c", "-U", "name,calls"},
                     {spawn_loop, absl::StrCat("--api=", api), absl::StrCat("--n=", spawns), child},
                     absl::Minutes(1));
  if (!table.ok()) return table.status();
  return ParseStraceCounts(*table);
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
  if (spawns < 1) return absl::InvalidArgumentError("spawns: at least 1");
  absl::StatusOr<SyscallCounts> with = Traced(spawn_loop, api, child, spawns);
  if (!with.ok()) return with.status();
  absl::StatusOr<SyscallCounts> without = Traced(spawn_loop, api, child, 0);
  if (!without.ok()) return without.status();
  return PerSpawn(*with, *without, spawns);
}

}  // namespace spawnlab
