#include "lib/memory_canary.h"

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>

#include "lib/clock.h"

namespace spawnlab {
namespace {

constexpr size_t kBytes = size_t{16} << 20;
constexpr int kReads = 1 << 20;

// The buffer, written once so that every page is present before the first
// timed pass. Never freed: it lives as long as the bench process.
const volatile unsigned char* Buffer() {
  static const volatile unsigned char* buffer = [] {
    void* p = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
      std::cerr << "memory canary: cannot map " << kBytes << " bytes\n";
      std::abort();
    }
    auto* bytes = static_cast<unsigned char*>(p);
    for (size_t i = 0; i < kBytes; ++i) bytes[i] = static_cast<unsigned char>(i * 131);
    return static_cast<const volatile unsigned char*>(bytes);
  }();
  return buffer;
}

}  // namespace

int64_t TimeMemoryCanaryPass() {
  const volatile unsigned char* buffer = Buffer();
  // Knuth's MMIX linear congruential generator; its high bits pick the
  // offset. The reads are independent, so the loop runs at the rate the
  // memory system delivers random lines, which is what contention takes away.
  uint64_t x = 1;
  unsigned sum = 0;
  const int64_t t0 = MonotonicNanos();
  for (int i = 0; i < kReads; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    sum += buffer[(x >> 40) & (kBytes - 1)];
  }
  const int64_t t1 = MonotonicNanos();
  benchmark::DoNotOptimize(sum);
  return t1 - t0;
}

RoundRow MemoryCanaryRow() {
  return RoundRow{std::string(kMemoryCanaryRow), [](benchmark::State& state) {
                    for (auto _ : state) {
                      state.SetIterationTime(static_cast<double>(TimeMemoryCanaryPass()) * 1e-9);
                    }
                  }};
}

}  // namespace spawnlab
