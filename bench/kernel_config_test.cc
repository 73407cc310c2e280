// kernel_config_test.cc: the options read from a configuration, a gzip'd one
// read back, and a missing one named.

#include "bench/kernel_config.h"

#include <zlib.h>

#include <cstdlib>
#include <string>

#include "gtest/gtest.h"

namespace spawnlab {
namespace {

constexpr char kConfig[] = R"(#
# Automatically generated file; DO NOT EDIT.
CONFIG_HZ=250
CONFIG_PREEMPT_VOLUNTARY=y
CONFIG_PREEMPT_DYNAMIC=y
CONFIG_MITIGATION_PAGE_TABLE_ISOLATION=y
CONFIG_CGROUPS=y
# CONFIG_MEMCG is not set
CONFIG_IO_URING=y
CONFIG_TRANSPARENT_HUGEPAGE=y
CONFIG_TRANSPARENT_HUGEPAGE_MADVISE=y
)";

TEST(KernelConfigSummary, TheOptionsThatMatterHere) {
  const std::map<std::string, std::string> s = KernelConfigSummary(kConfig);
  EXPECT_EQ(s.at("kernel.config.hz"), "250");
  EXPECT_EQ(s.at("kernel.config.preempt"), "voluntary (dynamic)");
  EXPECT_EQ(s.at("kernel.config.pti"), "y");
  EXPECT_EQ(s.at("kernel.config.cgroups"), "y");
  EXPECT_EQ(s.at("kernel.config.memcg"), "not set");
  EXPECT_EQ(s.at("kernel.config.io_uring"), "y");
  EXPECT_EQ(s.at("kernel.config.thp"), "y (default madvise)");
  EXPECT_EQ(s.at("kernel.config.fnv64").size(), 16u);
}

TEST(KernelConfigSummary, TwoBuildsThatDifferAnywhereHashApart) {
  const std::string other = std::string(kConfig) + "CONFIG_SOMETHING_ELSE=y\n";
  EXPECT_NE(KernelConfigSummary(kConfig).at("kernel.config.fnv64"),
            KernelConfigSummary(other).at("kernel.config.fnv64"));
  // Before 6.9 the option had its old name.
  EXPECT_EQ(KernelConfigSummary("CONFIG_PAGE_TABLE_ISOLATION=y\n").at("kernel.config.pti"), "y");
  EXPECT_EQ(KernelConfigSummary("").at("kernel.config.pti"), "not set");
}

TEST(ReadKernelConfig, ReadsGzipAndPlainAndNamesAMissingFile) {
  const std::string dir = std::getenv("TEST_TMPDIR");
  const std::string gz = dir + "/config.gz";
  gzFile f = gzopen(gz.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  ASSERT_GT(gzputs(f, kConfig), 0);
  gzclose(f);
  absl::StatusOr<std::string> text = ReadKernelConfig(gz);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text, kConfig);
  absl::StatusOr<std::string> missing = ReadKernelConfig(dir + "/none");
  EXPECT_TRUE(absl::IsNotFound(missing.status())) << missing.status();
}

TEST(KernelIdentity, RecordsWhereItLookedAndTheBuild) {
  const std::map<std::string, std::string> id = KernelIdentity();
  ASSERT_TRUE(id.count("kernel.config.source"));
  ASSERT_TRUE(id.count("kernel.proc_version"));
  EXPECT_NE(id.at("kernel.proc_version"), "");
}

}  // namespace
}  // namespace spawnlab
