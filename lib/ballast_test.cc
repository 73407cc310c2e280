// ballast_test.cc: ballast maps what was asked, is resident exactly when
// touched (checked page by page with mincore), is unmapped when destroyed, and
// lies in consecutive page frames where the machine lets it see them.

#include "lib/ballast.h"

#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include <vector>

#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"

using ::spawnlab::testing::IsOk;

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
    ASSERT_THAT(b, IsOk()) << b.status();
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
  ASSERT_THAT(b, IsOk()) << b.status();
  EXPECT_FALSE(b->touched());
  EXPECT_EQ(ResidentPages(b->data(), b->bytes()), 0);
}

TEST(Ballast, RoundsUpToPagesAndMoves) {
  absl::StatusOr<Ballast> b = Ballast::Create(1, /*touch=*/true);
  ASSERT_THAT(b, IsOk());
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

// Where the frames can be read (root), the soaked ballast's pages are nearly
// all consecutive frames; elsewhere the share is refused with the reason.
TEST(Ballast, TouchedBallastLiesInConsecutiveFrames) {
  absl::StatusOr<Ballast> b = Ballast::Create(64 * kMiB, /*touch=*/true);
  ASSERT_THAT(b, IsOk()) << b.status();
  absl::StatusOr<double> share = b->AdjacentShare();
  if (absl::IsPermissionDenied(share.status())) GTEST_SKIP() << share.status();
  ASSERT_THAT(share, IsOk()) << share.status();
  EXPECT_GT(b->soaked_bytes(), 0u) << "the machine has no free blocks under 2 MiB?";
  EXPECT_GT(*share, 0.9);
  EXPECT_LE(*share, 1.0);
}

TEST(Ballast, UntouchedBallastHasNoFramesToPlace) {
  absl::StatusOr<Ballast> b = Ballast::Create(4 * kMiB, /*touch=*/false);
  ASSERT_THAT(b, IsOk());
  EXPECT_EQ(b->soaked_bytes(), 0u);
  EXPECT_EQ(b->AdjacentShare().status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(MemAvailableBytes, ReadsAWholeNumberOfKiB) {
  const int64_t available = MemAvailableBytes();
  ASSERT_GT(available, 0);  // every Linux since 3.14 has the line
  EXPECT_EQ(available % 1024, 0);
}

TEST(FreeBytesInBlocksBelow, SumsTheSmallBlocksOfEveryZone) {
  constexpr char kBuddyinfo[] =
      "Node 0, zone      DMA      0      0      0      0      0      0      0      0      1      "
      "1      3 \n"
      "Node 0, zone    DMA32      2      3      0      2      3      2      1      4      4      "
      "2    752 \n"
      "Node 0, zone   Normal   1574   1899   1142    721   2818    402    734    347     20     "
      "92   1363 \n";
  // Orders 0-2: DMA32 2 + 3*2 = 8 pages, Normal 1574 + 1899*2 + 1142*4 = 9940.
  absl::StatusOr<size_t> small = FreeBytesInBlocksBelow(kBuddyinfo, 3, 4096);
  ASSERT_THAT(small, IsOk()) << small.status();
  EXPECT_EQ(*small, size_t{9948} * 4096);
  EXPECT_EQ(*FreeBytesInBlocksBelow(kBuddyinfo, 0, 4096), 0u);
  EXPECT_EQ(*FreeBytesInBlocksBelow("", 9, 4096), 0u);
}

TEST(FreeBytesInBlocksBelow, RefusesWhatIsNotBuddyinfo) {
  EXPECT_EQ(FreeBytesInBlocksBelow("MemTotal: 1 kB\n", 9, 4096).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(FreeBytesInBlocksBelow("Node 0, zone Normal 1 x 3\n", 9, 4096).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(FreeBytesInPerCpuLists, SumsTheCountOfEveryCpuOfEveryZone) {
  constexpr char kZoneinfo[] =
      "Node 0, zone      DMA\n"
      "  pages free     3840\n"
      "  pagesets\n"
      "    cpu: 0\n"
      "              count:    0\n"
      "              high:     0\n"
      "Node 0, zone   Normal\n"
      "  pages free     5950624\n"
      "        nr_free_pages 5950624\n"
      "  pagesets\n"
      "    cpu: 0\n"
      "              count:    7611\n"
      "              high:     7800\n"
      "              batch:    63\n"
      "  vm stats threshold: 4\n"
      "    cpu: 1\n"
      "              count:    5321\n"
      "              high:     7800\n";
  absl::StatusOr<size_t> listed = FreeBytesInPerCpuLists(kZoneinfo, 4096);
  ASSERT_THAT(listed, IsOk()) << listed.status();
  EXPECT_EQ(*listed, size_t{7611 + 5321} * 4096);
  EXPECT_EQ(*FreeBytesInPerCpuLists("", 4096), 0u);
}

TEST(FreeBytesInPerCpuLists, RefusesACountThatIsNotANumber) {
  EXPECT_EQ(FreeBytesInPerCpuLists("  count: many\n", 4096).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace spawnlab
