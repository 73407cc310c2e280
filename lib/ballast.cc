// ballast.cc: see ballast.h.

#include "lib/ballast.h"

#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include <utility>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14; glibc 2.36 headers may lack it
#endif

#include "absl/strings/str_cat.h"

namespace spawnlab {

absl::StatusOr<Ballast> Ballast::Create(size_t bytes, bool touch) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  bytes = (bytes + page - 1) / page * page;
  Ballast b;
  if (bytes == 0) return b;
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    return absl::ResourceExhaustedError(
        absl::StrCat("mmap ", bytes, " bytes of ballast: ", strerror(errno)));
  }
  b.data_ = p;
  b.bytes_ = bytes;
  // Best effort: a kernel without THP has nothing to turn off.
  madvise(p, bytes, MADV_NOHUGEPAGE);
  if (touch) {
    // The kernel faults every page in at once (Linux 5.14+): in a VM this is
    // ~25x faster than a page fault per page. Older kernels: touch each page.
    if (madvise(p, bytes, MADV_POPULATE_WRITE) != 0) {
      volatile char* c = static_cast<volatile char*>(p);
      for (size_t off = 0; off < bytes; off += page) c[off] = 1;
    }
    b.touched_ = true;
  }
  return b;
}

Ballast::Ballast(Ballast&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      bytes_(std::exchange(other.bytes_, 0)),
      touched_(std::exchange(other.touched_, false)) {}

Ballast& Ballast::operator=(Ballast&& other) noexcept {
  if (this != &other) {
    if (data_ != nullptr) munmap(data_, bytes_);
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
    touched_ = std::exchange(other.touched_, false);
  }
  return *this;
}

Ballast::~Ballast() {
  if (data_ != nullptr) munmap(data_, bytes_);
}

}  // namespace spawnlab
