// benchmark_json.cc: see benchmark_json.h.

#include "results_model/benchmark_json.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace spawnlab {

std::string NullNonFinite(absl::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out.push_back(c);
      if (c == '\\' && i + 1 < text.size()) {
        out.push_back(text[++i]);
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
      out.push_back(c);
      continue;
    }
    bool replaced = false;
    for (absl::string_view token : {"-Infinity", "Infinity", "-NaN", "NaN"}) {
      if (absl::StartsWith(text.substr(i), token)) {
        out += "null";
        i += token.size() - 1;
        replaced = true;
        break;
      }
    }
    if (!replaced) out.push_back(c);
  }
  return out;
}

int JsonNestingDepth(absl::string_view text) {
  int depth = 0, deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

nlohmann::json ParseBenchmarkJson(absl::string_view text) {
  if (JsonNestingDepth(text) > kMaxJsonDepth)
    return nlohmann::json(nlohmann::json::value_t::discarded);
  const std::string cleaned = NullNonFinite(text);
  return nlohmann::json::parse(cleaned, nullptr, /*allow_exceptions=*/false);
}

absl::StatusOr<std::string> ReadFileText(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": is a directory, not a results file"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot be opened"));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

absl::StatusOr<nlohmann::json> ReadBenchmarkJsonFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFileText(path);
  if (!text.ok()) return text.status();
  nlohmann::json doc = ParseBenchmarkJson(*text);
  if (doc.is_discarded() || !doc.is_object()) {
    return absl::DataLossError(absl::StrCat(path, ": not a JSON object (truncated or corrupt?)"));
  }
  return doc;
}

}  // namespace spawnlab
