// signal_state.h: a caller's signal state set for a test, and a child's read
// back, for the tests of what a spawned child inherits.
//
// Example:
//
//   {
//     spawnlab::testing::CallerSignals caller({SIGPIPE, SIGHUP}, {SIGUSR2});
//     ... spawn grep -E '^Sig(Ign|Blk)' /proc/self/status ...
//   }  // the caller's dispositions and mask are back as they were
//   absl::StatusOr<spawnlab::testing::SignalMasks> m =
//       spawnlab::testing::ParseSignalMasks(out);
//   EXPECT_EQ(m->ignored & spawnlab::testing::Bit(SIGPIPE), 0u);

#ifndef SPAWNLAB_LIB_TESTING_SIGNAL_STATE_H_
#define SPAWNLAB_LIB_TESTING_SIGNAL_STATE_H_

#include <signal.h>

#include <cstdint>
#include <initializer_list>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace spawnlab {
namespace testing {

// Signal n's bit in a /proc/<pid>/status mask.
inline uint64_t Bit(int sig) { return uint64_t{1} << (sig - 1); }

// Signals 32 and 33 are glibc's own (thread cancellation, setxid): its
// sigaction and posix_spawn leave them alone, and so does lib/spawn.
inline constexpr uint64_t kGlibcOwnSignals = (uint64_t{1} << 31) | (uint64_t{1} << 32);

// For its lifetime the caller ignores `ignored` and blocks `blocked` (this
// thread's mask); both are restored on destruction.
class CallerSignals {
 public:
  CallerSignals(std::initializer_list<int> ignored, std::initializer_list<int> blocked) {
    struct sigaction ign = {};
    ign.sa_handler = SIG_IGN;
    for (int sig : ignored) {
      struct sigaction old;
      if (sigaction(sig, &ign, &old) == 0) saved_.emplace_back(sig, old);
    }
    sigset_t block;
    sigemptyset(&block);
    for (int sig : blocked) sigaddset(&block, sig);
    pthread_sigmask(SIG_BLOCK, &block, &old_mask_);
  }
  ~CallerSignals() {
    pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
    for (const auto& [sig, old] : saved_) sigaction(sig, &old, nullptr);
  }
  CallerSignals(const CallerSignals&) = delete;
  CallerSignals& operator=(const CallerSignals&) = delete;

 private:
  std::vector<std::pair<int, struct sigaction>> saved_;
  sigset_t old_mask_;
};

// A child's SigIgn and SigBlk, from the output of
// `grep -E '^Sig(Ign|Blk)' /proc/self/status` (grep itself: a shell clears
// its mask when it starts, which would hide a child started with one).
struct SignalMasks {
  uint64_t ignored = 0;
  uint64_t blocked = 0;
};
inline absl::StatusOr<SignalMasks> ParseSignalMasks(absl::string_view text) {
  SignalMasks masks;
  int found = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    uint64_t* out = absl::ConsumePrefix(&line, "SigIgn:\t")   ? &masks.ignored
                    : absl::ConsumePrefix(&line, "SigBlk:\t") ? &masks.blocked
                                                              : nullptr;
    if (out == nullptr || !absl::SimpleHexAtoi(line, out)) {
      return absl::InternalError(absl::StrCat("unexpected line: ", line));
    }
    ++found;
  }
  if (found != 2) return absl::InternalError(absl::StrCat("expected SigBlk and SigIgn: ", text));
  return masks;
}

}  // namespace testing
}  // namespace spawnlab

#endif  // SPAWNLAB_LIB_TESTING_SIGNAL_STATE_H_
