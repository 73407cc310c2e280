// ballast.h: make the parent process bigger, to see what its size costs a spawn.
//
// fork copies the parent's page tables, so its cost grows with the memory the
// parent has touched; the vfork family shares the memory and should not care.
// A Ballast is an anonymous private mapping of 4 KiB pages (MADV_NOHUGEPAGE),
// optionally touched page by page and placed in consecutive page frames (see
// Ballast::Create; why placement matters: experiments/clone3/README.md).
//
// Example:
//
//   absl::StatusOr<spawnlab::Ballast> b =
//       spawnlab::Ballast::Create(size_t{1} << 30, /*touch=*/true);
//   // ... fork now copies 262,144 more page-table entries ...

#ifndef SPAWNLAB_LIB_BALLAST_H_
#define SPAWNLAB_LIB_BALLAST_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace spawnlab {

// Placement: for every entry fork copies, the kernel updates the page's
// struct page; when consecutive pages are consecutive frames those updates
// stream through the cache, when they are scattered each one misses. A fresh
// allocation is as scattered as the machine's history: the buddy allocator
// serves the smallest free blocks first, and the per-CPU lists of freed pages
// before them. So a placed Ballast, held on one CPU, first soaks up the free
// blocks under 2 MiB (/proc/buddyinfo) and what the per-CPU lists hold
// (/proc/zoneinfo) with a scratch mapping, touches its own pages from the
// large blocks left, then frees the scratch. AdjacentShare() says how nearly
// consecutive its pages came out.
class Ballast {
 public:
  // Maps `bytes` (rounded up to whole pages); writes one byte into every page
  // if `touch`, placed as above. ResourceExhausted if the memory cannot be
  // had. The soak is skipped (soaked_bytes() 0) where /proc/buddyinfo is
  // unreadable or MemAvailable lacks room for it, the ballast and 512 MiB.
  // kAsAllocated skips the soak: the pages land where the machine's history
  // puts them, as a program's own malloc'd and touched memory does
  // (spawnbench's parent); kConsecutive is the controlled, placed ballast.
  enum class Placement { kConsecutive, kAsAllocated };
  static absl::StatusOr<Ballast> Create(size_t bytes, bool touch,
                                        Placement placement = Placement::kConsecutive);

  Ballast() = default;
  Ballast(Ballast&& other) noexcept;
  Ballast& operator=(Ballast&& other) noexcept;
  Ballast(const Ballast&) = delete;
  Ballast& operator=(const Ballast&) = delete;
  ~Ballast();

  size_t bytes() const { return bytes_; }
  bool touched() const { return touched_; }
  const void* data() const { return data_; }
  // The scratch a touched ballast soaked up small free blocks with (freed).
  size_t soaked_bytes() const { return soaked_bytes_; }
  // The share of the ballast's pages, after the first, whose page frame is
  // next to the previous page's (either side), read now from
  // /proc/self/pagemap. FailedPrecondition if untouched; PermissionDenied
  // where the frames read as 0 (they do without CAP_SYS_ADMIN).
  absl::StatusOr<double> AdjacentShare() const;

 private:
  void* data_ = nullptr;
  size_t bytes_ = 0;
  bool touched_ = false;
  size_t soaked_bytes_ = 0;
};

// MemAvailable from /proc/meminfo, in bytes; -1 if it cannot be read. Whether
// a ballast fits, asked before making one.
int64_t MemAvailableBytes();

// The bytes free in blocks of fewer than 2^`order` pages, from the text of
// /proc/buddyinfo (every zone). InvalidArgument if the text is not that.
absl::StatusOr<size_t> FreeBytesInBlocksBelow(absl::string_view buddyinfo, int order,
                                              size_t page_size);

// The bytes held in the per-CPU lists of free pages, from the text of
// /proc/zoneinfo (the "count:" of every CPU of every zone). InvalidArgument if
// a count is not a number.
absl::StatusOr<size_t> FreeBytesInPerCpuLists(absl::string_view zoneinfo, size_t page_size);

}  // namespace spawnlab

#endif  // SPAWNLAB_LIB_BALLAST_H_
