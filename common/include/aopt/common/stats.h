// Measurement statistics, backend-agnostic: the median of repeated timings with a
// distribution-free confidence interval, and the rule that says whether one set of timings is
// faster than another beyond the noise. A single sample (sim: deterministic) has a zero-width
// interval, so every rule here reduces to the plain comparison on it.
#pragma once

#include <cstddef>
#include <vector>

namespace aopt::common {

struct sample_summary {
  std::size_t n = 0;
  double median = 0;
  double low = 0, high = 0;  // confidence interval of the median (order statistics)
  double min = 0, max = 0;
  // Relative width of the interval: (high - low) / median; 0 for one sample.
  double spread() const { return median > 0 ? (high - low) / median : 0.0; }
};

// The confidence of the intervals acceptance decisions compare: 99%. Two intervals of the same
// true latency miss each other with probability about 1.4e-4 (normal noise, equal spread), so a
// search of 40 candidates accepts noise with probability under 1%; at 95% it would be about 11%.
inline constexpr double acceptance_confidence = 0.99;

// Summary of `samples` (any order). The interval holds the median with probability at least
// `confidence` whatever the distribution (binomial order statistics); with fewer than 6 samples
// it is [min, max]. Empty input: n = 0, all zero.
sample_summary summarize(std::vector<double> samples, double confidence = 0.95);

// Whether `challenger` is faster than `champion` by more than `min_gain` beyond the noise: the
// challenger's upper bound is below the champion's lower bound times (1 - min_gain). On single
// samples this is `challenger < champion * (1 - min_gain)`.
bool faster_beyond_noise(const sample_summary& challenger, const sample_summary& champion, double min_gain);
// Whether `slower` is slower than `base` beyond the noise (by more than `min_loss`): its lower
// bound above base's upper bound times (1 + min_loss).
bool slower_beyond_noise(const sample_summary& slower, const sample_summary& base, double min_loss);

}  // namespace aopt::common
