#include "tools/xcheck/Statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tlxsim::xcheck {

std::optional<double> quantile(std::vector<double> values, double q) {
  if (values.empty())
    return std::nullopt;
  std::sort(values.begin(), values.end());
  double pos = std::clamp(q, 0.0, 1.0) * double(values.size() - 1);
  size_t lo = size_t(std::floor(pos));
  size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (pos - double(lo)) * (values[hi] - values[lo]);
}

namespace {
/// Calls group(order, i, j) for each run order[i..j] of `values` sorted ascending (stably) whose members are at most
/// `tolerance` times the run's first value above it (0: runs of equal values); runs do not chain.
template <class Group> void forEachTieGroup(const std::vector<double> &values, double tolerance, Group group) {
  std::vector<size_t> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return values[a] < values[b]; });
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && values[order[j + 1]] <= values[order[i]] * (1 + tolerance))
      ++j;
    group(order, i, j);
    i = j + 1;
  }
}
} // namespace

std::vector<double> fractionalRanks(const std::vector<double> &values) {
  std::vector<double> ranks(values.size());
  forEachTieGroup(values, 0, [&](const std::vector<size_t> &order, size_t i, size_t j) {
    double mean = (double(i) + double(j)) / 2.0 + 1.0; // ranks i+1 .. j+1
    for (size_t k = i; k <= j; ++k)
      ranks[order[k]] = mean;
  });
  return ranks;
}

std::vector<double> tieWithin(const std::vector<double> &values, double tolerance) {
  if (tolerance <= 0)
    return values;
  std::vector<double> out(values.size());
  forEachTieGroup(values, tolerance, [&](const std::vector<size_t> &order, size_t i, size_t j) {
    double sum = 0;
    for (size_t k = i; k <= j; ++k)
      sum += values[order[k]];
    for (size_t k = i; k <= j; ++k)
      out[order[k]] = sum / double(j - i + 1);
  });
  return out;
}

std::optional<double> spearman(const std::vector<double> &x, const std::vector<double> &y) {
  if (x.size() != y.size() || x.size() < 3)
    return std::nullopt;
  std::vector<double> rx = fractionalRanks(x), ry = fractionalRanks(y);
  double n = double(x.size());
  double mx = std::accumulate(rx.begin(), rx.end(), 0.0) / n;
  double my = std::accumulate(ry.begin(), ry.end(), 0.0) / n;
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < rx.size(); ++i) {
    sxy += (rx[i] - mx) * (ry[i] - my);
    sxx += (rx[i] - mx) * (rx[i] - mx);
    syy += (ry[i] - my) * (ry[i] - my);
  }
  if (sxx == 0 || syy == 0)
    return std::nullopt;
  return sxy / std::sqrt(sxx * syy);
}

} // namespace tlxsim::xcheck
