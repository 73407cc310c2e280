// report_experiment.cc: one experiment's report page: rows, environment, across kernels, and the
// sections in order.

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "analysis/report_sections.h"
#include "results_model/context_keys.h"
#include "results_model/stats.h"

namespace spawnlab {
namespace analysis {

namespace {

std::string RowsTable(const ResultsFile& f) {
  std::vector<double> medians;
  for (const Series& s : f.series) {
    if (s.measured()) medians.push_back(s.Median());
  }
  const TimeUnit unit = UnitFor(medians);
  std::string out =
      absl::StrCat("| row | median (", unit.name, ") | min (", unit.name, ") | stddev (", unit.name,
                   ") | cv | n |\n|---|---:|---:|---:|---:|---:|\n");
  for (const Series& s : f.series) {
    if (!s.measured()) continue;
    const double med = s.Median(), sd = s.Stddev(), mean = s.Mean();
    absl::StrAppend(&out, "| `", s.name, "` | ", InUnit(med, unit), " | ", InUnit(s.Min(), unit),
                    " | ", InUnit(sd, unit), " | ", Percent(sd / mean), " | ", s.Repetitions(),
                    " |\n");
  }
  std::string skipped;
  for (const Series& s : f.series) {
    if (!s.skipped.empty()) {
      absl::StrAppend(&skipped, "| `", s.name, "` | skipped | ", Cell(s.skipped), " |\n");
    } else if (!s.error.empty()) {
      absl::StrAppend(&skipped, "| `", s.name, "` | **failed** | ", Cell(s.error), " |\n");
    }
  }
  if (!skipped.empty()) {
    absl::StrAppend(&out, "\nRows that did not run:\n\n| row | | why |\n|---|---|---|\n", skipped);
  }
  return out;
}

std::string Environment(const ResultsFile& f) {
  std::string out =
      "<details><summary>Environment (the results' context block)</summary>\n\n"
      "| key | value |\n|---|---|\n";
  for (const auto& [key, value] : f.context) {
    if (key == "caches" || key == "load_avg" || key == "executable") continue;
    absl::StrAppend(&out, "| `", key, "` | ", Cell(value), " |\n");
  }
  absl::StrAppend(&out, "\n</details>\n\n");
  return out;
}

// The rows an experiment is summed up by across kernels: its spec's key rows,
// its key ratios' rows and its drift canary, each once, in that order.
std::vector<std::string> KeyRows(const ReportSpec& spec, const ResultsFile& f) {
  std::vector<std::string> rows = spec.key_rows;
  for (const KeyRatioSpec& k : spec.key_ratios) {
    rows.push_back(k.numerator);
    rows.insert(rows.end(), k.denominators.begin(), k.denominators.end());
  }
  if (std::string canary = Ctx(f, spawnlab::keys::kCanaryRow); !canary.empty() && canary != "—") {
    rows.push_back(canary);
  }
  std::vector<std::string> unique;
  std::set<std::string> seen;
  for (const std::string& r : rows) {
    if (seen.insert(r).second) unique.push_back(r);
  }
  return unique;
}

// A change is shown only against a file that differs from the first in
// exactly one of kernel and host: where both differ, neither explains it.
bool Comparable(const ResultsFile& base, const ResultsFile& f) {
  return (f.kernel() == base.kernel()) != (f.host() == base.host());
}

// The column each column's change is against: the nearest column before it
// that differs in exactly one of kernel and host, the same host (a kernel
// change) before the same kernel (a host change); -1 where there is none.
std::vector<int> ChangeBases(const std::vector<const ResultsFile*>& files) {
  std::vector<int> bases(files.size(), -1);
  for (size_t i = 1; i < files.size(); ++i) {
    for (int j = static_cast<int>(i) - 1; j >= 0; --j) {
      if (!Comparable(*files[j], *files[i])) continue;
      if (bases[i] < 0) bases[i] = j;
      if (files[j]->host() == files[i]->host()) {
        bases[i] = j;
        break;
      }
    }
  }
  return bases;
}

// The across-kernels table's heading, header and rule.
std::string AcrossHeader(const std::vector<const ResultsFile*>& files,
                         const std::vector<int>& bases, const TimeUnit& unit) {
  std::string out = absl::StrCat(
      "## Across kernels and hosts\n\nMedians in ", unit.name,
      "; each column is one results file, oldest kernel first. *change*: against the nearest "
      "column before it that differs in exactly one of kernel and host (the header says which, "
      "and from what); a column with none is *not comparable*, its medians side by side. A "
      "change is the ratio new / old with its 95% interval (Hodges-Lehmann on the logs, Moses "
      "bounds), over each process's median where both runs were made of several processes, "
      "else over the repetitions (marked †). It is **called** only where neither run is noisy, "
      "its interval excludes 1, and it moved further than the same row between the older run "
      "and its rerun (where that rerun exists).\n\n| row |");
  std::string rule = "|---|";
  for (size_t i = 0; i < files.size(); ++i) {
    const ResultsFile* f = files[i];
    absl::StrAppend(&out, " ", Cell(f->kernel()), " on ", Cell(f->host()),
                    f->quick() ? " (quick)" : "", NoisyMark(*f) == "**noisy**" ? " (noisy)" : "",
                    " |");
    absl::StrAppend(&rule, "---:|");
    if (i == 0) continue;
    if (bases[i] < 0) {
      absl::StrAppend(&out, " not comparable |");
    } else {
      const ResultsFile& base = *files[bases[i]];
      absl::StrAppend(&out, base.kernel() != f->kernel()
                                ? absl::StrCat(" change (kernel, from ", Cell(base.kernel()), ") |")
                                : absl::StrCat(" change (host, from ", Cell(base.host()), ") |"));
    }
    absl::StrAppend(&rule, "---:|");
  }
  return absl::StrCat(out, "\n", rule, "\n");
}

// A row's change from `old` to `now`: "1.07x [1.03, 1.11]", bold where it is
// called: `may_call` (neither run noisy), its interval excludes 1, and it
// moved further than `rerun_move` (the row's own |log| move between the older
// run and its rerun, 0 where unknown).
std::string Change(const Series& old, const Series& now, double rerun_move, bool may_call) {
  std::vector<double> a = now.ProcessMedians(), b = old.ProcessMedians();
  const bool processes = a.size() >= 2 && b.size() >= 2;
  if (!processes) {
    a = now.samples_ns;
    b = old.samples_ns;
  }
  if (a.size() < 2 || b.size() < 2) return "n/a";
  const Interval r = RatioInterval(a, b);
  if (!(r.estimate > 0) || !(r.low > 0)) return "n/a";
  const bool called =
      may_call && (r.low > 1 || r.high < 1) && std::fabs(std::log(r.estimate)) > rerun_move;
  const std::string text =
      absl::StrFormat("%.2fx [%.2f, %.2f]%s", r.estimate, r.low, r.high, processes ? "" : " †");
  return called ? absl::StrCat("**", text, "**") : text;
}

// One row of the across-kernels table: its median in each file, and its
// change against its base column where it has one.
std::string AcrossRow(const std::vector<const ResultsFile*>& files, const std::vector<int>& bases,
                      const std::string& name, const TimeUnit& unit,
                      const std::vector<ResultsFile>& reruns) {
  std::string out = absl::StrCat("| `", name, "` |");
  for (size_t i = 0; i < files.size(); ++i) {
    const Series* s = files[i]->Find(name);
    absl::StrAppend(&out, " ",
                    s == nullptr    ? "—"
                    : s->measured() ? InUnit(s->Median(), unit)
                                    : "skipped",
                    " |");
    if (i == 0) continue;
    const Series* old = bases[i] < 0 ? nullptr : files[bases[i]]->Find(name);
    if (s == nullptr || old == nullptr || !s->measured() || !old->measured()) {
      absl::StrAppend(&out, " — |");
      continue;
    }
    // How far the row moved between the older run and its rerun, if any.
    const double rerun_move =
        RerunMove(*files[bases[i]], reruns, [&name](const ResultsFile& f) -> std::optional<double> {
          const Series* row = f.Find(name);
          if (row == nullptr || !row->measured()) return std::nullopt;
          return row->Median();
        }).value_or(0);
    absl::StrAppend(&out, " ", Change(*old, *s, rerun_move, BothQuiet(*files[i], *files[bases[i]])),
                    " |");
  }
  return absl::StrCat(out, "\n");
}

// A chart of one key row: its median on each kernel and host, from zero;
// empty where fewer than two files measured it.
std::string AcrossChart(const std::vector<const ResultsFile*>& files, const std::string& row) {
  std::vector<std::string> xs;
  std::vector<double> medians;
  for (const ResultsFile* f : files) {
    const Series* s = f->Find(row);
    if (s == nullptr || !s->measured()) continue;
    xs.push_back(absl::StrCat("\"", f->kernel(), " on ", f->host(), "\""));
    medians.push_back(s->Median());
  }
  if (xs.size() < 2) return "";
  const TimeUnit unit = UnitFor(medians);
  const std::string ascii = unit.name == std::string("µs") ? "us" : unit.name;
  std::vector<std::string> ys;
  double max = 0;
  for (double m : medians) {
    ys.push_back(absl::StrFormat(m / unit.ns < 10 ? "%.2f" : "%.1f", m / unit.ns));
    max = std::max(max, m / unit.ns);
  }
  // The row's name above the chart: as a Mermaid title it would be cut off.
  return absl::StrCat("`", row, "`:\n\n```mermaid\nxychart-beta horizontal\n",
                      "    title \"by kernel and host (median, ", ascii, ")\"\n    x-axis [",
                      absl::StrJoin(xs, ", "), "]\n",
                      absl::StrFormat("    y-axis \"%s\" 0 --> %g\n", ascii, AxisTop(max)),
                      "    bar [", absl::StrJoin(ys, ", "), "]\n```\n\n");
}

std::string AcrossKernels(const std::vector<const ResultsFile*>& all, const ReportSpec& spec,
                          const std::vector<ResultsFile>& reruns) {
  std::vector<const ResultsFile*> files;  // UML's times compare with nothing
  for (const ResultsFile* f : all) {
    if (!f->uml()) files.push_back(f);
  }
  if (files.size() < 2) return "";
  std::vector<double> medians;
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (const ResultsFile* f : files) {
    for (const Series& s : f->series) {
      if (s.measured()) medians.push_back(s.Median());
      if (seen.insert(s.name).second) names.push_back(s.name);
    }
  }
  const TimeUnit unit = UnitFor(medians);
  const std::vector<int> bases = ChangeBases(files);
  std::string out = AcrossHeader(files, bases, unit);
  for (const std::string& name : names) {
    absl::StrAppend(&out, AcrossRow(files, bases, name, unit, reruns));
  }
  absl::StrAppend(&out, "\n");
  for (const std::string& row : KeyRows(spec, *files[0])) {
    absl::StrAppend(&out, AcrossChart(files, row));
  }
  return absl::StrCat(out, "\n");
}

}  // namespace

namespace {

// A name safe in a file name: [A-Za-z0-9._-], anything else '_'.
std::string FileSafe(std::string s) {
  for (char& ch : s) {
    const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                    (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '-';
    if (!ok) ch = '_';
  }
  return s;
}

// The page of each run, relative to reports/: "<experiment>/<kernel>-<host>.md",
// with what its file name adds to the experiment's (".quick", ".headline");
// the file's whole name where two would share one.
std::map<const ResultsFile*, std::string> RunPages(const std::string& experiment,
                                                   const std::vector<const ResultsFile*>& files) {
  std::map<const ResultsFile*, std::string> pages;
  std::set<std::string> taken;
  for (const ResultsFile* f : files) {
    std::string base = std::filesystem::path(f->path).filename().string();
    if (absl::EndsWith(base, ".json")) base.resize(base.size() - 5);
    const std::string suffix =
        absl::StartsWith(base, f->experiment()) ? base.substr(f->experiment().size()) : "";
    std::string name = FileSafe(absl::StrCat(f->kernel(), "-", f->host(), suffix));
    if (taken.count(name)) name = FileSafe(absl::StrCat(name, ".", base));
    taken.insert(name);
    pages[f] = absl::StrCat(experiment, "/", name, ".md");
  }
  return pages;
}

// "x/y.md" -> "y.md": a page's name as its folder's neighbours see it.
std::string Leaf(const std::string& page) { return page.substr(page.rfind('/') + 1); }

// How many of the bench's rows a run measured: 2 every row, 1 a headline or
// filtered run, 0 a quick one.
int Breadth(const ResultsFile& f) {
  const std::string kind = Ctx(f, spawnlab::keys::kRunKind);
  return f.quick() ? 0 : (kind == "full" || kind == "—") ? 2 : 1;
}

// How far a run can speak for the experiment (FindingsRun).
int Standing(const ResultsFile& f) { return Breadth(f) * 2 + (NoisyMark(f) == "quiet" ? 1 : 0); }

// Everything one run measured: its conditions, sections and rows.
std::string RunDetail(const std::string& experiment, const ReportSpec& spec, const ResultsFile& f,
                      const std::vector<const ResultsFile*>& all,
                      const std::vector<ResultsFile>& reruns, int* next_svg,
                      std::map<std::string, std::string>* out) {
  std::string page = absl::StrCat(kGeneratedMarker, "\n\n# ", experiment, ": ", Cell(f.kernel()),
                                  " on ", Cell(f.host()), f.quick() ? " (quick run)" : "", "\n\n",
                                  f.uml() ? absl::StrCat(UmlCaveat(f), "\n\n") : "",
                                  "Back to the findings: [", experiment, ".md](../", experiment,
                                  ".md). From `", f.path, "`, git ", ShortRevision(f), ", ",
                                  Ctx(f, "cpu.model"), ", ", Ctx(f, "virtualization"), ".\n\n");
  if (f.quick()) {
    absl::StrAppend(&page, "This is a `--quick` smoke run: too few repetitions to conclude ",
                    "anything.\n\n");
  }
  absl::StrAppend(&page, "Times are per operation. *median*, *min*, *stddev* and *cv* are over ",
                  "the *n* repetitions of each row; compare rows within one run.\n\n");
  if (f.uml()) {  // its times would only mislead: which rows ran, and why others did not
    return absl::StrCat(page, RunConditions(f), UmlRatioTable(f, spec), RowsTable(f), "\n",
                        Environment(f));
  }
  absl::StrAppend(&page, RunConditions(f), HeadlineSection(f, spec.headline),
                  HarnessOverhead(f, spec.harness_overhead), KeyRatioTable(f, spec),
                  Charts(f, spec, experiment, "../", next_svg, out));
  if (spec.has_cross_check) absl::StrAppend(&page, CrossCheck(f, spec.cross_check, all, reruns));
  if (!f.quick()) absl::StrAppend(&page, ReproducibilitySection(f, reruns));
  return absl::StrCat(page, CounterTables(f, spec), RowsTable(f), "\n", Environment(f));
}

// Every run, one line each, with its page.
std::string RunsTable(const std::vector<const ResultsFile*>& files,
                      const std::map<const ResultsFile*, std::string>& pages) {
  std::string out =
      "## Every run\n\n| kernel | host | started | git | kind | noisy | detail |\n"
      "|---|---|---|---|---|---|---|\n";
  for (const ResultsFile* f : files) {
    const std::string& page = pages.at(f);
    const std::string kind = f->uml()     ? "UML (functional only)"
                             : f->quick() ? "quick"
                                          : Ctx(*f, spawnlab::keys::kRunKind);
    absl::StrAppend(&out, "| ", Cell(f->kernel()), " | ", Cell(f->host()), " | ",
                    Ctx(*f, "run.start"), " | ", ShortRevision(*f), " | ", kind, " | ",
                    NoisyMark(*f), " | [", Leaf(page), "](", page, ") |\n");
  }
  return absl::StrCat(out, "\n");
}

}  // namespace

// The rows a run has, measured, skipped or failed alike.
std::set<std::string> RowNames(const ResultsFile& f) {
  std::set<std::string> names;
  for (const spawnlab::Series& s : f.series) names.insert(s.name);
  return names;
}

namespace {

bool Newer(const ResultsFile& a, const ResultsFile& b) {
  return Ctx(a, "run.start") > Ctx(b, "run.start");
}

}  // namespace

const ResultsFile* NewestWidestRun(const std::vector<const ResultsFile*>& files) {
  const ResultsFile* now = nullptr;
  for (const ResultsFile* f : files) {
    if (f->uml()) continue;
    if (now == nullptr || Breadth(*f) > Breadth(*now) ||
        (Breadth(*f) == Breadth(*now) && Newer(*f, *now))) {
      now = f;
    }
  }
  return now;
}

const ResultsFile* FindingsRun(const std::vector<const ResultsFile*>& files) {
  // The bench as it is now: the rows of its newest run of the widest kind. A
  // run that lacks one of them measured an older shape of the bench.
  const ResultsFile* now = NewestWidestRun(files);
  if (now == nullptr) return nullptr;
  const std::set<std::string> rows_now = RowNames(*now);
  std::map<const ResultsFile*, int> rank;
  for (const ResultsFile* f : files) {
    const std::set<std::string> rows = RowNames(*f);
    const bool current = std::includes(rows.begin(), rows.end(), rows_now.begin(), rows_now.end());
    rank[f] = (current ? 8 : 0) + Standing(*f);
  }
  const ResultsFile* best = nullptr;
  for (const ResultsFile* f : files) {
    if (f->uml()) continue;
    if (best == nullptr || rank[f] > rank[best] || (rank[f] == rank[best] && Newer(*f, *best))) {
      best = f;
    }
  }
  return best;
}

std::string RunLine(const ResultsFile& f) {
  return absl::StrCat("**", Cell(f.kernel()), " on ", Cell(f.host()), "**, git ", ShortRevision(f),
                      ", started ", Ctx(f, "run.start"), ", ",
                      f.quick() ? "a `--quick` smoke, " : "", NoisyMark(f));
}

void ExperimentPages(const std::string& experiment, const ReportSpec& spec,
                     const std::vector<const ResultsFile*>& files_in,
                     const std::vector<const ResultsFile*>& all,
                     const std::vector<ResultsFile>& reruns,
                     std::map<std::string, std::string>* out) {
  int next_svg = 1;
  // Real machines first; runs under User-Mode Linux after them.
  std::vector<const ResultsFile*> files = files_in;
  std::stable_partition(files.begin(), files.end(), [](const ResultsFile* f) { return !f->uml(); });
  const ResultsFile* findings = FindingsRun(files);
  const std::map<const ResultsFile*, std::string> pages = RunPages(experiment, files);
  std::string main = absl::StrCat(kGeneratedMarker, "\n\n# ", experiment, "\n\n");
  if (experiment != "crosscheck") {
    absl::StrAppend(&main, "The question, the hypothesis and how to run it: [experiments/",
                    experiment, "/README.md](../experiments/", experiment, "/README.md).\n\n");
  }
  for (const ResultsFile* f : files) {
    const int first_svg = next_svg;
    (*out)[pages.at(f)] = RunDetail(experiment, spec, *f, all, reruns, &next_svg, out);
    if (f != findings) continue;
    // The findings: the same charts, drawn from the same SVGs.
    int again = first_svg;
    std::map<std::string, std::string> same_svgs;
    absl::StrAppend(&main, "## Findings\n\nFrom the run that speaks best (", kFindingsRule,
                    "): ", RunLine(*f), ". Everything it measured: [", Leaf(pages.at(f)), "](",
                    pages.at(f), ").\n\n", HeadlineSection(*f, spec.headline),
                    HarnessOverhead(*f, spec.harness_overhead), KeyRatioTable(*f, spec),
                    Charts(*f, spec, experiment, "", &again, &same_svgs));
    if (spec.has_cross_check) absl::StrAppend(&main, CrossCheck(*f, spec.cross_check, all, reruns));
    absl::StrAppend(&main, UmlFindings(files, spec, pages));
  }
  absl::StrAppend(&main, RunsTable(files, pages));
  const std::string across = AcrossKernels(files, spec, reruns);
  if (!across.empty()) {
    const std::string page = absl::StrCat(experiment, "/across.md");
    (*out)[page] = absl::StrCat(kGeneratedMarker, "\n\n# ", experiment,
                                ": across kernels and hosts\n\nBack to the findings: [", experiment,
                                ".md](../", experiment, ".md).\n\n", across);
    absl::StrAppend(&main, "## Across kernels and hosts\n\nEvery row's median on each kernel ",
                    "and host, and its change where only one of the two differs: [across.md](",
                    page, ").\n");
  }
  (*out)[experiment + ".md"] = main;
}

}  // namespace analysis
}  // namespace spawnlab
