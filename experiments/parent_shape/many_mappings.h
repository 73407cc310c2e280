// many_mappings.h: make a process hold N more memory mappings and nothing
// else, to see what its mapping count alone costs a fork.
//
// The N mappings are one page each, anonymous, private, untouched; adjacent
// ones alternate read-write and read-only, so the kernel cannot merge them.
// They lie inside a reservation with a PROT_NONE guard page at each end: a
// fresh mapping next to a touched anonymous neighbour with the same flags (a
// malloc arena) is merged into it and shares its anon_vma, every piece split
// off keeps it, and fork then links each piece into an anon_vma chain, which
// costs more than the mapping count alone and depends on where the region
// lands. The guards differ in protection from every page, so nothing merges.
//
//   absl::StatusOr<spawnlab::ManyMappings> m = spawnlab::ManyMappings::Make(60000);
//   // a fork now copies 60,002 more mappings (the region, its two guards)

#ifndef SPAWNLAB_EXPERIMENTS_PARENT_SHAPE_MANY_MAPPINGS_H_
#define SPAWNLAB_EXPERIMENTS_PARENT_SHAPE_MANY_MAPPINGS_H_

#include <cstddef>

#include "absl/status/statusor.h"

namespace spawnlab {

class ManyMappings {
 public:
  // `n` one-page mappings between two guard pages, all unmapped when this
  // goes. InvalidArgument for n == 0; the errno of mmap or mprotect otherwise
  // (ENOMEM past vm.max_map_count, whose value the message gives).
  static absl::StatusOr<ManyMappings> Make(size_t n);

  ManyMappings() = default;
  ManyMappings(ManyMappings&& other) noexcept;
  ManyMappings& operator=(ManyMappings&&) = delete;
  ManyMappings(const ManyMappings&) = delete;
  ManyMappings& operator=(const ManyMappings&) = delete;
  ~ManyMappings();

  // The first of the `count()` mappings; the guards are the pages just below
  // it and just past the last.
  const char* data() const { return reservation_ == nullptr ? nullptr : reservation_ + page_; }
  size_t count() const { return n_; }
  size_t page_size() const { return page_; }

 private:
  char* reservation_ = nullptr;  // the guards and the region, (n + 2) pages
  size_t page_ = 0, n_ = 0;
};

}  // namespace spawnlab

#endif  // SPAWNLAB_EXPERIMENTS_PARENT_SHAPE_MANY_MAPPINGS_H_
