// readme_figures_test.cc: which figures of a README count, and which a
// report backs.

#include "analysis/readme_figures.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace spawnlab {
namespace analysis {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

std::vector<std::string> Texts(absl::string_view markdown) {
  std::vector<std::string> out;
  for (const Figure& f : FiguresIn(markdown)) out.push_back(f.text);
  return out;
}

TEST(FiguresIn, NumbersWithATimeRatioOrShareUnit) {
  EXPECT_THAT(Texts("fork took 56.1 µs, 2.10x vfork's 26.3us; steal 15%."),
              ElementsAre("56.1 µs", "2.10x", "26.3 µs", "15%"));
  EXPECT_THAT(Texts("1.33x (1.27x to 1.40x); 50–83% of requests; 3×"),
              ElementsAre("1.33x", "1.27x", "1.40x", "50%", "83%", "3x"));
  EXPECT_THAT(Texts("69,400 requests/s took 14,2 ms"), ElementsAre("142 ms"));
}

TEST(FiguresIn, NotInCodeCommentsVersionsOrWords) {
  EXPECT_THAT(Texts("within `2%`; `--target=0.01`; <!-- 12 ms -->\n```\n5 ms\n```\n"), IsEmpty());
  EXPECT_THAT(Texts("the article \"Go starts a browser 3.2x slower\" and “5% faster”"), IsEmpty());
  EXPECT_THAT(Texts("x86-64, 0x7f, Linux 6.18, fc-v1272, 2 x 3, a 95% interval, ~95%\nintervals, 10 msec"),
              IsEmpty());
  // Lines keep their numbers across a code block.
  const std::vector<Figure> f = FiguresIn("```\na\nb\n```\n3.5x\n");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].line, 5);
}

TEST(UnbackedFigures, AFigureNoReportPrintsIsNamed) {
  const std::string reports = "| fork / vfork | 2.10x | [2.03, 2.17] |\n| fork | 56.1 µs |\n";
  EXPECT_THAT(UnbackedFigures("R.md", "fork costs 2.10x vfork (56.1us).", reports), IsEmpty());
  EXPECT_THAT(UnbackedFigures("R.md", "intro\nfork costs 2.6x vfork, 1.70–2.17x.", reports),
              ElementsAre("R.md:2: 2.6x", "R.md:2: 1.70x", "R.md:2: 2.17x"));
  // A number the reports print without the unit does not back a figure.
  EXPECT_THAT(UnbackedFigures("R.md", "2.03 µs", reports), ElementsAre("R.md:1: 2.03 µs"));
}

}  // namespace
}  // namespace analysis
}  // namespace spawnlab
