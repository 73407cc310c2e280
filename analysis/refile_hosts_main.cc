// refile_hosts_main.cc: the one-off migration of results/ to host ids that
// tell machines apart (refile_hosts.h).
//
//   bazel run //analysis:refile_hosts             # says what would move
//   bazel run //analysis:refile_hosts -- --apply  # moves it

#include <cstdlib>
#include <iostream>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "analysis/refile_hosts.h"

ABSL_FLAG(bool, apply, false, "Move the files (without it: only say what would move).");
ABSL_FLAG(std::string, results, "", "The results folder (default: the workspace's results/).");

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Files each results file under the host id its own context makes.\n"
      "  bazel run //analysis:refile_hosts [-- --apply] [-- --results=DIR]");
  std::vector<char*> rest = absl::ParseCommandLine(argc, argv);
  if (rest.size() > 1) {
    std::cerr << "error: unexpected argument '" << rest[1] << "'\n";
    return 2;
  }
  std::string dir = absl::GetFlag(FLAGS_results);
  const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY");
  const char* cwd = std::getenv("BUILD_WORKING_DIRECTORY");
  if (dir.empty()) dir = absl::StrCat(ws != nullptr ? ws : ".", "/results");
  else if (dir[0] != '/' && cwd != nullptr) dir = absl::StrCat(cwd, "/", dir);
  absl::StatusOr<std::vector<spawnlab::analysis::Move>> moves =
      spawnlab::analysis::PlanRefiling(dir);
  if (!moves.ok()) {
    std::cerr << "error: " << moves.status().message() << "; nothing moved\n";
    return 2;
  }
  for (const auto& m : *moves) std::cout << m.from << " -> " << m.to << "\n";
  if (!absl::GetFlag(FLAGS_apply)) {
    std::cout << moves->size() << " files would move; --apply moves them\n";
    return 0;
  }
  if (absl::Status s = spawnlab::analysis::ApplyRefiling(*moves); !s.ok()) {
    std::cerr << "error: " << s.message() << "\n";
    return 1;
  }
  std::cout << moves->size() << " files moved\n";
  return 0;
}
