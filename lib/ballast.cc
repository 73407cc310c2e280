// ballast.cc: see ballast.h.

#include "lib/ballast.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14; glibc 2.36 headers may lack it
#endif

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "lib/unique_fd.h"

namespace spawnlab {
namespace {

constexpr int kSoakBelowOrder = 9;                   // 2 MiB blocks of 4 KiB pages
constexpr size_t kSoakCap = size_t{4} << 30;         // never soak more than this
constexpr size_t kSoakHeadroom = size_t{512} << 20;  // left free for everyone else

std::string ReadFile(const char* path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// Writes one byte into every page of [p, p + bytes): at once where the kernel
// can (MADV_POPULATE_WRITE, Linux 5.14+: no fault per page), else by hand.
void Populate(void* p, size_t bytes, size_t page) {
  if (madvise(p, bytes, MADV_POPULATE_WRITE) == 0) return;
  volatile char* c = static_cast<volatile char*>(p);
  for (size_t off = 0; off < bytes; off += page) c[off] = 1;
}

void* MapAnonymous(size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  // Best effort: a kernel without THP has nothing to turn off.
  madvise(p, bytes, MADV_NOHUGEPAGE);
  return p;
}

}  // namespace

int64_t MemAvailableBytes() {
  for (absl::string_view line : absl::StrSplit(ReadFile("/proc/meminfo"), '\n')) {
    if (absl::ConsumePrefix(&line, "MemAvailable:")) {
      line = absl::StripAsciiWhitespace(line);
      absl::ConsumeSuffix(&line, " kB");
      int64_t kib;
      if (absl::SimpleAtoi(line, &kib)) return kib << 10;
    }
  }
  return -1;
}

absl::StatusOr<size_t> FreeBytesInBlocksBelow(absl::string_view buddyinfo, int order,
                                              size_t page_size) {
  size_t pages = 0;
  for (absl::string_view line : absl::StrSplit(buddyinfo, '\n', absl::SkipWhitespace())) {
    // "Node 0, zone   Normal   1574   1899 ..." : free blocks of order 0, 1, ...
    std::vector<absl::string_view> f = absl::StrSplit(line, ' ', absl::SkipWhitespace());
    if (f.size() < 5 || f[0] != "Node" || f[2] != "zone") {
      return absl::InvalidArgumentError(absl::StrCat("not a /proc/buddyinfo line: '", line, "'"));
    }
    for (size_t i = 4; i < f.size() && static_cast<int>(i - 4) < order; ++i) {
      uint64_t blocks;
      if (!absl::SimpleAtoi(f[i], &blocks)) {
        return absl::InvalidArgumentError(absl::StrCat("not a block count: '", f[i], "'"));
      }
      pages += static_cast<size_t>(blocks) << (i - 4);
    }
  }
  return pages * page_size;
}

absl::StatusOr<size_t> FreeBytesInPerCpuLists(absl::string_view zoneinfo, size_t page_size) {
  size_t pages = 0;
  for (absl::string_view line : absl::StrSplit(zoneinfo, '\n', absl::SkipWhitespace())) {
    // "              count:    7611" under each zone's "pagesets", one per CPU.
    line = absl::StripAsciiWhitespace(line);
    if (!absl::ConsumePrefix(&line, "count:")) continue;
    uint64_t count;
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(line), &count)) {
      return absl::InvalidArgumentError(absl::StrCat("not a page count: 'count:", line, "'"));
    }
    pages += static_cast<size_t>(count);
  }
  return pages * page_size;
}

namespace {

// Keeps the calling thread on the CPU it runs on while alive, then restores
// its affinity: the soak and the ballast must draw on the same CPU's list of
// free pages. Best effort: where the affinity cannot be set, nothing changes.
class StayOnThisCpu {
 public:
  StayOnThisCpu() {
    const int cpu = sched_getcpu();
    if (cpu < 0 || sched_getaffinity(0, sizeof(saved_), &saved_) != 0) return;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    pinned_ = sched_setaffinity(0, sizeof(one), &one) == 0;
  }
  ~StayOnThisCpu() {
    if (pinned_) sched_setaffinity(0, sizeof(saved_), &saved_);
  }
  StayOnThisCpu(const StayOnThisCpu&) = delete;
  StayOnThisCpu& operator=(const StayOnThisCpu&) = delete;

 private:
  cpu_set_t saved_;
  bool pinned_ = false;
};

}  // namespace

absl::StatusOr<Ballast> Ballast::Create(size_t bytes, bool touch, Placement placement) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  bytes = (bytes + page - 1) / page * page;
  Ballast b;
  if (bytes == 0) return b;
  void* p = MapAnonymous(bytes);
  if (p == nullptr) {
    return absl::ResourceExhaustedError(
        absl::StrCat("mmap ", bytes, " bytes of ballast: ", strerror(errno)));
  }
  b.data_ = p;
  b.bytes_ = bytes;
  if (!touch) return b;
  b.touched_ = true;
  if (placement == Placement::kAsAllocated) {
    Populate(p, bytes, page);
    return b;
  }
  // The soak (ballast.h): the small free blocks go to a scratch mapping first,
  // so that the ballast's own pages come from the large ones.
  // The per-CPU lists hold freed pages the buddy allocator does not count
  // (tens of MiB on Linux 6.7+, whose lists grow with use), and serve them
  // first: they are soaked up too, on the one CPU that then makes the ballast.
  StayOnThisCpu stay;
  absl::StatusOr<size_t> small =
      FreeBytesInBlocksBelow(ReadFile("/proc/buddyinfo"), kSoakBelowOrder, page);
  absl::StatusOr<size_t> listed = FreeBytesInPerCpuLists(ReadFile("/proc/zoneinfo"), page);
  if (small.ok() && listed.ok()) *small += *listed;
  size_t soak = small.ok() ? std::min(*small, kSoakCap) / page * page : 0;
  const int64_t available = MemAvailableBytes();
  if (available < 0 || static_cast<size_t>(available) < soak + bytes + kSoakHeadroom) soak = 0;
  void* scratch = soak > 0 ? MapAnonymous(soak) : nullptr;
  if (scratch != nullptr) Populate(scratch, soak, page);
  Populate(p, bytes, page);
  if (scratch != nullptr) {
    munmap(scratch, soak);
    b.soaked_bytes_ = soak;
  }
  return b;
}

absl::StatusOr<double> Ballast::AdjacentShare() const {
  if (!touched_) return absl::FailedPreconditionError("the ballast was not touched");
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t pages = bytes_ / page;
  if (pages < 2) return 1.0;
  UniqueFd fd(open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return absl::ErrnoToStatus(errno, "open /proc/self/pagemap");
  // One 64-bit entry per page: bit 63 present, bits 0-54 the page frame.
  constexpr uint64_t kPresent = uint64_t{1} << 63;
  constexpr uint64_t kFrame = (uint64_t{1} << 55) - 1;
  // Read a chunk at a time: an array as long as the ballast (2 MiB per GiB)
  // would stay in the heap after it is freed, and be forked with the parent.
  constexpr size_t kChunk = 4096;  // entries: 32 KiB on the stack
  uint64_t entries[kChunk];
  const off_t at = static_cast<off_t>(reinterpret_cast<uintptr_t>(data_) / page * 8);
  size_t adjacent = 0, frames = 0;
  uint64_t previous = 0;  // the entry before the chunk's first (0: none or absent)
  for (size_t first = 0; first < pages; first += kChunk) {
    const size_t count = std::min(kChunk, pages - first);
    const size_t want = count * 8;
    size_t got = 0;
    while (got < want) {
      const ssize_t n = pread(fd.get(), reinterpret_cast<char*>(entries) + got, want - got,
                              at + static_cast<off_t>(first * 8 + got));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return absl::ErrnoToStatus(n < 0 ? errno : EIO, "read /proc/self/pagemap");
      got += static_cast<size_t>(n);
    }
    for (size_t i = 0; i < count; ++i) {
      const uint64_t e = entries[i];
      const uint64_t before = std::exchange(previous, e);
      if ((e & kPresent) == 0) continue;
      frames += (e & kFrame) != 0;
      if ((before & kPresent) == 0) continue;
      const uint64_t a = before & kFrame, c = e & kFrame;
      adjacent += c == a + 1 || a == c + 1;
    }
  }
  if (frames == 0) {
    return absl::PermissionDeniedError(
        "/proc/self/pagemap shows no page frames (they need CAP_SYS_ADMIN)");
  }
  return static_cast<double>(adjacent) / static_cast<double>(pages - 1);
}

Ballast::Ballast(Ballast&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      bytes_(std::exchange(other.bytes_, 0)),
      touched_(std::exchange(other.touched_, false)),
      soaked_bytes_(std::exchange(other.soaked_bytes_, 0)) {}

Ballast& Ballast::operator=(Ballast&& other) noexcept {
  if (this != &other) {
    if (data_ != nullptr) munmap(data_, bytes_);
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
    touched_ = std::exchange(other.touched_, false);
    soaked_bytes_ = std::exchange(other.soaked_bytes_, 0);
  }
  return *this;
}

Ballast::~Ballast() {
  if (data_ != nullptr) munmap(data_, bytes_);
}

}  // namespace spawnlab
