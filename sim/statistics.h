// Distribution-free statistics for comparing noisy step times measured in
// paired, interleaved rounds: on a shared machine the speed drifts by tens of
// percent over minutes, so two placements are compared round by round (each
// pair measured back to back) and only the sign and rank of each round's
// difference are trusted, never a normal model of the noise.
//
// Thread safety: pure functions.
#pragma once

#include <vector>

namespace sim {

// The sign test's confidence interval for the median of `v`: order statistics
// k and n - k + 1 (1-based), k the largest with P(Bin(n, 1/2) < k) <= (1 -
// confidence) / 2, so the coverage is at least `confidence`. False, and *lo
// and *hi untouched, when `v` is too short for any such k (fewer than 6 values
// at 95%).
bool MedianInterval(std::vector<double> v, double confidence, double* lo, double* hi);

// The exact one-sided p-value of the Wilcoxon signed-rank test that the
// differences `d` are centred below zero: the probability, if each difference
// were as likely positive as negative, of a sum of the ranks of the negative
// differences at least as large as observed. Zero differences are dropped
// (Wilcoxon's rule) and tied magnitudes share their mean rank. 1 when no
// difference is left.
double WilcoxonLessP(const std::vector<double>& d);

// The fewest pairs whose smallest WilcoxonLessP, 2^-pairs (every difference
// negative), is below `alpha`: fewer can never show a difference at that level.
int WilcoxonFewestPairs(double alpha);

double Median(std::vector<double> v);  // v not empty

}  // namespace sim
