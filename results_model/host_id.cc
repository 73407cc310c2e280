// host_id.cc: see host_id.h.

#include "results_model/host_id.h"

#include <cstdint>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace spawnlab {

std::string VulnerabilityClass(const std::string& status) {
  if (absl::StartsWith(status, "Not affected")) return "Not affected";
  if (absl::StartsWith(status, "Mitigation")) return "Mitigation";
  if (absl::StartsWith(status, "Vulnerable")) return "Vulnerable";
  return status.empty() ? "" : "Unknown";
}

HostIdentity HostIdentityFromContext(const std::map<std::string, std::string>& context) {
  auto get = [&context](const std::string& key) {
    auto it = context.find(key);
    return it == context.end() ? std::string() : it->second;
  };
  HostIdentity id;
  id.cpu_model = get("cpu.model");
  if (!absl::SimpleAtoi(get("cpu.online"), &id.cpus)) (void)absl::SimpleAtoi(get("num_cpus"), &id.cpus);
  id.virtualization = get("virtualization");
  for (const char* name : kHashedVulnerabilities) {
    const std::string status = get(absl::StrCat("mitigation.", name));
    if (!status.empty()) id.vulnerabilities[name] = VulnerabilityClass(status);
  }
  return id;
}

std::string HostIdFrom(const HostIdentity& identity) {
  // A slug of the model ("AMD EPYC 7B13 64-Core Processor" -> "amd-epyc-7b13").
  std::vector<std::string> words;
  for (absl::string_view word :
       absl::StrSplit(identity.cpu_model, absl::ByAnyChar(" ()@-_"), absl::SkipEmpty())) {
    std::string w;
    for (char c : word) {
      if (absl::ascii_isalnum(c)) w.push_back(absl::ascii_tolower(c));
    }
    if (w.empty() || w == "processor" || w == "cpu" || w == "r" || w == "tm" ||
        absl::EndsWith(w, "core") || absl::EndsWith(w, "ghz")) {
      continue;
    }
    words.push_back(w);
    if (words.size() == 3) break;
  }
  const std::string slug = words.empty() ? "cpu" : absl::StrJoin(words, "-");
  const std::string text = absl::StrCat(
      identity.cpu_model, "|", identity.cpus, "|", identity.virtualization, "|",
      absl::StrJoin(identity.vulnerabilities, ",", absl::PairFormatter("=")));
  uint64_t h = 14695981039346656037ull;  // FNV-1a
  for (char c : text) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return absl::StrCat(slug, "-", identity.cpus, "cpu-", absl::Hex(h & 0xffffff, absl::kZeroPad6));
}

}  // namespace spawnlab
