#include "runner/Timing.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tlxsim::runner {

Summary summarize(std::vector<double> samples) {
  Summary s;
  if (samples.empty())
    return s;
  std::sort(samples.begin(), samples.end());
  size_t n = samples.size();
  s.median = n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
  s.min = samples.front();
  s.max = samples.back();
  s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / double(n);
  double var = 0;
  for (double x : samples)
    var += (x - s.mean) * (x - s.mean);
  s.cv = s.mean > 0 ? std::sqrt(var / double(n)) / s.mean : 0;
  return s;
}

double sampleCv(const std::vector<double> &values) {
  size_t n = values.size();
  if (n < 2)
    return 0;
  double mean = std::accumulate(values.begin(), values.end(), 0.0) / double(n);
  if (!(mean > 0))
    return 0;
  double var = 0;
  for (double x : values)
    var += (x - mean) * (x - mean);
  return std::sqrt(var / double(n - 1)) / mean;
}

std::vector<double> groupMedians(const std::vector<double> &samples, int groups) {
  size_t count = std::min(samples.size(), size_t(std::max(1, groups)));
  std::vector<double> out;
  if (count == 0)
    return out;
  size_t size = samples.size() / count;
  for (size_t g = 0; g < count; ++g)
    out.push_back(summarize({samples.begin() + g * size, samples.begin() + (g + 1) * size}).median);
  return out;
}

int iterationsFor(double budgetMs, double estimateMs) {
  if (!(estimateMs > 0))
    return 1;
  double n = std::floor(budgetMs / estimateMs);
  return n < 1 ? 1 : n > 1e6 ? 1000000 : int(n);
}

} // namespace tlxsim::runner
