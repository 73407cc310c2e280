// environment.h: the record of the machine a result came from.
//
// Numbers from one machine mean little without it: the kernel and its build
// (kernel_config.h), the CPU, whether this is a VM, the speculative-execution
// mitigations in force, transparent huge pages, ASLR, DAMON, the governor,
// glibc, the compiler, the library versions, the git revision and the CPU the
// bench was pinned to. Every bench writes it into the `context` block of its
// Google Benchmark JSON (see bench.h).
//
// Example:
//
//   for (const auto& [key, value] : spawnlab::CollectEnvironment()) {
//     benchmark::AddCustomContext(key, value);
//   }

#ifndef SPAWNLAB_BENCH_ENVIRONMENT_H_
#define SPAWNLAB_BENCH_ENVIRONMENT_H_

#include <cstdint>
#include <map>
#include <string>

#include "absl/strings/string_view.h"

namespace spawnlab {

// Keys are dotted ("kernel.release", "cpu.model", "mitigation.spectre_v2",
// "package.libabsl-dev", "probe.clone3", ...); values are strings, "unknown"
// where the machine does not say.
std::map<std::string, std::string> CollectEnvironment();

// `uname -r`, also the folder results are filed under.
std::string KernelRelease();

// A stable short name for the machine type, the second folder results are
// filed under: the CPU model, the CPU count and a short hash of what tells
// machine types apart (results_model/host_id.h: CPU model and count,
// virtualization, the class of each CPU vulnerability), e.g.
// "amd-epyc-2cpu-7c1f3a". It names no host by name.
std::string HostId();


// The git revision of the checkout at `workspace_dir` (read from .git, with no
// git process); "unknown" if there is none. Whether the tree matches it is
// GitTreeState's question.
std::string GitRevision(absl::string_view workspace_dir);

// Whether the checkout at `workspace_dir` is the revision it names: "clean",
// "dirty: N tracked files differ from the revision" (results/, reports/ and
// the top README.md aside, which a suite run writes: the report rewrites the
// README's table of experiments), or "unknown: why" (no git, not a checkout).
// Runs `git status` once, with a 10 s timeout.
std::string GitTreeState(absl::string_view workspace_dir);
// The same, from `git status --porcelain` output (for tests).
std::string GitTreeStateFrom(absl::string_view porcelain);

// DAMON (mm/damon): kernel threads that watch which memory is accessed and may
// act on it while a bench runs (page out, or reorder the LRU lists of, memory
// gone idle), a source of interference that no CPU figure names. Read under
// `sys_root` ("/sys"): "none" when nothing runs, else each kdamond of the
// admin interface that is on, with its operations set and its schemes'
// actions, and each DAMON module enabled, e.g.
// "kdamond 0: paddr, schemes: pageout". "unknown: ..." without the interface.
std::string DamonState(const std::string& sys_root = "/sys");

// Installed version of a Debian package, from /var/lib/dpkg/status; "" if none.
std::string DebianPackageVersion(absl::string_view package);

}  // namespace spawnlab

#endif  // SPAWNLAB_BENCH_ENVIRONMENT_H_
