// runfiles.h: find a file Bazel put beside a binary (its `data`), whether the
// binary runs under `bazel run`, `bazel test` or straight from bazel-bin.
//
// Example:
//
//   absl::StatusOr<std::string> child = spawnlab::Runfile("lib/children/minimal_child");
//   if (!child.ok()) return child.status();

#ifndef SPAWNLAB_LIB_RUNFILES_H_
#define SPAWNLAB_LIB_RUNFILES_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace spawnlab {

// The absolute path of `path` (relative to the workspace root, as
// `$(rootpath)` gives it); NotFound if it is not among the runfiles.
absl::StatusOr<std::string> Runfile(absl::string_view path);

// For a program's set-up: the runfile's path, or exit 2 saying what is missing.
std::string RunfileOrExit(absl::string_view path);

// Puts this binary's runfiles in its environment (RUNFILES_DIR and
// RUNFILES_MANIFEST_FILE, as Bazel's runfiles library gives them), so that a
// program it starts from them finds its own there: a binary that is only
// another's `data` has no runfiles tree of its own in bazel-bin, and started
// by path outside `bazel test` it would find none. Call it in main before
// starting threads (it calls setenv).
absl::Status ShareRunfilesWithChildren();

}  // namespace spawnlab

#endif  // SPAWNLAB_LIB_RUNFILES_H_
