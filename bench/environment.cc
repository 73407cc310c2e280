// environment.cc: see environment.h. Reads /proc, /sys and .git; the probes it
// records fork children to try each feature, and GitTreeState runs `git status`.

#include "bench/environment.h"

#include <dirent.h>
#include <gnu/libc-version.h>
#include <sched.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/time.h"
#include "bench/kernel_config.h"
#include "lib/command.h"
#include "lib/probes.h"
#include "results_model/host_id.h"

namespace spawnlab {
namespace {

constexpr char kUnknown[] = "unknown";

// The whole file, trimmed; `fallback` if it cannot be read.
std::string ReadTrimmed(const std::string& path, const char* fallback = kUnknown) {
  std::ifstream in(path);
  if (!in) return fallback;
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s(absl::StripAsciiWhitespace(ss.str()));
  return s.empty() ? fallback : s;
}

std::vector<std::string> ListDir(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (struct dirent* e = readdir(d)) {
      if (e->d_name[0] != '.') names.push_back(e->d_name);
    }
    closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

// "model name" and whether the "hypervisor" flag is set, from /proc/cpuinfo;
// *uml when the vendor is "User Mode Linux" (a kernel running as a process,
// which traps every system call of its programs).
void ReadCpuInfo(std::string* model, bool* hypervisor, bool* uml = nullptr) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  *model = kUnknown;
  *hypervisor = false;
  if (uml != nullptr) *uml = false;
  while (std::getline(in, line)) {
    std::pair<std::string, std::string> kv = absl::StrSplit(line, absl::MaxSplits(':', 1));
    absl::string_view key = absl::StripAsciiWhitespace(kv.first);
    absl::string_view value = absl::StripAsciiWhitespace(kv.second);
    if (key == "model name" && *model == kUnknown) *model = std::string(value);
    if (key == "vendor_id" && value == "User Mode Linux" && uml != nullptr) *uml = true;
    if (key == "flags") {
      for (absl::string_view flag : absl::StrSplit(value, ' ')) {
        if (flag == "hypervisor") *hypervisor = true;
      }
    }
  }
}

std::string Virtualization(bool hypervisor_flag, bool uml = false) {
  // "uml" alone, first: its timings are no machine's (the reports and the
  // claims ledger go by this word).
  if (uml) return "uml";
  std::string vendor = ReadTrimmed("/sys/class/dmi/id/sys_vendor", "");
  std::string product = ReadTrimmed("/sys/class/dmi/id/product_name", "");
  std::string hv = ReadTrimmed("/sys/hypervisor/type", "");
  std::string what = hypervisor_flag ? "vm" : "none detected";
  std::vector<std::string> details;
  for (const std::string& d : {hv, vendor, product}) {
    if (!d.empty()) details.push_back(d);
  }
  if (!details.empty()) absl::StrAppend(&what, " (", absl::StrJoin(details, ", "), ")");
  return what;
}

// THP's sysfs files show the mode in brackets: "always [madvise] never".
std::string BracketedChoice(const std::string& path) {
  std::string all = ReadTrimmed(path);
  size_t open = all.find('['), close = all.find(']');
  if (open == std::string::npos || close == std::string::npos || close < open) return all;
  return all.substr(open + 1, close - open - 1);
}

std::string Compiler() {
#if defined(__clang__)
  return absl::StrCat("clang ", __clang_version__);
#elif defined(__GNUC__)
  return absl::StrCat("gcc ", __VERSION__);
#else
  return kUnknown;
#endif
}

std::string Sanitizer() {
#if defined(__SANITIZE_ADDRESS__)
  return "address";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return "address";
#endif
#endif
  return "none";
}

}  // namespace

std::string KernelRelease() {
  struct utsname u;
  if (uname(&u) != 0) return kUnknown;
  return u.release;
}

std::string HostId() {
  std::string model;
  bool hypervisor;
  bool uml;
  ReadCpuInfo(&model, &hypervisor, &uml);
  HostIdentity id;
  id.cpu_model = model;
  id.cpus = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  id.virtualization = Virtualization(hypervisor, uml);
  for (const char* name : kHashedVulnerabilities) {
    const std::string status =
        ReadTrimmed(absl::StrCat("/sys/devices/system/cpu/vulnerabilities/", name), "");
    if (!status.empty()) id.vulnerabilities[name] = VulnerabilityClass(status);
  }
  return HostIdFrom(id);
}

// What else tells two hosts' CPUs apart, from /proc/cpuinfo's first CPU:
// recorded beside host.id (results_model/host_id.h says why they are not hashed).
std::map<std::string, std::string> CpuDetails() {
  static const std::set<std::string>* const kFlags =
      new std::set<std::string>{"pcid", "invpcid", "smap", "smep", "la57", "pti", "ibrs", "ibpb",
                                "stibp", "md_clear", "hypervisor"};
  std::map<std::string, std::string> out;
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line) && !line.empty()) {  // the first CPU's block
    std::pair<std::string, std::string> kv = absl::StrSplit(line, absl::MaxSplits(':', 1));
    const std::string key(absl::StripAsciiWhitespace(kv.first));
    const std::string value(absl::StripAsciiWhitespace(kv.second));
    if (key == "cpu family") out["cpu.family"] = value;
    if (key == "model") out["cpu.model_number"] = value;
    if (key == "stepping") out["cpu.stepping"] = value;
    if (key == "microcode") out["cpu.microcode"] = value;
    if (key == "cpu MHz") out["cpu.mhz"] = value;
    if (key == "cache size") out["cpu.cache_size"] = value;
    if (key == "flags") {
      std::vector<std::string> kept;
      for (absl::string_view flag : absl::StrSplit(value, ' ', absl::SkipEmpty())) {
        if (kFlags->count(std::string(flag))) kept.emplace_back(flag);
      }
      out["cpu.flags"] = kept.empty() ? "none of them" : absl::StrJoin(kept, " ");
    }
  }
  return out;
}

std::string GitRevision(absl::string_view workspace_dir) {
  std::string git = absl::StrCat(workspace_dir, "/.git");
  std::string head = ReadTrimmed(absl::StrCat(git, "/HEAD"), "");
  if (head.empty()) return kUnknown;
  absl::string_view ref = head;
  if (!absl::ConsumePrefix(&ref, "ref: ")) return head;  // detached HEAD
  std::string loose = ReadTrimmed(absl::StrCat(git, "/", ref), "");
  if (!loose.empty()) return loose;
  std::ifstream packed(absl::StrCat(git, "/packed-refs"));
  std::string line;
  while (std::getline(packed, line)) {
    std::pair<std::string, std::string> kv = absl::StrSplit(line, absl::MaxSplits(' ', 1));
    if (kv.second == ref) return kv.first;
  }
  return kUnknown;
}

std::string GitTreeStateFrom(absl::string_view porcelain) {
  const std::vector<absl::string_view> lines = absl::StrSplit(porcelain, '\n', absl::SkipEmpty());
  const size_t changed = lines.size();  // one line per changed file
  if (changed == 0) return "clean";
  return absl::StrCat("dirty: ", changed,
                      changed == 1 ? " tracked file differs" : " tracked files differ",
                      " from the revision");
}

std::string GitTreeState(absl::string_view workspace_dir) {
  absl::StatusOr<CommandResult> r =
      Command("git")
          .Args({"-C", std::string(workspace_dir), "status", "--porcelain", "--untracked-files=no",
                 "--", ".", ":!results", ":!reports", ":!README.md"})
          .Stdout(Stdio::Pipe())
          .Stderr(Stdio::Pipe())
          .Timeout(absl::Seconds(10))
          .Run();
  if (!r.ok()) return absl::StrCat("unknown: ", r.status().message());
  if (!r->status.success()) {
    return absl::StrCat("unknown: git status: ", r->status.ToString(), " ",
                        absl::StripAsciiWhitespace(r->err));
  }
  return GitTreeStateFrom(r->out);
}

std::string DebianPackageVersion(absl::string_view package) {
  std::ifstream in("/var/lib/dpkg/status");
  std::string line;
  bool in_package = false;
  const std::string wanted = absl::StrCat("Package: ", package);
  while (std::getline(in, line)) {
    if (absl::StartsWith(line, "Package: ")) in_package = (line == wanted);
    if (in_package && absl::StartsWith(line, "Version: ")) return line.substr(9);
  }
  return "";
}

std::string DamonState(const std::string& sys_root) {
  auto numbered = [](const std::string& dir) {
    std::vector<std::string> names;
    for (const std::string& n : ListDir(dir)) {
      if (!n.empty() && std::all_of(n.begin(), n.end(), absl::ascii_isdigit)) names.push_back(n);
    }
    return names;
  };
  std::vector<std::string> parts;
  const std::string kdamonds = absl::StrCat(sys_root, "/kernel/mm/damon/admin/kdamonds");
  const bool admin = access(kdamonds.c_str(), R_OK) == 0;
  for (const std::string& k : numbered(kdamonds)) {
    const std::string dir = absl::StrCat(kdamonds, "/", k);
    if (ReadTrimmed(dir + "/state", "") != "on") continue;
    std::string part = absl::StrCat("kdamond ", k, ":");
    for (const std::string& c : numbered(dir + "/contexts")) {
      const std::string ctx = absl::StrCat(dir, "/contexts/", c);
      std::vector<std::string> actions;
      for (const std::string& sc : numbered(ctx + "/schemes")) {
        actions.push_back(ReadTrimmed(absl::StrCat(ctx, "/schemes/", sc, "/action")));
      }
      absl::StrAppend(&part, " ", ReadTrimmed(ctx + "/operations"),
                      actions.empty() ? "" : ", schemes: ", absl::StrJoin(actions, ", "));
    }
    parts.push_back(part);
  }
  bool modules = false;
  for (const char* m : {"damon_reclaim", "damon_lru_sort", "damon_stat"}) {
    const std::string enabled =
        ReadTrimmed(absl::StrCat(sys_root, "/module/", m, "/parameters/enabled"), "");
    modules = modules || !enabled.empty();
    if (enabled == "Y") parts.push_back(absl::StrCat(m, " enabled"));
  }
  if (!parts.empty()) return absl::StrJoin(parts, "; ");
  return admin || modules ? "none" : "unknown: no DAMON interface in sysfs";
}

std::map<std::string, std::string> CollectEnvironment() {
  std::map<std::string, std::string> env;
  struct utsname u;
  if (uname(&u) == 0) {
    env["kernel.release"] = u.release;
    env["kernel.version"] = u.version;
    env["kernel.machine"] = u.machine;
  }
  // What tells two builds of one release apart (kernel_config.h).
  for (auto& [key, value] : KernelIdentity()) env[key] = std::move(value);
  std::string model;
  bool hypervisor, uml;
  ReadCpuInfo(&model, &hypervisor, &uml);
  env["host.id"] = HostId();
  for (const auto& [key, value] : CpuDetails()) env[key] = value;
  env["cpu.model"] = model;
  env["cpu.online"] = absl::StrCat(sysconf(_SC_NPROCESSORS_ONLN));
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    env["cpu.allowed"] = absl::StrCat(CPU_COUNT(&set));
  }
  env["cpu.governor"] =
      ReadTrimmed("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "none (no cpufreq)");
  env["virtualization"] = Virtualization(hypervisor, uml);
  const std::string vulns = "/sys/devices/system/cpu/vulnerabilities";
  for (const std::string& name : ListDir(vulns)) {
    env[absl::StrCat("mitigation.", name)] = ReadTrimmed(absl::StrCat(vulns, "/", name));
  }
  env["thp.enabled"] = BracketedChoice("/sys/kernel/mm/transparent_hugepage/enabled");
  env["thp.defrag"] = BracketedChoice("/sys/kernel/mm/transparent_hugepage/defrag");
  env["aslr"] = ReadTrimmed("/proc/sys/kernel/randomize_va_space");
  env["damon"] = DamonState();
  env["glibc"] = gnu_get_libc_version();
  env["compiler"] = Compiler();
  env["sanitizer"] = Sanitizer();
#ifdef NDEBUG
  env["build.ndebug"] = "true";
#else
  env["build.ndebug"] = "false";
#endif
  const char* workspace = std::getenv("BUILD_WORKSPACE_DIRECTORY");
  env["git.revision"] = workspace != nullptr ? GitRevision(workspace) : kUnknown;
  env["git.tree"] =
      workspace != nullptr ? GitTreeState(workspace) : "unknown: not started by bazel run";
  for (const char* pkg : {"bazel-bootstrap", "libabsl-dev", "libbenchmark-dev", "libgtest-dev",
                          "libre2-dev", "liburing-dev", "nlohmann-json3-dev", "libc6"}) {
    std::string v = DebianPackageVersion(pkg);
    env[absl::StrCat("package.", pkg)] = v.empty() ? "not installed" : v;
  }
  for (const ProbeResult& p : AllProbes()) {
    env[absl::StrCat("probe.", p.name)] = p.status.ok() ? "ok" : std::string(p.status.message());
    env[absl::StrCat("probe.", p.name, ".since")] = p.since;
  }
  return env;
}

}  // namespace spawnlab
