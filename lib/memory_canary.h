// memory_canary.h: a fixed memory-bound reference operation, timed in every
// round of a bench whose rows move with the host's memory system, so that a
// run can say how much of that system its other tenants left it.
//
// The drift canary (bench.h: BenchDefaults::canary_row) is a small spawn: it
// runs in the caches and sees the CPU's bursts of slowness. It does not see
// a neighbour streaming through the host's shared last-level cache and
// memory bandwidth. Rows that work on tens of MiB do: a fork of a parent with
// 1 GiB of touched memory updates 16 MiB of `struct page` and copies 2 MiB of
// page tables, and on this project's VM (a 480 MiB L3 shared with the host's
// other guests) it took 10.5 ms in some rounds and 17 ms in others of one
// process, with nothing else in the guest running. A probe that timed
// 2^20 reads at independent random offsets of a 16 MiB buffer between such
// forks moved with them (rank correlation 0.8 over 300 pairs; a dependent
// pointer chase over the same buffer, which measures latency, not the
// bandwidth the fork streams through, followed them at 0.55).
//
// The canary is that read loop. A bench names its memory-bound rows
// (BenchDefaults::memory_rows) and measures MemoryCanaryRow() in every round
// among its rows; the run records the canary's spread and how closely each
// memory-bound row followed it (bench_results.h: RecordMemoryNoise), and
// where the canary spread beyond the threshold, run.memory_noisy says that
// those rows' figures carry the host's contention, not only the kernel's
// cost.
//
// Example (in a bench's Register, called once per round):
//
//   std::vector<RoundRow> rows = {...};
//   rows.push_back(MemoryCanaryRow());
//   RegisterRound(options, std::move(rows));

#ifndef SPAWNLAB_LIB_MEMORY_CANARY_H_
#define SPAWNLAB_LIB_MEMORY_CANARY_H_

#include <cstdint>

#include "lib/bench.h"
#include "lib/bench_results.h"  // kMemoryCanaryRow

namespace spawnlab {

// One pass of the canary: 2^20 one-byte reads at independent pseudo-random
// offsets (a fixed sequence) of a 16 MiB buffer, allocated and written once
// per process. Returns the nanoseconds it took.
int64_t TimeMemoryCanaryPass();

// The canary as a row of a bench that runs in rounds: one pass an iteration,
// timed by the row (UseManualTime).
RoundRow MemoryCanaryRow();

}  // namespace spawnlab

#endif  // SPAWNLAB_LIB_MEMORY_CANARY_H_
