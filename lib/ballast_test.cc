// ballast_test.cc: ballast maps what was asked, is resident exactly when
// touched (checked page by page with mincore), and is unmapped when destroyed.

#include "lib/ballast.h"

#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include <vector>

#include "gtest/gtest.h"

namespace spawnlab {
namespace {

constexpr size_t kMiB = 1 << 20;

// Resident pages of [data, data + bytes), or -1 if the range is not mapped.
long ResidentPages(const void* data, size_t bytes) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> vec((bytes + page - 1) / page);
  if (mincore(const_cast<void*>(data), bytes, vec.data()) != 0) return -1;
  long resident = 0;
  for (unsigned char v : vec) resident += v & 1;
  return resident;
}

TEST(Ballast, TouchedBallastIsResidentAndUnmappedWhenDestroyed) {
  const void* data;
  size_t bytes;
  {
    absl::StatusOr<Ballast> b = Ballast::Create(64 * kMiB, /*touch=*/true);
    ASSERT_TRUE(b.ok()) << b.status();
    EXPECT_EQ(b->bytes(), 64 * kMiB);
    EXPECT_TRUE(b->touched());
    data = b->data();
    bytes = b->bytes();
    EXPECT_EQ(ResidentPages(data, bytes), static_cast<long>(bytes / sysconf(_SC_PAGESIZE)));
  }
  EXPECT_EQ(ResidentPages(data, bytes), -1);
  EXPECT_EQ(errno, ENOMEM);
}

TEST(Ballast, UntouchedBallastIsMappedButNotResident) {
  absl::StatusOr<Ballast> b = Ballast::Create(256 * kMiB, /*touch=*/false);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_FALSE(b->touched());
  EXPECT_EQ(ResidentPages(b->data(), b->bytes()), 0);
}

TEST(Ballast, RoundsUpToPagesAndMoves) {
  absl::StatusOr<Ballast> b = Ballast::Create(1, /*touch=*/true);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->bytes(), static_cast<size_t>(sysconf(_SC_PAGESIZE)));
  Ballast moved = std::move(*b);
  EXPECT_EQ(b->bytes(), 0u);
  EXPECT_EQ(b->data(), nullptr);
  EXPECT_EQ(ResidentPages(moved.data(), moved.bytes()), 1);
  EXPECT_EQ(Ballast::Create(0, true)->bytes(), 0u);
}

TEST(Ballast, ImpossibleSizeIsResourceExhausted) {
  absl::StatusOr<Ballast> b = Ballast::Create(size_t{1} << 62, /*touch=*/false);
  EXPECT_EQ(b.status().code(), absl::StatusCode::kResourceExhausted) << b.status();
}

}  // namespace
}  // namespace spawnlab
