// page_cache.h: push a file out of the page cache, and check that it went.
//
// For "cold cache" rows: posix_fadvise(POSIX_FADV_DONTNEED) drops a file's
// clean, unmapped pages without root and without touching other files (unlike
// drop_caches). Evict() then maps the file and asks mincore() how much is
// still resident, so that a row is only called cold when it was.
//
// Example:
//
//   absl::StatusOr<spawnlab::PageCacheFile> f = spawnlab::PageCacheFile::Open(path);
//   if (absl::Status s = f->Evict(); !s.ok()) return SkipRow(state, s);

#ifndef SPAWNLAB_LIB_PAGE_CACHE_H_
#define SPAWNLAB_LIB_PAGE_CACHE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "lib/unique_fd.h"

namespace spawnlab {

class PageCacheFile {
 public:
  static absl::StatusOr<PageCacheFile> Open(const std::string& path);

  // Writes the file's dirty pages back and drops them all; FailedPrecondition (with how many
  // stayed) if more than 1% of them are still resident afterwards.
  absl::Status Evict();
  // Pages of the file now in the page cache.
  absl::StatusOr<int64_t> ResidentPages() const;
  int64_t size() const { return size_; }

 private:
  PageCacheFile(std::string path, UniqueFd fd, int64_t size)
      : path_(std::move(path)), fd_(std::move(fd)), size_(size) {}
  std::string path_;
  UniqueFd fd_;
  int64_t size_;
};

}  // namespace spawnlab

#endif  // SPAWNLAB_LIB_PAGE_CACHE_H_
