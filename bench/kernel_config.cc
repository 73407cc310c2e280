// kernel_config.cc: see kernel_config.h.

#include "bench/kernel_config.h"

#include <errno.h>
#include <sys/utsname.h>
#include <zlib.h>

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "lib/safe_file.h"

namespace spawnlab {
namespace {

constexpr char kNotSet[] = "not set";

// FNV-1a, 64 bits: stable across builds and machines, unlike std::hash.
uint64_t Fnv1a64(absl::string_view text) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

}  // namespace

absl::StatusOr<std::string> ReadKernelConfig(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");  // reads plain text as it is
  if (f == nullptr) {
    if (errno == ENOENT) return absl::NotFoundError(absl::StrCat(path, ": no such file"));
    return absl::ErrnoToStatus(errno, absl::StrCat("gzopen ", path));
  }
  std::string text;
  char buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof(buf))) > 0) text.append(buf, n);
  int err = Z_OK;
  const char* why = gzerror(f, &err);
  gzclose(f);
  if (n < 0 || (err != Z_OK && err != Z_STREAM_END)) {
    return absl::DataLossError(absl::StrCat(path, ": ", why));
  }
  return text;
}

std::map<std::string, std::string> KernelConfigSummary(absl::string_view config) {
  std::map<std::string, std::string> options;  // CONFIG_FOO -> its value
  for (absl::string_view line : absl::StrSplit(config, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (!absl::ConsumePrefix(&line, "CONFIG_")) continue;  // "# CONFIG_X is not set" too
    const size_t eq = line.find('=');
    if (eq != absl::string_view::npos) {
      options[std::string(line.substr(0, eq))] = std::string(line.substr(eq + 1));
    }
  }
  auto get = [&options](const char* name) {
    auto it = options.find(name);
    return it == options.end() ? std::string(kNotSet) : it->second;
  };
  std::map<std::string, std::string> out;
  // Renamed in 6.9 (MITIGATION_PAGE_TABLE_ISOLATION): the newer name first.
  out["kernel.config.pti"] = options.count("MITIGATION_PAGE_TABLE_ISOLATION")
                                 ? get("MITIGATION_PAGE_TABLE_ISOLATION")
                                 : get("PAGE_TABLE_ISOLATION");
  std::string preempt = kNotSet;
  for (const auto& [option, model] : {std::pair<const char*, const char*>{"PREEMPT_NONE", "none"},
                                      {"PREEMPT_VOLUNTARY", "voluntary"},
                                      {"PREEMPT", "full"},
                                      {"PREEMPT_LAZY", "lazy"},
                                      {"PREEMPT_RT", "rt"}}) {
    if (get(option) == "y") preempt = model;
  }
  if (get("PREEMPT_DYNAMIC") == "y") absl::StrAppend(&preempt, " (dynamic)");
  out["kernel.config.preempt"] = preempt;
  out["kernel.config.hz"] = get("HZ");
  out["kernel.config.cgroups"] = get("CGROUPS");
  out["kernel.config.memcg"] = get("MEMCG");
  out["kernel.config.io_uring"] = get("IO_URING");
  std::string thp = get("TRANSPARENT_HUGEPAGE");
  if (get("TRANSPARENT_HUGEPAGE_ALWAYS") == "y") absl::StrAppend(&thp, " (default always)");
  if (get("TRANSPARENT_HUGEPAGE_MADVISE") == "y") absl::StrAppend(&thp, " (default madvise)");
  out["kernel.config.thp"] = thp;
  out["kernel.config.fnv64"] = absl::StrFormat("%016x", Fnv1a64(config));
  return out;
}

std::map<std::string, std::string> KernelIdentity() {
  absl::StatusOr<std::string> version = ReadFileToString("/proc/version");
  const std::string proc_version =
      version.ok() ? std::string(absl::StripAsciiWhitespace(*version)) : "unknown";
  std::vector<std::string> tried = {"/proc/config.gz"};
  struct utsname u;
  if (uname(&u) == 0) tried.push_back(absl::StrCat("/boot/config-", u.release));
  std::map<std::string, std::string> out;
  std::string why;
  for (const std::string& path : tried) {
    absl::StatusOr<std::string> config = ReadKernelConfig(path);
    if (config.ok()) {
      out = KernelConfigSummary(*config);
      out["kernel.config.source"] = path;
      break;
    }
    absl::StrAppend(&why, why.empty() ? "" : "; ", config.status().message());
  }
  if (!out.count("kernel.config.source")) out["kernel.config.source"] = absl::StrCat("none: ", why);
  out["kernel.proc_version"] = proc_version;
  return out;
}

}  // namespace spawnlab
