// safe_file.cc: see safe_file.h.

#include "lib/safe_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <vector>

#include "absl/strings/str_cat.h"
#include "lib/unique_fd.h"

namespace spawnlab {
namespace {

absl::Status WriteAll(int fd, absl::string_view text, const std::string& what) {
  while (!text.empty()) {
    const ssize_t n = write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return absl::ErrnoToStatus(n < 0 ? errno : EIO, absl::StrCat("write ", what));
    text.remove_prefix(static_cast<size_t>(n));
  }
  return absl::OkStatus();
}

std::string Folder(const std::string& path) {
  const std::string folder = std::filesystem::path(path).parent_path().string();
  return folder.empty() ? "." : folder;
}

}  // namespace

absl::StatusOr<WriteTarget> CheckWriteTarget(const std::string& path) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) return absl::ErrnoToStatus(errno, absl::StrCat("lstat ", path));
    struct stat dir;
    if (stat(Folder(path).c_str(), &dir) != 0 || !S_ISDIR(dir.st_mode)) {
      return absl::NotFoundError(
          absl::StrCat(path, ": its folder ", Folder(path), " does not exist"));
    }
    return WriteTarget::kAbsent;
  }
  if (S_ISREG(st.st_mode)) return WriteTarget::kRegular;
  if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) return WriteTarget::kStream;
  const char* what = S_ISLNK(st.st_mode) ? "a symbolic link (spawnlab writes through none)"
                     : S_ISDIR(st.st_mode)
                         ? "a directory"
                         : "neither a regular file, a character device nor a FIFO";
  return absl::FailedPreconditionError(absl::StrCat(path, " is ", what, "; name a file"));
}

absl::StatusOr<std::string> MakeTempFileBeside(const std::string& path) {
  const std::filesystem::path p(path);
  std::string name = absl::StrCat(Folder(path), "/.", p.filename().string(), ".tmp-XXXXXX");
  UniqueFd fd(mkostemp(name.data(), O_CLOEXEC));
  if (!fd.valid()) return absl::ErrnoToStatus(errno, absl::StrCat("mkstemp ", name));
  if (fchmod(fd.get(), 0644) != 0) {
    const int err = errno;
    unlink(name.c_str());
    return absl::ErrnoToStatus(err, absl::StrCat("fchmod ", name));
  }
  return name;
}

absl::StatusOr<std::string> ReadFileToString(const std::string& path) {
  UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return absl::ErrnoToStatus(errno, absl::StrCat("open ", path));
  std::string text;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = read(fd.get(), buf, sizeof(buf));
    if (n == 0) return text;
    if (n < 0) {
      if (errno == EINTR) continue;
      return absl::ErrnoToStatus(errno, absl::StrCat("read ", path));
    }
    text.append(buf, static_cast<size_t>(n));
  }
}

absl::Status WriteFileAtomically(const std::string& path, absl::string_view text) {
  absl::StatusOr<WriteTarget> target = CheckWriteTarget(path);
  if (!target.ok()) return target.status();
  if (*target == WriteTarget::kStream) {
    UniqueFd fd(open(path.c_str(), O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY));
    if (!fd.valid()) return absl::ErrnoToStatus(errno, absl::StrCat("open ", path));
    struct stat st;
    if (fstat(fd.get(), &st) != 0 || !(S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
      return absl::FailedPreconditionError(absl::StrCat(path, " changed while being opened"));
    }
    return WriteAll(fd.get(), text, path);
  }
  absl::StatusOr<std::string> tmp = MakeTempFileBeside(path);
  if (!tmp.ok()) return tmp.status();
  absl::Status written;
  {
    UniqueFd fd(open(tmp->c_str(), O_WRONLY | O_NOFOLLOW | O_CLOEXEC));
    written = fd.valid() ? WriteAll(fd.get(), text, *tmp)
                         : absl::ErrnoToStatus(errno, absl::StrCat("open ", *tmp));
    if (written.ok() && fsync(fd.get()) != 0) {
      written = absl::ErrnoToStatus(errno, absl::StrCat("fsync ", *tmp));
    }
  }
  // Looked at again just before the rename: what replaced the target since
  // the first look must be allowed too. rename(2) itself never follows a link.
  if (written.ok()) {
    target = CheckWriteTarget(path);
    if (!target.ok()) written = target.status();
    if (target.ok() && *target == WriteTarget::kStream) {
      written = absl::FailedPreconditionError(absl::StrCat(path, " became a device or FIFO"));
    }
  }
  if (written.ok() && rename(tmp->c_str(), path.c_str()) != 0) {
    written = absl::ErrnoToStatus(errno, absl::StrCat("rename ", *tmp, " to ", path));
  }
  if (!written.ok()) unlink(tmp->c_str());
  return written;
}

absl::StatusOr<TempDir> TempDir::Make(absl::string_view prefix, std::string parent) {
  if (parent.empty()) {
    const char* env = std::getenv("TMPDIR");
    parent = env != nullptr && *env != '\0' ? env : "/tmp";
  }
  std::string name = absl::StrCat(parent, "/", prefix, "-XXXXXX");
  if (mkdtemp(name.data()) == nullptr) {
    return absl::ErrnoToStatus(errno, absl::StrCat("mkdtemp ", name));
  }
  return TempDir(std::move(name));
}

TempDir& TempDir::operator=(TempDir&& other) noexcept {
  if (this != &other) {
    this->~TempDir();
    path_ = std::move(other.path_);
    other.path_.clear();
  }
  return *this;
}

TempDir::~TempDir() {
  if (path_.empty()) return;
  std::error_code ec;  // remove_all does not follow links inside the folder
  std::filesystem::remove_all(path_, ec);
}

std::string TempDir::Release() {
  std::string p = std::move(path_);
  path_.clear();
  return p;
}

}  // namespace spawnlab
