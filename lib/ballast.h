// ballast.h: make the parent process bigger, to see what its size costs a spawn.
//
// fork copies the parent's page tables, so its cost grows with the memory the
// parent has touched; the vfork family shares the memory and should not care.
// A Ballast is an anonymous private mapping, optionally touched page by page.
// It is mapped MADV_NOHUGEPAGE so that touched memory is 4 KiB pages whatever
// the machine's transparent-huge-page setting (with huge pages fork would copy
// 512 times fewer entries, a different experiment).
//
// Example:
//
//   absl::StatusOr<spawnlab::Ballast> b =
//       spawnlab::Ballast::Create(size_t{1} << 30, /*touch=*/true);
//   // ... fork now copies 262,144 more page-table entries ...

#ifndef SPAWNLAB_LIB_BALLAST_H_
#define SPAWNLAB_LIB_BALLAST_H_

#include <cstddef>

#include "absl/status/statusor.h"

namespace spawnlab {

class Ballast {
 public:
  // Maps `bytes` (rounded up to whole pages); writes one byte into every page
  // if `touch`. ResourceExhausted if the memory cannot be had.
  static absl::StatusOr<Ballast> Create(size_t bytes, bool touch);

  Ballast() = default;
  Ballast(Ballast&& other) noexcept;
  Ballast& operator=(Ballast&& other) noexcept;
  Ballast(const Ballast&) = delete;
  Ballast& operator=(const Ballast&) = delete;
  ~Ballast();

  size_t bytes() const { return bytes_; }
  bool touched() const { return touched_; }
  const void* data() const { return data_; }

 private:
  void* data_ = nullptr;
  size_t bytes_ = 0;
  bool touched_ = false;
};

}  // namespace spawnlab

#endif  // SPAWNLAB_LIB_BALLAST_H_
