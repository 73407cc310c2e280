// hygiene.h: test helpers that prove a test leaves nothing behind: no open
// descriptor it did not have before, and no child process, running or zombie.
//
// Example:
//
//   TEST(Spawn, LeavesNothing) {
//     spawnlab::testing::Hygiene hygiene;  // snapshot of /proc/self/fd
//     ... spawn and reap ...
//     EXPECT_OK(hygiene.Check());            // or EXPECT_TRUE(hygiene.Check().ok())
//   }

#ifndef SPAWNLAB_LIB_TESTING_HYGIENE_H_
#define SPAWNLAB_LIB_TESTING_HYGIENE_H_

#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace spawnlab {
namespace testing {

// This process's descriptors, as fd -> what /proc/self/fd links to.
std::map<int, std::string> OpenFds();

// This process's children (running or zombie), found by scanning /proc.
std::vector<pid_t> Children();

class Hygiene {
 public:
  Hygiene() : fds_before_(OpenFds()) {}
  // OK, or FailedPrecondition listing each descriptor opened since the
  // snapshot and not closed, and each child that still exists.
  absl::Status Check() const;

 private:
  std::map<int, std::string> fds_before_;
};

}  // namespace testing
}  // namespace spawnlab

#endif  // SPAWNLAB_LIB_TESTING_HYGIENE_H_
