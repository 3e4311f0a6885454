#include "sim/statistics.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace sim {

bool MedianInterval(std::vector<double> v, double confidence, double* lo, double* hi) {
  const int n = static_cast<int>(v.size());
  const double tail_limit = (1 - confidence) / 2;
  std::sort(v.begin(), v.end());
  double tail = 0, term = std::pow(0.5, n);  // P(X = 0)
  int k = 0;
  for (int j = 0; j < n; ++j) {  // tail = P(X <= j)
    tail += term;
    if (tail > tail_limit) break;
    k = j + 1;
    term = term * (n - j) / (j + 1);
  }
  if (k < 1) return false;
  *lo = v[k - 1];
  *hi = v[n - k];
  return true;
}

int WilcoxonFewestPairs(double alpha) {
  int pairs = 1;
  while (std::ldexp(1.0, -pairs) >= alpha && pairs < 64) ++pairs;
  return pairs;
}

double WilcoxonLessP(const std::vector<double>& d) {
  std::vector<double> magnitude;
  std::vector<bool> negative;
  for (double x : d) {
    if (x == 0) continue;
    magnitude.push_back(std::fabs(x));
    negative.push_back(x < 0);
  }
  const int n = static_cast<int>(magnitude.size());
  if (n == 0) return 1;
  std::vector<int> order(n);
  for (int i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](int a, int b) { return magnitude[a] < magnitude[b]; });
  // Ranks doubled, so that the mean rank of a tie is an integer.
  std::vector<int> rank2(n);
  for (int i = 0; i < n;) {
    int j = i;
    while (j < n && magnitude[order[j]] == magnitude[order[i]]) ++j;
    for (int t = i; t < j; ++t) rank2[order[t]] = i + 1 + j;  // 2 x mean of ranks i+1..j
    i = j;
  }
  int observed = 0, total = 0;
  for (int i = 0; i < n; ++i) {
    total += rank2[i];
    if (negative[i]) observed += rank2[i];
  }
  // ways[s]: sign assignments whose negative ranks sum to s (doubled).
  std::vector<double> ways(total + 1, 0);
  ways[0] = 1;
  for (int i = 0; i < n; ++i) {
    for (int s = total; s >= rank2[i]; --s) ways[s] += ways[s - rank2[i]];
  }
  double at_least = 0;
  for (int s = observed; s <= total; ++s) at_least += ways[s];
  return at_least / std::pow(2.0, n);
}

double Median(std::vector<double> v) {
  assert(!v.empty());
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace sim
