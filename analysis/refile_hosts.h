// refile_hosts.h: files each results file under the host id its own context
// makes (results_model/host_id.h), for results written before that id told
// machines apart: results/<kernel>/<old id>/<file> moves to
// results/<kernel>/<new id>/<file>, byte for byte.
//
// Example:
//
//   absl::StatusOr<std::vector<analysis::Move>> moves =
//       analysis::PlanRefiling("results");          // what would move
//   if (moves.ok()) status = analysis::ApplyRefiling(*moves);

#ifndef SPAWNLAB_ANALYSIS_REFILE_HOSTS_H_
#define SPAWNLAB_ANALYSIS_REFILE_HOSTS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace spawnlab {
namespace analysis {

struct Move {
  std::string from, to;
};

// Every *.json under results_dir/<kernel>/<host>/ whose context (cpu.model and
// the rest of HostIdentity) gives another id than its folder's. A file with no
// cpu.model in its context stays. FailedPrecondition when a destination exists
// already or two files would land on one path; an unreadable file is an error.
absl::StatusOr<std::vector<Move>> PlanRefiling(const std::string& results_dir);

// Renames each (creating folders), then removes the folders left empty.
absl::Status ApplyRefiling(const std::vector<Move>& moves);

}  // namespace analysis
}  // namespace spawnlab

#endif  // SPAWNLAB_ANALYSIS_REFILE_HOSTS_H_
