// context_keys.h: the names of the keys spawnlab adds to a results file's
// `context` (Google Benchmark's AddCustomContext), in one place, so that the
// harness that writes them and the analysis that reads them cannot drift apart.
//
// Example:
//
//   benchmark::AddCustomContext(spawnlab::keys::kExperiment, "clone3");
//   const std::string row = file.context.at(spawnlab::keys::kCanaryRow);
//
// The run's conditions (run.*, host.*, kernel.*, probe.*) are named where they
// are measured (bench/run_record.h, bench/environment.h).

#ifndef SPAWNLAB_RESULTS_MODEL_CONTEXT_KEYS_H_
#define SPAWNLAB_RESULTS_MODEL_CONTEXT_KEYS_H_

namespace spawnlab {
namespace keys {

// What was run.
inline constexpr char kExperiment[] = "spawnlab.experiment";  // the bench's name
inline constexpr char kQuick[] = "spawnlab.quick";            // "true" for a --quick smoke
inline constexpr char kRunKind[] = "spawnlab.run_kind";  // full, headline, quick or filtered
inline constexpr char kFilter[] = "spawnlab.filter";          // --benchmark_filter, if any
inline constexpr char kPinnedCpu[] = "spawnlab.pinned_cpu";   // a CPU number, or "none"
inline constexpr char kRandomInterleaving[] = "spawnlab.random_interleaving";  // always "false"
inline constexpr char kChildEnvironment[] = "spawnlab.child_environment";
inline constexpr char kWay[] = "spawnlab.way";  // how a harness of its own measured
inline constexpr char kParentMappings[] = "spawnlab.parent_mappings";

// How it was sampled: rounds, in one or several processes.
inline constexpr char kRounds[] = "spawnlab.rounds";
inline constexpr char kRoundsPerProcess[] = "spawnlab.rounds_per_process";
inline constexpr char kRepetitionsPerProcess[] = "spawnlab.repetitions_per_process";
inline constexpr char kProcesses[] = "spawnlab.processes";  // in a merged run
inline constexpr char kProcess[] = "spawnlab.process";      // "K/N", in one process's file

// When a run made of processes stopped (results_model/stopping.h).
inline constexpr char kStoppingRule[] = "spawnlab.stopping.rule";      // in words
inline constexpr char kStoppingTarget[] = "spawnlab.stopping.target";  // e.g. "0.01"
inline constexpr char kStoppingMaxSeconds[] = "spawnlab.stopping.max_seconds";
// The bench's own cap, what max_seconds is unless --max_seconds gave another
// (a suite's share); "0": none.
inline constexpr char kStoppingOwnMaxSeconds[] = "spawnlab.stopping.own_max_seconds";
inline constexpr char kStoppedBy[] = "spawnlab.stopping.stopped_by";  // in words
// What stopped the run, for programs: one of the stop_reason values below.
inline constexpr char kStoppingReason[] = "spawnlab.stopping.reason";
namespace stop_reason {
inline constexpr char kFixed[] = "fixed";                   // a fixed plan (--processes)
inline constexpr char kTarget[] = "target";                 // every key ratio within it
inline constexpr char kFewest[] = "fewest_processes";       // no key ratios to wait for
inline constexpr char kMostProcesses[] = "most_processes";  // the most it may make
inline constexpr char kTimeCap[] = "time_cap";              // another would end past the cap
}  // namespace stop_reason
inline constexpr char kStoppingWorst[] = "spawnlab.stopping.worst";    // the widest key ratio
// How many rows, in no key ratio, had the first kMinProcesses processes only.
inline constexpr char kStoppingFixedBudgetRows[] = "spawnlab.stopping.fixed_budget_rows";

// What the analysis reads back: the key ratios' baselines and the canary.
inline constexpr char kRatioBaseline[] = "spawnlab.ratio_baseline";  // "dim:value,..."
// Where set, the key ratios are only those whose rows this RE2 pattern
// matches (partially): the bench's answer's rows (RatioBaseline::rows).
inline constexpr char kKeyRows[] = "spawnlab.key_rows";
inline constexpr char kCanaryRow[] = "spawnlab.canary.row";
// The bench's headline declaration (headline.h: HeadlineToJson), where it has one.
inline constexpr char kHeadline[] = "spawnlab.headline";
inline constexpr char kCanarySeries[] = "spawnlab.canary.series";  // its times, us, by round
inline constexpr char kCanaryDriftPct[] = "spawnlab.canary.drift_pct";
inline constexpr char kCanarySpreadPct[] = "spawnlab.canary.spread_pct";

}  // namespace keys
}  // namespace spawnlab

#endif  // SPAWNLAB_RESULTS_MODEL_CONTEXT_KEYS_H_
