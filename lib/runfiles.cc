// runfiles.cc: see runfiles.h. A thin layer over Bazel's own runfiles library.

#include "lib/runfiles.h"

#include <errno.h>
#include <limits.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <memory>

#include "absl/strings/str_cat.h"
#include "tools/cpp/runfiles/runfiles.h"

namespace spawnlab {
namespace {

using bazel::tools::cpp::runfiles::Runfiles;

// Found from the environment (bazel test, bazel run) or beside the binary.
const Runfiles* TheRunfiles(std::string* error) {
  static std::string* const create_error = new std::string;
  static const Runfiles* const runfiles = [] {
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    std::string argv0 = n > 0 ? std::string(self, static_cast<size_t>(n)) : "";
    return Runfiles::Create(argv0, create_error);
  }();
  *error = *create_error;
  return runfiles;
}

}  // namespace

absl::StatusOr<std::string> Runfile(absl::string_view path) {
  std::string error;
  const Runfiles* runfiles = TheRunfiles(&error);
  if (runfiles == nullptr) {
    return absl::NotFoundError(absl::StrCat("no runfiles for this binary: ", error));
  }
  std::string found = runfiles->Rlocation(absl::StrCat("spawnlab/", path));
  if (found.empty() || access(found.c_str(), F_OK) != 0) {
    return absl::NotFoundError(absl::StrCat(path, " is not among this binary's runfiles"));
  }
  return found;
}

absl::Status ShareRunfilesWithChildren() {
  std::string error;
  const Runfiles* runfiles = TheRunfiles(&error);
  if (runfiles == nullptr) {
    return absl::NotFoundError(absl::StrCat("no runfiles for this binary: ", error));
  }
  for (const auto& [name, value] : runfiles->EnvVars()) {
    if (value.empty()) continue;
    if (setenv(name.c_str(), value.c_str(), /*overwrite=*/1) != 0) {
      return absl::ErrnoToStatus(errno, absl::StrCat("setenv ", name));
    }
  }
  return absl::OkStatus();
}

std::string RunfileOrExit(absl::string_view path) {
  absl::StatusOr<std::string> found = Runfile(path);
  if (!found.ok()) {
    std::cerr << "error: " << found.status().message() << "\n";
    std::exit(2);
  }
  return *found;
}

}  // namespace spawnlab
