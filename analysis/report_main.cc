// report_main.cc: bazel run //analysis:report [-- --results=DIR --reports=DIR]
//
// Reads every results file under results/ and each experiment's report spec
// (experiments/*/report.json), and writes reports/ (see report.h).
// A file that cannot be read is named with what is wrong, listed in the index,
// and makes the exit code 1; the other files are still reported. Generated
// files that no longer have results are removed; other files are left alone.

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "analysis/claims.h"
#include "analysis/report.h"
#include "lib/runfiles.h"
#include "lib/safe_file.h"
#include "results_model/results_file.h"

ABSL_FLAG(std::string, results, "", "Results folder (default: <workspace>/results).");
ABSL_FLAG(std::string, reports, "", "Reports folder (default: <workspace>/reports).");
ABSL_FLAG(std::string, readme, "",
          "The README whose experiments table to regenerate, between its marker lines "
          "(default: <workspace>/README.md when --reports is not given; none otherwise).");
ABSL_FLAG(std::string, changes, "",
          "Also write reports/changes/<before>-to-<after>.md: BEFORE[/HOST]:AFTER[/HOST], "
          "two kernel releases (with a host where a release ran on several).");
ABSL_FLAG(std::string, claims, "", "Claims file (default: analysis/claims.json from runfiles).");
ABSL_FLAG(std::string, experiments, "",
          "Folder of experiments, each with its report spec report.json (default: "
          "<workspace>/experiments).");

namespace {

std::string InWorkspace(const char* name) {
  const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY");
  return absl::StrCat(ws != nullptr ? ws : ".", "/", name);
}

// A path as the user typed it: relative to where `bazel run` was started.
std::string AsTyped(const std::string& path) {
  const char* cwd = std::getenv("BUILD_WORKING_DIRECTORY");
  if (path.empty() || path[0] == '/' || cwd == nullptr || *cwd == '\0') return path;
  return absl::StrCat(cwd, "/", path);
}

// A file's text, or "" where there is none to read.
std::string ReadFile(const std::string& path) {
  return spawnlab::ReadFileToString(path).value_or("");
}

}  // namespace

namespace fs = std::filesystem;

namespace {

// Removes the generated reports that `files` no longer holds (a run's page in
// an experiment's folder too), but for the changes pages; the links of a
// folder are not followed, and a file without the generated marker is left
// alone.
void RemoveStale(const std::string& reports_dir, const std::map<std::string, std::string>& files) {
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(reports_dir, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it.depth() > 0) it.disable_recursion_pending();  // one level of folders
    if (!it->is_regular_file(ec) || it->is_symlink(ec)) continue;
    const std::string name = fs::relative(it->path(), reports_dir, ec).generic_string();
    if (!(absl::EndsWith(name, ".md") || absl::EndsWith(name, ".svg")) || files.count(name)) {
      continue;
    }
    // A changes page is written only on request (--changes): it stays.
    if (absl::StartsWith(name, "changes/")) continue;
    if (absl::StartsWith(ReadFile(it->path().string()), spawnlab::analysis::kGeneratedMarker)) {
      fs::remove(it->path(), ec);
    }
  }
}

// Lists the changes pages (those --changes writes now and those earlier runs
// left in reports/changes/) in the index, before its machines: what changed
// between kernels is what a new kernel's reader looks for first.
void LinkChangesPages(const std::string& reports_dir, std::map<std::string, std::string>& files) {
  std::set<std::string> pages;
  for (const auto& [name, text] : files) {
    if (absl::StartsWith(name, "changes/") && absl::EndsWith(name, ".md")) pages.insert(name);
  }
  std::error_code ec;
  for (auto it = fs::directory_iterator(reports_dir + "/changes", ec);
       !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const std::string leaf = it->path().filename().string();
    if (it->is_regular_file(ec) && !it->is_symlink(ec) && absl::EndsWith(leaf, ".md") &&
        absl::StartsWith(ReadFile(it->path().string()), spawnlab::analysis::kGeneratedMarker)) {
      pages.insert("changes/" + leaf);
    }
  }
  auto index = files.find("README.md");
  const std::string before = "## Machines and kernels";
  if (pages.empty() || index == files.end()) return;
  const size_t at = index->second.find(before);
  if (at == std::string::npos) return;
  std::string section =
      "## Changes between kernels\n\nWhat changed from one kernel to the next on a host "
      "(`bazel run //:suite -- --against=KERNEL[/HOST]`, README.md, \"When a kernel is "
      "released\"):\n\n";
  for (const std::string& page : pages) {
    absl::StrAppend(&section, "- [", page.substr(8, page.size() - 8 - 3), "](", page, ")\n");
  }
  index->second.insert(at, section + "\n");
}

// Writes each changed file whole or not at all (a full disk leaves the
// previous file, not half an SVG); a run's page goes into its experiment's
// folder, made here, and a link planted in its place is refused rather than
// followed. Returns how many files changed.
absl::StatusOr<int> WriteReports(const std::string& reports_dir,
                                 const std::map<std::string, std::string>& files) {
  int written = 0;
  for (const auto& [name, text] : files) {
    const std::string path = absl::StrCat(reports_dir, "/", name);
    if (const fs::path dir = fs::path(path).parent_path(); dir != fs::path(reports_dir)) {
      std::error_code ec;
      if (fs::is_symlink(fs::symlink_status(dir, ec))) {
        return absl::FailedPreconditionError(
            absl::StrCat(dir.string(), " is a symbolic link; not written through"));
      }
      fs::create_directory(dir, ec);
      if (ec) {
        return absl::InternalError(
            absl::StrCat("cannot create ", dir.string(), ": ", ec.message()));
      }
    }
    if (ReadFile(path) == text) continue;  // unchanged: leave the file as it is
    if (absl::Status s = spawnlab::WriteFileAtomically(path, text); !s.ok()) return s;
    ++written;
  }
  return written;
}

// Adds the page of --changes=BEFORE:AFTER to `files`. A changes page is kept
// when later reports are made without the flag: it is removed only by hand.
absl::Status AddChangesPage(const std::string& spec, const spawnlab::ResultsSet& set,
                            const std::vector<spawnlab::analysis::Claim>& claims,
                            const std::map<std::string, spawnlab::analysis::ReportSpec>& specs,
                            std::map<std::string, std::string>& files) {
  const size_t colon = spec.find(':');
  if (colon == std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", spec, "' is not BEFORE:AFTER (e.g. 6.18.44-fc-v782:6.18.44-fc-v1272)"));
  }
  absl::StatusOr<spawnlab::analysis::RunSelector> before =
      spawnlab::analysis::ParseRunSelector(spec.substr(0, colon));
  absl::StatusOr<spawnlab::analysis::RunSelector> after =
      spawnlab::analysis::ParseRunSelector(spec.substr(colon + 1));
  if (!before.ok()) return before.status();
  if (!after.ok()) return after.status();
  absl::StatusOr<std::string> page =
      spawnlab::analysis::ChangesPage(set, claims, specs, *before, *after);
  if (!page.ok()) return page.status();
  const std::string name = spawnlab::analysis::ChangesPageName(*before, *after);
  files[name] = *std::move(page);
  std::cerr << "changes: reports/" << name << "\n";
  return absl::OkStatus();
}

// Regenerates the experiments table of `readme` (its text between the two
// marker lines); a README without them is left alone, with a note.
absl::Status WriteExperimentsTable(const std::string& readme, const std::string& table) {
  std::error_code ec;
  if (fs::is_symlink(fs::symlink_status(readme, ec))) {
    return absl::FailedPreconditionError(
        absl::StrCat(readme, " is a symbolic link; not written through"));
  }
  const std::string text = ReadFile(readme);
  absl::StatusOr<std::string> spliced = spawnlab::analysis::SpliceExperimentsTable(text, table);
  if (!spliced.ok()) {
    std::cerr << "note: " << readme << ": " << spliced.status().message() << "; left alone\n";
    return absl::OkStatus();
  }
  if (*spliced == text) return absl::OkStatus();
  return spawnlab::WriteFileAtomically(readme, *spliced);
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage("Turns results/ into the markdown reports of reports/.");
  std::vector<char*> rest = absl::ParseCommandLine(argc, argv);
  if (rest.size() > 1) {
    std::cerr << "error: unexpected argument '" << rest[1] << "'\n";
    return 2;
  }
  std::string results_dir = AsTyped(absl::GetFlag(FLAGS_results));
  std::string reports_dir = AsTyped(absl::GetFlag(FLAGS_reports));
  std::string claims_path = AsTyped(absl::GetFlag(FLAGS_claims));
  std::string experiments_dir = AsTyped(absl::GetFlag(FLAGS_experiments));
  if (experiments_dir.empty()) experiments_dir = InWorkspace("experiments");
  if (results_dir.empty()) results_dir = InWorkspace("results");
  if (reports_dir.empty()) reports_dir = InWorkspace("reports");
  if (claims_path.empty()) {
    absl::StatusOr<std::string> found = spawnlab::Runfile("analysis/claims.json");
    if (!found.ok()) {
      std::cerr << "error: " << found.status() << " (give --claims=PATH)\n";
      return 2;
    }
    claims_path = *found;
  }
  struct stat st;
  if (stat(results_dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    std::cerr << "error: " << results_dir << " is not a folder (give --results=DIR)\n";
    return 2;
  }
  absl::StatusOr<std::vector<spawnlab::analysis::Claim>> claims =
      spawnlab::analysis::LoadClaims(claims_path);
  if (!claims.ok()) {
    std::cerr << "error: " << claims.status().message() << "\n";
    return 2;
  }
  absl::StatusOr<std::map<std::string, spawnlab::analysis::ReportSpec>> specs =
      spawnlab::analysis::LoadReportSpecs(experiments_dir);
  if (absl::IsNotFound(specs.status()) && absl::GetFlag(FLAGS_experiments).empty()) {
    // No experiments beside the results (a results folder copied on its own):
    // the reports show every row, without the specs' charts and tables.
    std::cerr << "note: " << specs.status().message() << ": reports without charts\n";
    specs = std::map<std::string, spawnlab::analysis::ReportSpec>();
  }
  if (!specs.ok()) {
    std::cerr << "error: " << specs.status().message() << " (give --experiments=DIR)\n";
    return 2;
  }
  spawnlab::ResultsSet set = spawnlab::LoadResultsDir(results_dir);
  for (const absl::Status& e : set.errors) std::cerr << "error: " << e.message() << "\n";
  // A mistyped --results would otherwise turn every report into "no results"
  // and remove the ones it no longer produces: a folder with no JSON file at
  // all (quick and filtered runs count here) is no results folder.
  bool any_json = false;
  std::error_code walk_ec;
  for (auto it = std::filesystem::recursive_directory_iterator(results_dir, walk_ec);
       !walk_ec && it != std::filesystem::recursive_directory_iterator() && !any_json;
       it.increment(walk_ec)) {
    any_json = absl::EndsWith(it->path().filename().string(), ".json");
  }
  if (!any_json) {
    std::cerr << "error: " << results_dir
              << " holds no results file; reports/ is left as it was (give --results=DIR)\n";
    return 2;
  }

  std::error_code ec;
  fs::create_directories(reports_dir, ec);
  if (ec) {
    std::cerr << "error: cannot create " << reports_dir << ": " << ec.message() << "\n";
    return 2;
  }
  std::map<std::string, std::string> files = spawnlab::analysis::BuildReports(set, *claims, *specs);
  if (const std::string changes = absl::GetFlag(FLAGS_changes); !changes.empty()) {
    absl::Status s = AddChangesPage(changes, set, *claims, *specs, files);
    if (!s.ok()) {
      std::cerr << "error: --changes: " << s.message() << "\n";
      return 2;
    }
  }
  LinkChangesPages(reports_dir, files);
  RemoveStale(reports_dir, files);
  absl::StatusOr<int> written = WriteReports(reports_dir, files);
  if (!written.ok()) {
    std::cerr << "error: " << written.status().message() << "\n";
    return 2;
  }
  std::string readme = AsTyped(absl::GetFlag(FLAGS_readme));
  if (readme.empty() && absl::GetFlag(FLAGS_reports).empty()) readme = InWorkspace("README.md");
  if (!readme.empty()) {
    absl::Status s =
        WriteExperimentsTable(readme, spawnlab::analysis::ExperimentsTable(set, *specs));
    if (!s.ok()) {
      std::cerr << "error: " << s.message() << "\n";
      return 2;
    }
  }
  std::cerr << "reports: " << files.size() << " files in " << reports_dir << " (" << *written
            << " changed) from " << set.files.size() << " results files";
  if (!set.errors.empty()) std::cerr << "; " << set.errors.size() << " could not be read";
  std::cerr << "\n";
  return set.errors.empty() ? 0 : 1;
}
