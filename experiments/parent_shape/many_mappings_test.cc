// many_mappings_test: the region is `n` one-page mappings of alternating
// protection, bracketed by PROT_NONE guards that keep every neighbour out,
// and all of it is gone when the object goes.

#include "experiments/parent_shape/many_mappings.h"

#include <errno.h>

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"

using ::spawnlab::testing::IsOk;

namespace spawnlab {
namespace {

struct Mapping {
  uintptr_t start = 0, end = 0;
  std::string perms;
};

// This process's mappings, from /proc/self/maps, in address order.
std::vector<Mapping> Mappings() {
  std::vector<Mapping> out;
  std::ifstream in("/proc/self/maps");
  for (std::string line; std::getline(in, line);) {
    std::vector<absl::string_view> f = absl::StrSplit(line, ' ', absl::SkipEmpty());
    std::vector<absl::string_view> range = absl::StrSplit(f.at(0), '-');
    Mapping m;
    EXPECT_TRUE(absl::SimpleHexAtoi(range.at(0), &m.start)) << line;
    EXPECT_TRUE(absl::SimpleHexAtoi(range.at(1), &m.end)) << line;
    m.perms = std::string(f.at(1));
    out.push_back(m);
  }
  return out;
}

// The mapping that holds `addr`, or one with empty perms if none does.
Mapping Holding(const std::vector<Mapping>& maps, uintptr_t addr) {
  for (const Mapping& m : maps) {
    if (m.start <= addr && addr < m.end) return m;
  }
  return Mapping{};
}

// How many mappings overlap [start, end).
int Overlapping(uintptr_t start, uintptr_t end) {
  int n = 0;
  for (const Mapping& m : Mappings()) n += m.start < end && start < m.end;
  return n;
}

TEST(ManyMappings, OnePageEachAlternatingBetweenTwoGuards) {
  constexpr size_t kN = 101;
  absl::StatusOr<ManyMappings> m = ManyMappings::Make(kN);
  ASSERT_THAT(m, IsOk()) << m.status();
  ASSERT_EQ(m->count(), kN);
  const uintptr_t page = m->page_size(), base = reinterpret_cast<uintptr_t>(m->data());
  const std::vector<Mapping> maps = Mappings();
  for (size_t i = 0; i < kN; ++i) {
    const Mapping got = Holding(maps, base + i * page);
    EXPECT_EQ(got.start, base + i * page) << "mapping " << i << " merged with its neighbour";
    EXPECT_EQ(got.end, base + (i + 1) * page) << "mapping " << i << " merged with its neighbour";
    EXPECT_EQ(got.perms, i % 2 == 0 ? "rw-p" : "r--p") << "mapping " << i;
  }
  // A guard may have joined a PROT_NONE neighbour outside, never the region.
  const Mapping below = Holding(maps, base - page), above = Holding(maps, base + kN * page);
  EXPECT_EQ(below.perms, "---p");
  EXPECT_EQ(below.end, base);
  EXPECT_EQ(above.perms, "---p");
  EXPECT_EQ(above.start, base + kN * page);
}

TEST(ManyMappings, UnmapsTheRegionAndItsGuardsWhenItGoes) {
  uintptr_t start = 0, end = 0;
  {
    absl::StatusOr<ManyMappings> m = ManyMappings::Make(10);
    ASSERT_THAT(m, IsOk()) << m.status();
    start = reinterpret_cast<uintptr_t>(m->data()) - m->page_size();
    end = reinterpret_cast<uintptr_t>(m->data()) + 11 * m->page_size();
    ASSERT_GE(Overlapping(start, end), 12);
  }
  EXPECT_EQ(Overlapping(start, end), 0);
}

TEST(ManyMappings, AMovedFromObjectUnmapsNothing) {
  absl::StatusOr<ManyMappings> m = ManyMappings::Make(4);
  ASSERT_THAT(m, IsOk()) << m.status();
  const uintptr_t base = reinterpret_cast<uintptr_t>(m->data()), page = m->page_size();
  {
    ManyMappings moved(std::move(*m));
    EXPECT_EQ(moved.data(), reinterpret_cast<const char*>(base));
  }  // `moved` unmaps here; `*m` must not unmap again later
  EXPECT_EQ(Overlapping(base - page, base + 5 * page), 0);
}

TEST(ManyMappings, NoneIsAnError) {
  EXPECT_EQ(ManyMappings::Make(0).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(ManyMappings, PastMaxMapCountIsAnErrorThatNamesIt) {
  int64_t max = 0;
  {
    std::ifstream in("/proc/sys/vm/max_map_count");
    std::string v;
    if (!std::getline(in, v) || !absl::SimpleAtoi(v, &max)) {
      GTEST_SKIP() << "no /proc/sys/vm/max_map_count to read";
    }
  }
  if (max > 1000000) GTEST_SKIP() << "vm.max_map_count is " << max << ": too many to reach here";
  const int before = static_cast<int>(Mappings().size());
  absl::StatusOr<ManyMappings> m = ManyMappings::Make(static_cast<size_t>(max) + 10);
  ASSERT_FALSE(m.ok());
  EXPECT_TRUE(absl::IsResourceExhausted(m.status())) << m.status();  // ENOMEM
  EXPECT_NE(m.status().message().find("vm.max_map_count is"), absl::string_view::npos)
      << m.status();
  EXPECT_EQ(static_cast<int>(Mappings().size()), before) << "a failed Make left mappings behind";
}

}  // namespace
}  // namespace spawnlab
