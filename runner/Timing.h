// Summary statistics of kernel timings (the numbers `tlx-sim run` reports and records).
#pragma once

#include <vector>

namespace tlxsim::runner {

/// Median, minimum, maximum, mean and coefficient of variation (population standard deviation
/// over the mean) of `samples`; all zero for an empty list. The median of an even count is the
/// mean of the two middle values (Python's statistics.median, which
/// triton.testing.do_bench uses for return_mode="median").
struct Summary {
  double median = 0, min = 0, max = 0, mean = 0, cv = 0;
};
Summary summarize(std::vector<double> samples);

/// Sample standard deviation over the mean (0 for fewer than two values or a zero mean), as
/// tlx_sim/record.py coefficient_of_variation (statistics.stdev / statistics.mean).
double sampleCv(const std::vector<double> &values);

/// The medians of `groups` consecutive groups of len(samples) / groups samples each (a remainder
/// is left out), as record.py splits its CUPTI durations; fewer groups when there are fewer samples.
std::vector<double> groupMedians(const std::vector<double> &samples, int groups);

/// do_bench's iteration counts (triton/testing.py): max(1, int(budget_ms / estimate_ms)).
int iterationsFor(double budgetMs, double estimateMs);

} // namespace tlxsim::runner
