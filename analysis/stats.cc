// stats.cc: see stats.h.

#include "analysis/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace analysis {
namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}  // namespace

double Median(std::vector<double> v) {
  if (v.empty()) return kNaN;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double Min(const std::vector<double>& v) {
  return v.empty() ? kNaN : *std::min_element(v.begin(), v.end());
}

double Mean(const std::vector<double>& v) {
  if (v.empty()) return kNaN;
  double sum = 0;
  for (double x : v) sum += x;
  return sum / static_cast<double>(v.size());
}

double Stddev(const std::vector<double>& v) {
  if (v.size() < 2) return kNaN;
  double m = Mean(v), ss = 0;
  for (double x : v) ss += (x - m) * (x - m);
  return std::sqrt(ss / static_cast<double>(v.size() - 1));
}

double GeometricMean(const std::vector<double>& v) {
  if (v.empty()) return kNaN;
  double log_sum = 0;
  for (double x : v) {
    if (!(x > 0)) return kNaN;
    log_sum += std::log(x);
  }
  return std::exp(log_sum / static_cast<double>(v.size()));
}

double MannWhitneyU(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.empty() || b.empty()) return kNaN;
  const double n1 = static_cast<double>(a.size()), n2 = static_cast<double>(b.size());
  // Rank the pooled values, ties getting their average rank.
  std::vector<std::pair<double, int>> pooled;
  for (double x : a) pooled.push_back({x, 0});
  for (double x : b) pooled.push_back({x, 1});
  std::sort(pooled.begin(), pooled.end());
  const size_t n = pooled.size();
  double rank_sum_a = 0, tie_term = 0;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && pooled[j].first == pooled[i].first) ++j;
    const double avg_rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;
    const double t = static_cast<double>(j - i);
    tie_term += t * t * t - t;
    for (size_t k = i; k < j; ++k) {
      if (pooled[k].second == 0) rank_sum_a += avg_rank;
    }
    i = j;
  }
  const double u1 = rank_sum_a - n1 * (n1 + 1) / 2;
  const double mu = n1 * n2 / 2;
  const double total = n1 + n2;
  const double variance = n1 * n2 / 12 * ((total + 1) - tie_term / (total * (total - 1)));
  if (variance <= 0) return 1.0;
  const double z = (std::fabs(u1 - mu) - 0.5) / std::sqrt(variance);
  if (z <= 0) return 1.0;
  return std::erfc(z / std::sqrt(2.0));  // two-sided
}

}  // namespace analysis
