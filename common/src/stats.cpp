#include "aopt/common/stats.h"

#include <algorithm>
#include <cmath>

namespace aopt::common {

namespace {

// P(Binomial(n, 1/2) <= k), summed in log space (n is at most a few thousand).
double binomial_half_cdf(std::size_t n, std::size_t k) {
  double total = 0;
  for (std::size_t i = 0; i <= k && i <= n; ++i) {
    const double log_term = std::lgamma(double(n) + 1) - std::lgamma(double(i) + 1) - std::lgamma(double(n - i) + 1) -
                            double(n) * std::log(2.0);
    total += std::exp(log_term);
  }
  return total;
}

}  // namespace

sample_summary summarize(std::vector<double> samples, double confidence) {
  sample_summary s;
  s.n = samples.size();
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  s.min = samples.front();
  s.max = samples.back();
  s.median = n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
  s.low = s.min;
  s.high = s.max;
  if (n < 6) return s;
  // The largest k with P(B <= k - 1) <= alpha / 2: [x_(k), x_(n - k + 1)] (1-based) covers the median.
  const double alpha = 1.0 - confidence;
  std::size_t k = 0;
  while (k + 1 <= n / 2 && binomial_half_cdf(n, k) <= alpha / 2) ++k;
  if (k >= 1) {
    s.low = samples[k - 1];
    s.high = samples[n - k];
  }
  return s;
}

bool faster_beyond_noise(const sample_summary& challenger, const sample_summary& champion, double min_gain) {
  return challenger.high < champion.low * (1.0 - min_gain);
}

bool slower_beyond_noise(const sample_summary& slower, const sample_summary& base, double min_loss) {
  return slower.low > base.high * (1.0 + min_loss);
}

}  // namespace aopt::common
