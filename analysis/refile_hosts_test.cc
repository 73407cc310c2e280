// refile_hosts_test.cc: two machines under one old id end under two, byte for byte.

#include "analysis/refile_hosts.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"
#include "results_model/host_id.h"

namespace spawnlab {
namespace analysis {
namespace {

namespace fs = std::filesystem;
using ::spawnlab::testing::IsOk;
using ::spawnlab::testing::StatusIs;

std::string Results(const std::string& meltdown) {
  return absl::StrCat(R"({"context": {"cpu.model": "AMD EPYC", "cpu.online": "2", )",
                      R"("virtualization": "vm", "mitigation.meltdown": ")", meltdown,
                      R"("}, "benchmarks": []})", "\n");
}

std::string Read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class RefileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(std::getenv("TEST_TMPDIR")) /
            ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(root_);
    Write("k1/amd-epyc-2cpu-old/clone3.json", Results("Not affected"));
    Write("k2/amd-epyc-2cpu-old/clone3.json", Results("Mitigation: PTI"));
    Write("k2/amd-epyc-2cpu-old/notes.txt", "not a results file\n");
  }
  void Write(const std::string& rel, const std::string& text) {
    fs::create_directories((root_ / rel).parent_path());
    std::ofstream(root_ / rel, std::ios::binary) << text;
  }
  fs::path root_;
};

TEST_F(RefileTest, TwoMachinesUnderOneOldIdEndUnderTwoByteForByte) {
  absl::StatusOr<std::vector<Move>> moves = PlanRefiling(root_.string());
  ASSERT_THAT(moves, IsOk());
  ASSERT_EQ(moves->size(), 2u);
  // Planning moves nothing.
  EXPECT_TRUE(fs::exists(root_ / "k1/amd-epyc-2cpu-old/clone3.json"));
  ASSERT_THAT(ApplyRefiling(*moves), IsOk());
  HostIdentity a{"AMD EPYC", 2, "vm", {{"meltdown", "Not affected"}}};
  HostIdentity b{"AMD EPYC", 2, "vm", {{"meltdown", "Mitigation"}}};
  ASSERT_NE(HostIdFrom(a), HostIdFrom(b));
  EXPECT_EQ(Read(root_ / "k1" / HostIdFrom(a) / "clone3.json"), Results("Not affected"));
  EXPECT_EQ(Read(root_ / "k2" / HostIdFrom(b) / "clone3.json"), Results("Mitigation: PTI"));
  // The old folder keeps what is not a results file; an emptied one goes.
  EXPECT_TRUE(fs::exists(root_ / "k2/amd-epyc-2cpu-old/notes.txt"));
  EXPECT_FALSE(fs::exists(root_ / "k1/amd-epyc-2cpu-old"));
  // Run again: nothing left to move.
  moves = PlanRefiling(root_.string());
  ASSERT_THAT(moves, IsOk());
  EXPECT_TRUE(moves->empty());
}

TEST_F(RefileTest, NeverReplacesAFileAndRefusesWhatIsNotAFolder) {
  HostIdentity a{"AMD EPYC", 2, "vm", {{"meltdown", "Not affected"}}};
  Write(absl::StrCat("k1/", HostIdFrom(a), "/clone3.json"), "{\"context\": {}, \"benchmarks\": []}\n");
  EXPECT_THAT(PlanRefiling(root_.string()), StatusIs(absl::StatusCode::kFailedPrecondition));
  EXPECT_THAT(PlanRefiling((root_ / "nowhere").string()),
              StatusIs(absl::StatusCode::kInvalidArgument));
  Write("k3/x/bad.json", "{truncated");
  fs::remove(root_ / "k1" / HostIdFrom(a) / "clone3.json");
  EXPECT_FALSE(PlanRefiling(root_.string()).ok());
}

}  // namespace
}  // namespace analysis
}  // namespace spawnlab
