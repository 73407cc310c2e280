// kernel_config.h: what tells two builds of one kernel release apart.
//
// A release name such as 6.18.44-fc-v1272 says little about the build behind
// it: the preemption model, page-table isolation, the timer frequency and the
// features compiled in all change what a spawn or a system call costs. This
// reads the build's configuration where the kernel exposes it
// (/proc/config.gz, else /boot/config-<release>) and records the options that
// matter for these experiments, a hash of the whole configuration, and
// /proc/version (the compiler and build that made it).
//
//   for (const auto& [key, value] : spawnlab::KernelIdentity()) {
//     benchmark::AddCustomContext(key, value);  // "kernel.config.preempt": "dynamic", ...
//   }

#ifndef SPAWNLAB_BENCH_KERNEL_CONFIG_H_
#define SPAWNLAB_BENCH_KERNEL_CONFIG_H_

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace spawnlab {

// The configuration's text from `path`, gzip-compressed or not (zlib reads
// both). NotFound where there is no such file; DataLoss where it does not read.
absl::StatusOr<std::string> ReadKernelConfig(const std::string& path);

// The options these experiments care about, from a configuration's text, as
// "kernel.config.*" keys: pti, preempt, hz, cgroups, memcg, io_uring, thp,
// and "fnv64", a hash of the whole text (two builds with the same options
// above may still differ elsewhere). An option the text does not set reads
// "not set".
std::map<std::string, std::string> KernelConfigSummary(absl::string_view config);

// KernelConfigSummary of the running kernel's configuration, with
// "kernel.config.source" (the file read, or why there was none) and
// "kernel.proc_version".
std::map<std::string, std::string> KernelIdentity();

}  // namespace spawnlab

#endif  // SPAWNLAB_BENCH_KERNEL_CONFIG_H_
