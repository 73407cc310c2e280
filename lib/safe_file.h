// safe_file.h: writing files as root on a shared machine without being turned
// against the machine: never through a symbolic link, never over a device or a
// FIFO, temporary names only from mkstemp/mkdtemp. Every file spawnlab writes
// (results, locks, trace logs) goes through these; SECURITY.md says what they
// defend against.
//
//   if (absl::Status s = spawnlab::CheckWriteTarget(out); !s.ok()) return s;  // before a run
//   ... measure ...
//   absl::Status s = spawnlab::WriteFileAtomically(out, doc.dump(2) + "\n");
//
//   absl::StatusOr<spawnlab::TempDir> dir = spawnlab::TempDir::Make("spawnlab-trace");
//   ... write dir->path() + "/strace.log"; the folder is removed with `dir` ...

#ifndef SPAWNLAB_LIB_SAFE_FILE_H_
#define SPAWNLAB_LIB_SAFE_FILE_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace spawnlab {

// What is at a path a file is about to be written to.
enum class WriteTarget {
  kAbsent,   // nothing: the file will be created
  kRegular,  // a regular file: it will be replaced whole (rename)
  kStream,   // a character device or FIFO (/dev/null, a pipe): written into
             // directly, never replaced
};

// lstat(2)s `path`: FailedPrecondition for a symbolic link (spawnlab writes
// through none), a directory, a socket or a block device; NotFound when its
// folder does not exist. For flags like --out, checked before a long run.
absl::StatusOr<WriteTarget> CheckWriteTarget(const std::string& path);

// Writes `text` to `path` whole or not at all: into a new file of mkstemp's
// making beside it (mode 0644), fsync'd, then renamed over `path`, which
// CheckWriteTarget must allow at that moment. A character device or FIFO is
// written into (opened O_NOFOLLOW, never created or replaced).
absl::Status WriteFileAtomically(const std::string& path, absl::string_view text);

// The whole of a file (or a /proc file, read until its end), with errno's
// status and the path where it cannot be opened or read.
absl::StatusOr<std::string> ReadFileToString(const std::string& path);

// A new, empty file beside `path` named ".<name of path>.tmp-XXXXXX" (mkstemp),
// for a writer that must be given a path (Google Benchmark's --benchmark_out).
// Returns its path; the caller removes or renames it.
absl::StatusOr<std::string> MakeTempFileBeside(const std::string& path);

// A private folder (mkdtemp, mode 0700) under `parent` (default: $TMPDIR, else
// /tmp), removed with everything in it when the TempDir goes.
class TempDir {
 public:
  static absl::StatusOr<TempDir> Make(absl::string_view prefix, std::string parent = "");
  TempDir(TempDir&& other) noexcept : path_(std::move(other.path_)) { other.path_.clear(); }
  TempDir& operator=(TempDir&& other) noexcept;
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir();

  const std::string& path() const { return path_; }
  // Keeps the folder: it is no longer removed.
  std::string Release();

 private:
  explicit TempDir(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

}  // namespace spawnlab

#endif  // SPAWNLAB_LIB_SAFE_FILE_H_
