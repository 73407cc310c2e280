// refile_hosts.cc: see refile_hosts.h.

#include "analysis/refile_hosts.h"

#include <filesystem>
#include <map>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "results_model/benchmark_json.h"
#include "results_model/host_id.h"

namespace spawnlab {
namespace analysis {
namespace {

namespace fs = std::filesystem;

absl::StatusOr<std::map<std::string, std::string>> ReadContext(const fs::path& file) {
  absl::StatusOr<nlohmann::json> doc = ReadBenchmarkJsonFile(file.string());
  if (!doc.ok()) {
    return absl::Status(doc.status().code(),
                        absl::StrCat(doc.status().message(), ": not a results file"));
  }
  std::map<std::string, std::string> context;
  if (doc->contains("context") && (*doc)["context"].is_object()) {
    for (auto& [key, value] : (*doc)["context"].items()) {
      context[key] = value.is_string() ? value.get<std::string>() : value.dump();
    }
  }
  return context;
}

}  // namespace

absl::StatusOr<std::vector<Move>> PlanRefiling(const std::string& results_dir) {
  std::error_code ec;
  if (!fs::is_directory(results_dir, ec)) {
    return absl::InvalidArgumentError(absl::StrCat(results_dir, " is not a folder"));
  }
  std::vector<Move> moves;
  std::set<std::string> destinations;
  for (const fs::directory_entry& kernel : fs::directory_iterator(results_dir)) {
    if (!kernel.is_directory()) continue;
    for (const fs::directory_entry& host : fs::directory_iterator(kernel.path())) {
      if (!host.is_directory()) continue;
      for (const fs::directory_entry& file : fs::directory_iterator(host.path())) {
        if (!file.is_regular_file() || file.path().extension() != ".json") continue;
        absl::StatusOr<std::map<std::string, std::string>> context = ReadContext(file.path());
        if (!context.ok()) return context.status();
        if (!context->count("cpu.model")) continue;
        const std::string id = HostIdFrom(HostIdentityFromContext(*context));
        if (id == host.path().filename().string()) continue;
        const fs::path to = kernel.path() / id / file.path().filename();
        if (fs::exists(to, ec) || !destinations.insert(to.string()).second) {
          return absl::FailedPreconditionError(
              absl::StrCat(file.path().string(), " would replace ", to.string()));
        }
        moves.push_back({file.path().string(), to.string()});
      }
    }
  }
  return moves;
}

absl::Status ApplyRefiling(const std::vector<Move>& moves) {
  std::set<fs::path> left;
  for (const Move& m : moves) {
    std::error_code ec;
    fs::create_directories(fs::path(m.to).parent_path(), ec);
    if (ec) return absl::InternalError(absl::StrCat("create ", m.to, ": ", ec.message()));
    fs::rename(m.from, m.to, ec);
    if (ec) return absl::InternalError(absl::StrCat("rename ", m.from, ": ", ec.message()));
    left.insert(fs::path(m.from).parent_path());
  }
  for (const fs::path& dir : left) {
    std::error_code ec;
    if (fs::is_empty(dir, ec)) fs::remove(dir, ec);
  }
  return absl::OkStatus();
}

}  // namespace analysis
}  // namespace spawnlab
