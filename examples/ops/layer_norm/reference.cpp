// Independent reference of layer_norm_custom: y = (x - mean) / sqrt(var + epsilon) * gamma + beta
// over the last axis (biased variance; attribute epsilon, default 1e-5), in double, output rounded
// to its dtype.
#include <cmath>
#include <cstdint>

#include "aopt/reference.h"

void aopt_reference(aopt::ref::context& ctx)
{
  const auto& x = ctx.in("x");
  const auto& gamma = ctx.in("gamma");
  const auto& beta = ctx.in("beta");
  auto& y = ctx.out("y");
  const double eps = ctx.attr<double>("epsilon", 1e-5);
  const std::int64_t h = x.dim(-1);
  const std::int64_t rows = x.numel() / h;
  for (std::int64_t r = 0; r < rows; ++r) {
    const double* in = x.data.data() + r * h;
    double mean = 0.0;
    for (std::int64_t j = 0; j < h; ++j) mean += in[j];
    mean /= static_cast<double>(h);
    double var = 0.0;
    for (std::int64_t j = 0; j < h; ++j) var += (in[j] - mean) * (in[j] - mean);
    var /= static_cast<double>(h);
    const double rstd = 1.0 / std::sqrt(var + eps);
    for (std::int64_t j = 0; j < h; ++j) {
      const auto jj = static_cast<std::size_t>(j);
      y.data[static_cast<std::size_t>(r * h + j)] =
          aopt::ref::round_to(y.dtype, (in[j] - mean) * rstd * gamma.data[jj] + beta.data[jj]);
    }
  }
}
