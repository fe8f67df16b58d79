// Error statistics of `tlx-sim xcheck` (tools/xcheck/Statistics.h), checked against values
// computed by hand (numpy.quantile's "linear" method; scipy.stats.spearmanr).
#include "tools/xcheck/Statistics.h"

#include <doctest/doctest.h>

using namespace tlxsim::xcheck;

TEST_CASE("quantile interpolates linearly between closest ranks") {
  CHECK(!quantile({}, 0.5));
  CHECK(*quantile({7}, 0.9) == doctest::Approx(7));
  CHECK(*quantile({3, 1, 2}, 0.5) == doctest::Approx(2));       // median of an odd count
  CHECK(*quantile({4, 1, 3, 2}, 0.5) == doctest::Approx(2.5));  // mean of the middle two
  // numpy.quantile([1..10], 0.9) = 9.1
  CHECK(*quantile({10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, 0.9) == doctest::Approx(9.1));
  CHECK(*quantile({1, 2}, 1.0) == doctest::Approx(2));
}

TEST_CASE("fractional ranks give ties the mean of their ranks") {
  std::vector<double> r = fractionalRanks({10, 20, 20, 5});
  CHECK(r == std::vector<double>{2, 3.5, 3.5, 1});
}

TEST_CASE("tie groups of measured times") {
  // 100, 101, 102.9 are within 3 % of 100; 104 starts a group (no chaining through 102.9); 200 is alone
  std::vector<double> t = tieWithin({104, 100, 200, 102.9, 101}, 0.03);
  CHECK(t[0] == doctest::Approx(104));
  CHECK(t[1] == doctest::Approx(101.3));
  CHECK(t[3] == doctest::Approx(101.3));
  CHECK(t[4] == doctest::Approx(101.3));
  CHECK(t[2] == doctest::Approx(200));
  CHECK(tieWithin({3, 1, 2}, 0) == std::vector<double>{3, 1, 2});
  // measured 100 / 101 tied, 150 / 160 apart: the model's order inside the tie does not count
  CHECK(*spearman(tieWithin({100, 101, 150, 160}, 0.03), {11, 10, 20, 30}) == doctest::Approx(0.9486833));
  CHECK(*spearman({100, 101, 150, 160}, {11, 10, 20, 30}) == doctest::Approx(0.8));
}

TEST_CASE("Spearman rho") {
  CHECK(*spearman({1, 2, 3, 4}, {10, 20, 30, 40}) == doctest::Approx(1));
  CHECK(*spearman({1, 2, 3, 4}, {4, 3, 2, 1}) == doctest::Approx(-1));
  // Monotone but non-linear: still 1 (ranks, not values).
  CHECK(*spearman({1, 2, 3, 4, 5}, {1, 8, 27, 64, 125}) == doctest::Approx(1));
  // scipy.stats.spearmanr([1,2,3,4,5], [2,1,4,3,5]) = 0.8
  CHECK(*spearman({1, 2, 3, 4, 5}, {2, 1, 4, 3, 5}) == doctest::Approx(0.8));
  // With ties: spearmanr([1,2,2,3], [1,2,3,4]) = 0.9486832980505138
  CHECK(*spearman({1, 2, 2, 3}, {1, 2, 3, 4}) == doctest::Approx(0.9486833));
  CHECK(!spearman({1, 2}, {1, 2}));          // fewer than 3 pairs
  CHECK(!spearman({1, 1, 1}, {1, 2, 3}));    // constant sample
}
