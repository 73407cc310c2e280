// environment_test.cc: the environment record has every key a report needs,
// and its readers cope with what is missing.

#include "bench/environment.h"
#include "results_model/host_id.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace spawnlab {
namespace {

TEST(Environment, HasTheKeysReportsNeed) {
  std::map<std::string, std::string> env = CollectEnvironment();
  for (const char* key : {"kernel.release", "kernel.version", "cpu.model", "cpu.online",
                          "cpu.governor", "virtualization", "thp.enabled", "aslr", "damon", "glibc",
                          "compiler", "git.revision", "git.tree", "package.libabsl-dev",
                          "package.libbenchmark-dev", "probe.clone3", "probe.io_uring"}) {
    EXPECT_TRUE(env.count(key)) << key;
    EXPECT_FALSE(env[key].empty()) << key;
  }
  struct utsname u;
  ASSERT_EQ(uname(&u), 0);
  EXPECT_EQ(env["kernel.release"], u.release);
  EXPECT_EQ(KernelRelease(), u.release);
}

// A sysfs of the given files under a fresh folder; returns its root.
std::string FakeSys(const std::string& name,
                    const std::vector<std::pair<std::string, std::string>>& files) {
  const std::filesystem::path root =
      std::filesystem::path(std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp") /
      name;
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root);
  for (const auto& [path, content] : files) {
    std::filesystem::create_directories((root / path).parent_path());
    std::ofstream(root / path) << content << "\n";
  }
  return root.string();
}

TEST(Environment, DamonStateNamesWhatRuns) {
  const std::string k = "kernel/mm/damon/admin/kdamonds";
  EXPECT_EQ(DamonState(FakeSys("no-damon", {{"kernel/mm/x", "1"}})),
            "unknown: no DAMON interface in sysfs");
  EXPECT_EQ(DamonState(FakeSys("damon-off", {{k + "/nr_kdamonds", "1"}, {k + "/0/state", "off"}})),
            "none");
  EXPECT_EQ(DamonState(FakeSys("damon-on", {{k + "/nr_kdamonds", "2"},
                                            {k + "/0/state", "on"},
                                            {k + "/0/contexts/nr_contexts", "1"},
                                            {k + "/0/contexts/0/operations", "paddr"},
                                            {k + "/0/contexts/0/schemes/nr_schemes", "2"},
                                            {k + "/0/contexts/0/schemes/0/action", "pageout"},
                                            {k + "/0/contexts/0/schemes/1/action", "stat"},
                                            {k + "/1/state", "off"},
                                            {"module/damon_reclaim/parameters/enabled", "Y"},
                                            {"module/damon_stat/parameters/enabled", "N"}})),
            "kdamond 0: paddr, schemes: pageout, stat; damon_reclaim enabled");
}

TEST(Environment, ReadsDebianPackageVersions) {
  if (access("/var/lib/dpkg/status", R_OK) != 0) GTEST_SKIP() << "not a Debian system";
  EXPECT_FALSE(DebianPackageVersion("libc6").empty());
  EXPECT_EQ(DebianPackageVersion("no-such-package-spawnlab"), "");
}

TEST(Environment, GitRevisionFollowsRefsLooseAndPacked) {
  const std::string root = absl::StrCat(std::getenv("TEST_TMPDIR"), "/repo");
  ASSERT_EQ(system(absl::StrCat("mkdir -p ", root, "/.git/refs/heads").c_str()), 0);
  const std::string sha = "0123456789abcdef0123456789abcdef01234567";
  std::ofstream(root + "/.git/HEAD") << "ref: refs/heads/main\n";
  std::ofstream(root + "/.git/packed-refs") << "# pack-refs\n" << sha << " refs/heads/main\n";
  EXPECT_EQ(GitRevision(root), sha);
  const std::string newer = "fedcba9876543210fedcba9876543210fedcba98";
  std::ofstream(root + "/.git/refs/heads/main") << newer << "\n";
  EXPECT_EQ(GitRevision(root), newer);
  std::ofstream(root + "/.git/HEAD") << sha << "\n";  // detached
  EXPECT_EQ(GitRevision(root), sha);
  EXPECT_EQ(GitRevision(absl::StrCat(root, "/nowhere")), "unknown");
}

TEST(Environment, GitTreeStateCountsChangedTrackedFiles) {
  EXPECT_EQ(GitTreeStateFrom(""), "clean");
  EXPECT_EQ(GitTreeStateFrom(" M lib/x.cc\n"), "dirty: 1 tracked file differs from the revision");
  EXPECT_EQ(GitTreeStateFrom(" M a\nM  b\n"), "dirty: 2 tracked files differ from the revision");
}

// A real checkout: clean after a commit, dirty after an edit, and an edit
// under results/ or of the top README (which a run writes) does not count.
TEST(Environment, GitTreeStateOfACheckout) {
  if (system("git --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "git is not installed";
  const std::string root = absl::StrCat(std::getenv("TEST_TMPDIR"), "/checkout");
  const std::string git = absl::StrCat("git -C ", root, " -c user.name=t -c user.email=t@t ");
  ASSERT_EQ(system(absl::StrCat("mkdir -p ", root, "/results && ", git, "init -q && echo a > ",
                                root, "/a && echo r > ", root, "/results/r.json && echo t > ", root,
                                "/README.md && ", git, "add -A && ", git, "commit -qm c")
                       .c_str()),
            0);
  EXPECT_EQ(GitTreeState(root), "clean");
  ASSERT_EQ(system(absl::StrCat("echo changed > ", root, "/results/r.json").c_str()), 0);
  EXPECT_EQ(GitTreeState(root), "clean");
  // The report's table in the top README, which a suite run rewrites.
  ASSERT_EQ(system(absl::StrCat("echo table >> ", root, "/README.md").c_str()), 0);
  EXPECT_EQ(GitTreeState(root), "clean");
  ASSERT_EQ(system(absl::StrCat("echo b >> ", root, "/a").c_str()), 0);
  EXPECT_EQ(GitTreeState(root), "dirty: 1 tracked file differs from the revision");
  EXPECT_TRUE(absl::StartsWith(GitTreeState(absl::StrCat(root, "/nowhere")), "unknown: "));
}

// The id itself is results_model/host_id_test's; here, that this machine's
// is one and that the record carries what makes it, and more.
TEST(Environment, HostIdIsTheOneTheRecordMakes) {
  for (char c : HostId()) EXPECT_TRUE(absl::ascii_isalnum(c) || c == '-') << HostId();
  std::map<std::string, std::string> env = CollectEnvironment();
  EXPECT_EQ(env["host.id"], HostId());
  EXPECT_EQ(HostIdFrom(HostIdentityFromContext(env)), HostId());
  EXPECT_EQ(env.count("host.name"), 0u);
  EXPECT_EQ(env.count("cpu.flags"), 1u);
}

}  // namespace
}  // namespace spawnlab
