// readme_figures.cc: see readme_figures.h.

#include "analysis/readme_figures.h"

#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "re2/re2.h"

namespace spawnlab {
namespace analysis {
namespace {

// Blanks out what is not prose (keeping its newlines, so that lines keep
// their numbers): fenced code blocks, HTML comments, code spans.
std::string ProseOnly(absl::string_view markdown) {
  std::string out(markdown);
  auto blank = [&out](size_t from, size_t to) {
    for (size_t i = from; i < to && i < out.size(); ++i) {
      if (out[i] != '\n') out[i] = ' ';
    }
  };
  // Fences first: a ``` line opens a block, the next closes it.
  for (size_t pos = 0; (pos = out.find("```", pos)) != std::string::npos;) {
    const size_t close = out.find("```", pos + 3);
    const size_t end = close == std::string::npos ? out.size() : close + 3;
    blank(pos, end);
    pos = end;
  }
  for (size_t pos = 0; (pos = out.find("<!--", pos)) != std::string::npos;) {
    const size_t close = out.find("-->", pos);
    const size_t end = close == std::string::npos ? out.size() : close + 3;
    blank(pos, end);
    pos = end;
  }
  // A quotation on one line: a source's own words ("... 3.2x slower ...").
  for (const char* quote : {"\"", "“"}) {
    const std::string open = quote, close = open == "“" ? "”" : "\"";
    for (size_t pos = 0; (pos = out.find(open, pos)) != std::string::npos;) {
      const size_t end = out.find(close, pos + open.size());
      if (end == std::string::npos ||
          out.substr(pos, end - pos).find('\n') != std::string::npos) {
        pos += open.size();
        continue;
      }
      blank(pos, end + close.size());
      pos = end + close.size();
    }
  }
  for (size_t pos = 0; (pos = out.find('`', pos)) != std::string::npos;) {
    const size_t close = out.find('`', pos + 1);
    if (close == std::string::npos ||
        out.substr(pos, close - pos).find('\n') != std::string::npos) {
      ++pos;  // a lone backtick spans nothing
      continue;
    }
    blank(pos, close + 1);
    pos = close + 1;
  }
  return out;
}

std::string Unit(absl::string_view u) {
  if (u == "us") return "µs";
  if (u == "×") return "x";
  return std::string(u);
}

// A number as a report would print it: without thousands separators.
std::string Plain(absl::string_view number) { return absl::StrReplaceAll(number, {{",", ""}}); }

}  // namespace

std::vector<Figure> FiguresIn(absl::string_view markdown) {
  // A number not inside a word, a version or a path; an optional second end
  // of a range; the unit, not followed by a letter. A time's unit may stand
  // apart ("56 µs"); a ratio's and a share's do not ("2 x 3" is no ratio).
  static const RE2 kFigure(
      "(?:^|[^\\pL\\pN_.:/-])([0-9][0-9,]*(?:\\.[0-9]+)?)"
      "(?:(?: ?(?:–|-|to) ?)([0-9][0-9,]*(?:\\.[0-9]+)?))?"
      "((?: ?(?:µs|us|ms|ns))|x|×|%)(?:[^\\pL\\pN_]|$)");
  // The level of an interval or a confidence is the statistic's, not a figure.
  static const RE2 kLevel("^\\s+(?:intervals?|confidence|CI)\\b");
  std::vector<Figure> out;
  const std::string prose = ProseOnly(markdown);
  int line = 1;
  size_t line_start = 0;
  for (size_t nl = 0; line_start <= prose.size(); ++line, line_start = nl + 1) {
    nl = prose.find('\n', line_start);
    if (nl == std::string::npos) nl = prose.size();
    re2::StringPiece rest(prose.data() + line_start, nl - line_start);
    re2::StringPiece first, second, unit;
    // Each match consumes the character after it: go on from the unit's end,
    // so that "1.2x,1.3x" gives both.
    while (RE2::PartialMatch(rest, kFigure, &first, &second, &unit)) {
      const std::string u =
          Unit(absl::StripLeadingAsciiWhitespace(absl::string_view(unit.data(), unit.size())));
      const char* end = unit.data() + unit.size();
      const re2::StringPiece after(end, rest.data() + rest.size() - end);
      // The word after may open the next line ("a 95%\ninterval").
      const re2::StringPiece following(end, prose.data() + prose.size() - end);
      const bool level = u == "%" && RE2::PartialMatch(following, kLevel);
      if (!level) {
        const std::string sep = (u == "x" || u == "%") ? "" : " ";
        out.push_back({absl::StrCat(Plain(first.as_string()), sep, u), line});
        if (!second.empty()) {
          out.push_back({absl::StrCat(Plain(second.as_string()), sep, u), line});
        }
      }
      rest = after;
    }
    if (nl == prose.size()) break;
  }
  return out;
}

std::vector<std::string> UnbackedFigures(absl::string_view path, absl::string_view readme,
                                         absl::string_view reports) {
  // Every figure the reports print, read the same way: "2.10x" is backed by a
  // report's "2.10x", not by a "2.10" in some column of some table.
  std::set<std::string> printed;
  for (const Figure& f : FiguresIn(reports)) printed.insert(f.text);
  std::vector<std::string> problems;
  for (const Figure& f : FiguresIn(readme)) {
    if (!printed.count(f.text)) problems.push_back(absl::StrCat(path, ":", f.line, ": ", f.text));
  }
  return problems;
}

}  // namespace analysis
}  // namespace spawnlab
