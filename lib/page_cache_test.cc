// page_cache_test.cc: a file read into the cache is resident; evicted, it is
// not; a missing file is NotFound.

#include "lib/page_cache.h"

#include <cstdlib>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace spawnlab {
namespace {

TEST(PageCacheFile, EvictsWhatWasCached) {
  const std::string path = absl::StrCat(std::getenv("TEST_TMPDIR"), "/cached");
  std::ofstream(path) << std::string(1 << 20, 'x');
  absl::StatusOr<PageCacheFile> f = PageCacheFile::Open(path);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->size(), 1 << 20);
  absl::Status evicted = f->Evict();
  if (!evicted.ok()) GTEST_SKIP() << "this filesystem keeps its pages: " << evicted;
  EXPECT_EQ(*f->ResidentPages(), 0);
  std::ifstream in(path);
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_GT(*f->ResidentPages(), 0);
}

TEST(PageCacheFile, MissingFileIsNotFound) {
  EXPECT_EQ(PageCacheFile::Open("/nonexistent/file").status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace spawnlab
