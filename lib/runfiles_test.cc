// runfiles_test.cc: data dependencies are found; others are NotFound.

#include "lib/runfiles.h"

#include <unistd.h>

#include "gtest/gtest.h"

namespace spawnlab {
namespace {

TEST(Runfiles, FindsADataDependency) {
  absl::StatusOr<std::string> path = Runfile("lib/children/minimal_child");
  ASSERT_TRUE(path.ok()) << path.status();
  EXPECT_EQ(access(path->c_str(), X_OK), 0) << *path;
}

TEST(Runfiles, MissingFileIsNotFound) {
  EXPECT_EQ(Runfile("lib/children/no_such_child").status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace spawnlab
