// page_cache_test.cc: a file read into the cache is resident; evicted, it is
// not; a missing file is NotFound.

#include "lib/page_cache.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"

using ::spawnlab::testing::IsOk;

namespace spawnlab {
namespace {

TEST(PageCacheFile, EvictsWhatWasCached) {
  const std::string path = absl::StrCat(std::getenv("TEST_TMPDIR"), "/cached");
  std::ofstream(path) << std::string(1 << 20, 'x');
  absl::StatusOr<PageCacheFile> f = PageCacheFile::Open(path);
  ASSERT_THAT(f, IsOk()) << f.status();
  EXPECT_EQ(f->size(), 1 << 20);
  absl::Status evicted = f->Evict();
  // Only "pages left" (a filesystem such as tmpfs that has no backing store
  // to drop them to) is a reason to skip; any other error is a failure.
  if (absl::IsFailedPrecondition(evicted)) {
    GTEST_SKIP() << "this filesystem keeps its pages: " << evicted;
  }
  ASSERT_THAT(evicted, IsOk()) << evicted;
  EXPECT_EQ(*f->ResidentPages(), 0);
  std::ifstream in(path);
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_GT(*f->ResidentPages(), 0);
}

// A cold-cache row must be skipped, not mismeasured, when the pages cannot be
// dropped: here because another mapping holds them.
TEST(PageCacheFile, PagesThatCannotBeDroppedAreAnErrorToSkipOn) {
  const std::string path = absl::StrCat(std::getenv("TEST_TMPDIR"), "/pinned");
  std::ofstream(path) << std::string(1 << 20, 'y');
  absl::StatusOr<PageCacheFile> f = PageCacheFile::Open(path);
  ASSERT_THAT(f, IsOk());
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  void* map = mmap(nullptr, 1 << 20, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
  ASSERT_NE(map, MAP_FAILED);
  if (mlock(map, 1 << 20) != 0) GTEST_SKIP() << "mlock not permitted here";
  absl::Status s = f->Evict();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_NE(s.message().find("left"), absl::string_view::npos) << s;
  munlock(map, 1 << 20);
  munmap(map, 1 << 20);
  close(fd);
}

TEST(PageCacheFile, MissingFileIsNotFound) {
  EXPECT_EQ(PageCacheFile::Open("/nonexistent/file").status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace spawnlab
