// safe_file_test.cc: writes never go through a link or replace a device.

#include "lib/safe_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/hygiene.h"
#include "lib/testing/status_matchers.h"

using ::spawnlab::testing::IsOk;

namespace spawnlab {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class SafeFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<TempDir> d = TempDir::Make("safe_file_test", std::getenv("TEST_TMPDIR"));
    ASSERT_THAT(d, IsOk()) << d.status();
    dir_.emplace(*std::move(d));
  }
  std::string Path(const std::string& name) { return dir_->path() + "/" + name; }
  std::vector<std::string> Listing() {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(dir_->path())) {
      names.push_back(e.path().filename().string());
    }
    return names;
  }
  std::optional<TempDir> dir_;
};

TEST_F(SafeFileTest, ReplacesARegularFileWholeAndLeavesNoTemporary) {
  testing::Hygiene hygiene;
  std::ofstream(Path("r.json")) << "old";
  ASSERT_THAT(WriteFileAtomically(Path("r.json"), "new\n"), IsOk());
  EXPECT_EQ(Read(Path("r.json")), "new\n");
  EXPECT_THAT(Listing(), ::testing::ElementsAre("r.json"));
  struct stat st;
  ASSERT_EQ(stat(Path("r.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
  EXPECT_THAT(hygiene.Check(), IsOk());
}

TEST_F(SafeFileTest, NeverWritesThroughASymbolicLink) {
  std::ofstream(Path("victim")) << "precious";
  ASSERT_EQ(symlink(Path("victim").c_str(), Path("out.json").c_str()), 0);
  const absl::Status s = WriteFileAtomically(Path("out.json"), "overwritten");
  EXPECT_TRUE(absl::IsFailedPrecondition(s)) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("symbolic link"));
  EXPECT_EQ(Read(Path("victim")), "precious");
  struct stat st;
  ASSERT_EQ(lstat(Path("out.json").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  EXPECT_EQ(Listing().size(), 2u);  // no temporary left
}

TEST_F(SafeFileTest, ADeviceStaysADevice) {
  // /dev/null itself: written into, never renamed over.
  ASSERT_THAT(WriteFileAtomically("/dev/null", "{}\n"), IsOk());
  struct stat st;
  ASSERT_EQ(lstat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  // A device node in a folder of ours, where the test may make one.
  if (mknod(Path("null").c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0) {
    ASSERT_THAT(WriteFileAtomically(Path("null"), "{}\n"), IsOk());
    ASSERT_EQ(lstat(Path("null").c_str(), &st), 0);
    EXPECT_TRUE(S_ISCHR(st.st_mode));
  }
}

TEST_F(SafeFileTest, AFifoIsWrittenIntoNotReplaced) {
  ASSERT_EQ(mkfifo(Path("fifo").c_str(), 0600), 0);
  const int reader = open(Path("fifo").c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(reader, 0);
  ASSERT_THAT(WriteFileAtomically(Path("fifo"), "through"), IsOk());
  char buf[16] = {};
  EXPECT_EQ(read(reader, buf, sizeof(buf)), 7);
  EXPECT_STREQ(buf, "through");
  close(reader);
  struct stat st;
  ASSERT_EQ(lstat(Path("fifo").c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

TEST_F(SafeFileTest, ReadsAFileWholeAndNamesOneThatIsMissing) {
  ASSERT_THAT(WriteFileAtomically(Path("a"), "two\nlines\n"), IsOk());
  absl::StatusOr<std::string> text = ReadFileToString(Path("a"));
  ASSERT_THAT(text, IsOk());
  EXPECT_EQ(*text, "two\nlines\n");
  absl::StatusOr<std::string> missing = ReadFileToString(Path("none"));
  EXPECT_TRUE(absl::IsNotFound(missing.status())) << missing.status();
  EXPECT_NE(missing.status().message().find(Path("none")), std::string::npos);
  EXPECT_FALSE(ReadFileToString(dir_->path()).ok());  // a folder reads as EISDIR
}

TEST_F(SafeFileTest, CheckWriteTargetNamesWhatIsWrong) {
  EXPECT_EQ(*CheckWriteTarget(Path("new.json")), WriteTarget::kAbsent);
  std::ofstream(Path("f")) << "x";
  EXPECT_EQ(*CheckWriteTarget(Path("f")), WriteTarget::kRegular);
  EXPECT_EQ(*CheckWriteTarget("/dev/null"), WriteTarget::kStream);
  absl::StatusOr<WriteTarget> dir = CheckWriteTarget(dir_->path());
  EXPECT_TRUE(absl::IsFailedPrecondition(dir.status()));
  EXPECT_THAT(std::string(dir.status().message()), HasSubstr("a directory"));
  EXPECT_TRUE(absl::IsNotFound(CheckWriteTarget(Path("no/such/folder/x.json")).status()));
}

TEST_F(SafeFileTest, TempFilesAndFoldersAreFreshPrivateAndGoAway) {
  absl::StatusOr<std::string> a = MakeTempFileBeside(Path("r.json"));
  absl::StatusOr<std::string> b = MakeTempFileBeside(Path("r.json"));
  ASSERT_THAT(a, IsOk());
  ASSERT_THAT(b, IsOk());
  EXPECT_NE(*a, *b);
  EXPECT_THAT(*a, HasSubstr("/.r.json.tmp-"));
  std::string kept;
  {
    absl::StatusOr<TempDir> t = TempDir::Make("x", dir_->path());
    ASSERT_THAT(t, IsOk());
    struct stat st;
    ASSERT_EQ(stat(t->path().c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u);
    std::ofstream(t->path() + "/inside") << "y";
    kept = t->path();
  }
  EXPECT_FALSE(std::filesystem::exists(kept));
}

}  // namespace
}  // namespace spawnlab
