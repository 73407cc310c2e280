// spawn_loop.cc: starts and waits for a program N times by one API, and
// nothing else, for `strace -f -c` to count what each spawn costs in system
// calls (syscall_audit.h runs it at N and at 0 and takes the difference).
// One warm-up spawn comes first in both, so that the API's once-per-process
// probes (clone3's flags, say) fall in the difference's both sides.
//
//   spawn_loop --api=command|spawn|posix_spawn|clone|vfork --n=1000 /path/to/minimal_child

#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/status/status.h"
#include "lib/command.h"
#include "lib/spawn.h"

ABSL_FLAG(std::string, api, "command",
          "command, spawn (Command's lib/spawn path), posix_spawn, clone or vfork");
ABSL_FLAG(int, n, 1000, "How many spawns (0 to 1000000)");

namespace spawnlab {
namespace {

absl::Status Once(const std::string& api, const std::string& child) {
  if (api == "command") {
    absl::StatusOr<CommandResult> r = Command(child).Run();
    return r.ok() ? absl::OkStatus() : r.status();
  }
  ExecSpec spec(child, {child});
  SpawnOptions options;
  SpawnMethod method;
  if (api == "spawn") {
    method = CommandSpawnMethod();
    options.restore_signals = true;  // what Command asks for a child with no pipes
    options.want_pidfd = false;
  } else if (api == "posix_spawn") {
    method = SpawnMethod::kPosixSpawn;
  } else if (api == "clone") {
    method = SpawnMethod::kClone;
  } else if (api == "vfork") {
    method = SpawnMethod::kVfork;
  } else {
    return absl::InvalidArgumentError(
        "--api: expected command, spawn, posix_spawn, clone or vfork");
  }
  absl::StatusOr<Child> c = Spawn(method, spec, options);
  if (!c.ok()) return c.status();
  absl::StatusOr<ExitStatus> status = c->Wait();
  return status.ok() ? absl::OkStatus() : status.status();
}

}  // namespace
}  // namespace spawnlab

int main(int argc, char** argv) {
  std::vector<char*> rest = absl::ParseCommandLine(argc, argv);
  const int n = absl::GetFlag(FLAGS_n);
  if (rest.size() != 2 || n < 0 || n > 1000000) {
    std::cerr << "usage: spawn_loop --api=command|spawn|posix_spawn|clone|vfork --n=N CHILD\n";
    return 2;
  }
  for (int i = 0; i < n + 1; ++i) {  // the warm-up, then n
    if (absl::Status s = spawnlab::Once(absl::GetFlag(FLAGS_api), rest[1]); !s.ok()) {
      std::cerr << "spawn_loop: " << s << "\n";
      return s.code() == absl::StatusCode::kInvalidArgument ? 2 : 1;
    }
  }
  return 0;
}
