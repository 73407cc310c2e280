// stats.cc: see stats.h.

#include "results_model/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace spawnlab {
namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Below this many values in one sample (and without ties) U's exact
// distribution is used: scipy's rule.
constexpr size_t kExactBelow = 8;
// The exact distribution is also used for the interval up to this size.
constexpr size_t kExactUpTo = 20;

// P(U <= u) for every u in 0..m*n, for samples of sizes m and n with no ties:
// the number of orderings with U = u (f(m, n, u) = f(m-1, n, u-n) +
// f(m, n-1, u)) over C(m+n, m).
std::vector<double> ExactCdf(size_t m, size_t n) {
  // f[j][u]: orderings of i values of the first sample and j of the second.
  std::vector<std::vector<double>> f(n + 1, std::vector<double>(m * n + 1, 0));
  for (size_t j = 0; j <= n; ++j) f[j][0] = 1;  // i = 0: U is 0
  for (size_t i = 1; i <= m; ++i) {
    std::vector<std::vector<double>> g(n + 1, std::vector<double>(m * n + 1, 0));
    g[0][0] = 1;  // j = 0: U is 0
    for (size_t j = 1; j <= n; ++j) {
      for (size_t u = 0; u <= i * j; ++u) {
        g[j][u] = g[j - 1][u] + (u >= j ? f[j][u - j] : 0);
      }
    }
    f = std::move(g);
  }
  std::vector<double> cdf(m * n + 1);
  double total = 0;
  for (double c : f[n]) total += c;
  double run = 0;
  for (size_t u = 0; u <= m * n; ++u) {
    run += f[n][u];
    cdf[u] = run / total;
  }
  return cdf;
}

// The standard normal's quantile, by bisection on erfc (enough for the few
// calls an interval makes).
double NormalQuantile(double p) {
  double lo = -10, hi = 10;
  for (int i = 0; i < 200; ++i) {
    const double mid = (lo + hi) / 2;
    (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}
}  // namespace

double Median(std::vector<double> v) {
  if (v.empty()) return kNaN;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::vector<double> RoundRatios(const std::vector<double>& num, const std::vector<double>& den) {
  std::vector<double> out;
  for (size_t k = 0; k < num.size() && k < den.size(); ++k) {
    if (std::isfinite(num[k]) && std::isfinite(den[k]) && den[k] > 0) out.push_back(num[k] / den[k]);
  }
  std::sort(out.begin(), out.end());
  return out;
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
  if (tie_term == 0 && std::min(a.size(), b.size()) < kExactBelow) {
    const std::vector<double> cdf = ExactCdf(a.size(), b.size());
    const double u_low = std::min(u1, n1 * n2 - u1);
    return std::min(1.0, 2 * cdf[static_cast<size_t>(std::llround(u_low))]);
  }
  const double total = n1 + n2;
  const double variance = n1 * n2 / 12 * ((total + 1) - tie_term / (total * (total - 1)));
  if (variance <= 0) return 1.0;
  const double z = (std::fabs(u1 - mu) - 0.5) / std::sqrt(variance);
  if (z <= 0) return 1.0;
  return std::erfc(z / std::sqrt(2.0));  // two-sided
}

double SmallestPValue(size_t n1, size_t n2) {
  std::vector<double> a(n1), b(n2);
  for (size_t i = 0; i < n1; ++i) a[i] = static_cast<double>(i);
  for (size_t i = 0; i < n2; ++i) b[i] = static_cast<double>(n1 + i);
  return MannWhitneyU(a, b);
}

std::vector<double> BenjaminiHochberg(const std::vector<double>& p) {
  std::vector<double> q(p.size(), kNaN);
  std::vector<size_t> order;  // the tests, smallest p first
  for (size_t i = 0; i < p.size(); ++i) {
    if (!std::isnan(p[i])) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return p[a] < p[b]; });
  const double m = static_cast<double>(order.size());
  double least = 1.0;  // the running minimum from the largest p down
  for (size_t k = order.size(); k-- > 0;) {
    least = std::min(least, p[order[k]] * m / static_cast<double>(k + 1));
    q[order[k]] = least;
  }
  return q;
}

namespace {

// The Hodges-Lehmann estimate (the median of the m * n pairwise differences
// `d`) and the Moses interval that inverts the U test on them.
Interval FromPairwiseDifferences(std::vector<double> d, size_t m_size, size_t n_size,
                                 double confidence) {
  std::sort(d.begin(), d.end());
  const size_t mn = d.size();
  Interval out{Median(d), -kInf, kInf};
  // k: the largest u with P(U <= u) <= (1 - confidence) / 2; the interval
  // runs from the (k+1)-th smallest difference to the (k+1)-th largest.
  const double tail = (1 - confidence) / 2;
  long k = -1;
  if (std::max(m_size, n_size) <= kExactUpTo) {
    const std::vector<double> cdf = ExactCdf(m_size, n_size);
    while (k + 1 < static_cast<long>(mn) && cdf[static_cast<size_t>(k + 1)] <= tail) ++k;
  } else {
    const double m = static_cast<double>(m_size), n = static_cast<double>(n_size);
    k = static_cast<long>(
        std::floor(m * n / 2 - 0.5 + NormalQuantile(tail) * std::sqrt(m * n * (m + n + 1) / 12)));
  }
  if (k >= 0 && 2 * static_cast<size_t>(k) < mn) {
    out.low = d[static_cast<size_t>(k)];
    out.high = d[mn - 1 - static_cast<size_t>(k)];
  }
  return out;
}

}  // namespace

Interval ShiftInterval(const std::vector<double>& a, const std::vector<double>& b,
                       double confidence) {
  if (a.empty() || b.empty()) return {kNaN, kNaN, kNaN};
  std::vector<double> d;
  d.reserve(a.size() * b.size());
  for (double x : a) {
    for (double y : b) d.push_back(x - y);
  }
  return FromPairwiseDifferences(std::move(d), a.size(), b.size(), confidence);
}

Interval RatioInterval(const std::vector<double>& a, const std::vector<double>& b,
                       double confidence) {
  if (a.empty() || b.empty()) return {kNaN, kNaN, kNaN};
  for (const std::vector<double>* v : {&a, &b}) {
    for (double x : *v) {
      if (!(x >= 0)) return {kNaN, kNaN, kNaN};  // negative or NaN: no ratio
    }
  }
  // The differences of logs. A zero (an idle worker's count, a spread of 0)
  // has log -inf: against a positive value its ratio is 0 or +inf, which
  // sorts as it should; against another zero it is a tie, ratio 1, as the
  // U test counts it.
  std::vector<double> d;
  d.reserve(a.size() * b.size());
  for (double x : a) {
    for (double y : b) d.push_back(x == y ? 0.0 : std::log(x) - std::log(y));
  }
  const Interval l = FromPairwiseDifferences(std::move(d), a.size(), b.size(), confidence);
  return {std::exp(l.estimate), std::exp(l.low), std::exp(l.high)};
}

}  // namespace spawnlab
