// Error statistics of `tlx-sim xcheck`: medians, percentiles and Spearman's rank correlation
// of predicted vs measured kernel times.
#pragma once

#include <optional>
#include <vector>

namespace tlxsim::xcheck {

/// The q-quantile (q in [0, 1]) of `values` by linear interpolation between closest ranks
/// (numpy's default, "linear"); nullopt for an empty list. quantile(v, 0.5) is the median.
std::optional<double> quantile(std::vector<double> values, double q);

/// Ranks 1..n of `values`, ties given the mean of the ranks they span (fractional ranking).
std::vector<double> fractionalRanks(const std::vector<double> &values);

/// `values` with the members of each tie group replaced by the group's mean: sorted ascending, a group starts at
/// its smallest value v and takes every next value <= v * (1 + tolerance) (so a group spans at most `tolerance`
/// of its first value; no chaining). Used on measured times whose differences are below the measurement's
/// run-to-run reproducibility, so that their order does not count in a rank correlation. tolerance <= 0 keeps
/// the values as they are. Values must be positive (times).
std::vector<double> tieWithin(const std::vector<double> &values, double tolerance);

/// Spearman's rank correlation of two equally long samples: the Pearson correlation of their
/// fractional ranks (so ties are handled). nullopt for fewer than 3 pairs or when either
/// sample is constant (the correlation is undefined).
std::optional<double> spearman(const std::vector<double> &x, const std::vector<double> &y);

} // namespace tlxsim::xcheck
