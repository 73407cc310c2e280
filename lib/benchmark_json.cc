// benchmark_json.cc: see benchmark_json.h.

#include "lib/benchmark_json.h"

#include "absl/strings/match.h"

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

nlohmann::json ParseBenchmarkJson(absl::string_view text) {
  const std::string cleaned = NullNonFinite(text);
  return nlohmann::json::parse(cleaned, nullptr, /*allow_exceptions=*/false);
}

}  // namespace spawnlab
