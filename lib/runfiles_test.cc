// runfiles_test.cc: data dependencies are found, others are NotFound, and a
// child finds them through the environment.

#include "lib/runfiles.h"

#include <stdlib.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "tools/cpp/runfiles/runfiles.h"
#include "lib/testing/status_matchers.h"

using ::spawnlab::testing::IsOk;

namespace spawnlab {
namespace {

TEST(Runfiles, FindsADataDependency) {
  absl::StatusOr<std::string> path = Runfile("lib/children/minimal_child");
  ASSERT_THAT(path, IsOk()) << path.status();
  EXPECT_EQ(access(path->c_str(), X_OK), 0) << *path;
}

TEST(Runfiles, MissingFileIsNotFound) {
  EXPECT_EQ(Runfile("lib/children/no_such_child").status().code(), absl::StatusCode::kNotFound);
}

// What a child started from the runfiles sees: only the environment (its own
// path, under bazel-bin, has no runfiles tree beside it).
TEST(Runfiles, SharedWithChildrenThroughTheEnvironment) {
  ASSERT_THAT(Runfile("lib/children/minimal_child"), IsOk());  // found while the variables are set
  unsetenv("RUNFILES_DIR");
  unsetenv("RUNFILES_MANIFEST_FILE");
  std::string error;
  std::unique_ptr<bazel::tools::cpp::runfiles::Runfiles> before(
      bazel::tools::cpp::runfiles::Runfiles::Create("/nonexistent/child", &error));
  EXPECT_EQ(before, nullptr) << "a child with no variables found runfiles anyway";

  ASSERT_THAT(ShareRunfilesWithChildren(), IsOk());
  std::unique_ptr<bazel::tools::cpp::runfiles::Runfiles> child(
      bazel::tools::cpp::runfiles::Runfiles::Create("/nonexistent/child", &error));
  ASSERT_NE(child, nullptr) << error;
  const std::string found = child->Rlocation("spawnlab/lib/children/minimal_child");
  EXPECT_EQ(access(found.c_str(), X_OK), 0) << found;
}

}  // namespace
}  // namespace spawnlab
