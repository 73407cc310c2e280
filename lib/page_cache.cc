// page_cache.cc: see page_cache.h.

#include "lib/page_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <vector>

#include "absl/strings/str_cat.h"

namespace spawnlab {

absl::StatusOr<PageCacheFile> PageCacheFile::Open(const std::string& path) {
  UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return absl::ErrnoToStatus(errno, absl::StrCat("open ", path));
  struct stat st;
  if (fstat(fd.get(), &st) != 0) return absl::ErrnoToStatus(errno, absl::StrCat("fstat ", path));
  return PageCacheFile(path, std::move(fd), st.st_size);
}

absl::StatusOr<int64_t> PageCacheFile::ResidentPages() const {
  if (size_ == 0) return 0;
  void* map = mmap(nullptr, static_cast<size_t>(size_), PROT_READ, MAP_SHARED, fd_.get(), 0);
  if (map == MAP_FAILED) return absl::ErrnoToStatus(errno, absl::StrCat("mmap ", path_));
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> vec((static_cast<size_t>(size_) + page - 1) / page);
  int r = mincore(map, static_cast<size_t>(size_), vec.data());
  int err = errno;
  munmap(map, static_cast<size_t>(size_));
  if (r != 0) return absl::ErrnoToStatus(err, absl::StrCat("mincore ", path_));
  int64_t resident = 0;
  for (unsigned char v : vec) resident += v & 1;
  return resident;
}

absl::Status PageCacheFile::Evict() {
  // DONTNEED drops clean pages only: write dirty ones back first.
  fdatasync(fd_.get());
  int err = posix_fadvise(fd_.get(), 0, 0, POSIX_FADV_DONTNEED);
  if (err != 0) return absl::ErrnoToStatus(err, absl::StrCat("posix_fadvise ", path_));
  absl::StatusOr<int64_t> left = ResidentPages();
  if (!left.ok()) return left.status();
  const int64_t pages = (size_ + 4095) / 4096;
  if (*left * 100 > pages) {
    return absl::FailedPreconditionError(
        absl::StrCat("posix_fadvise(DONTNEED) left ", *left, " of ", pages, " pages of ", path_,
                     " in the page cache (is it mapped by another process?)"));
  }
  return absl::OkStatus();
}

}  // namespace spawnlab
