#include "experiments/parent_shape/many_mappings.h"

#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace spawnlab {
namespace {

std::string MaxMapCount() {
  std::ifstream in("/proc/sys/vm/max_map_count");
  std::string v;
  return std::getline(in, v) ? v : "unknown";
}

}  // namespace

absl::StatusOr<ManyMappings> ManyMappings::Make(size_t n) {
  if (n == 0) return absl::InvalidArgumentError("ManyMappings::Make: n must be at least 1");
  ManyMappings m;
  m.page_ = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  // The reservation may merge with a PROT_NONE neighbour (a thread stack's
  // guard, an arena's unused tail); its two end pages stay PROT_NONE, so
  // the region mapped between them cannot merge with either.
  void* r = mmap(nullptr, m.page_ * (n + 2), PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (r == MAP_FAILED) {
    return absl::ErrnoToStatus(errno, absl::StrCat("mmap of ", m.page_ * (n + 2),
                                                   " bytes (the region and its guards)"));
  }
  m.reservation_ = static_cast<char*>(r);
  m.n_ = n;
  char* const base = m.reservation_ + m.page_;
  if (mmap(base, m.page_ * n, PROT_READ | PROT_WRITE,
           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0) == MAP_FAILED) {
    return absl::ErrnoToStatus(errno, absl::StrCat("mmap of ", m.page_ * n,
                                                   " bytes inside the reservation"));
  }
  for (size_t i = 1; i < n; i += 2) {
    if (mprotect(base + i * m.page_, m.page_, PROT_READ) != 0) {
      return absl::ErrnoToStatus(errno,
                                 absl::StrCat("mprotect to split mapping ", i, " of ", n,
                                              " (vm.max_map_count is ", MaxMapCount(), ")"));
    }
  }
  return m;
}

ManyMappings::ManyMappings(ManyMappings&& other) noexcept
    : reservation_(other.reservation_), page_(other.page_), n_(other.n_) {
  other.reservation_ = nullptr;
}

ManyMappings::~ManyMappings() {
  if (reservation_ != nullptr) munmap(reservation_, page_ * (n_ + 2));
}

}  // namespace spawnlab
