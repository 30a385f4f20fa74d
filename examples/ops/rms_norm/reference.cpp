// Independent reference of rms_norm_custom: y = x / sqrt(mean(x^2) + epsilon) * gamma over the
// last axis (attribute epsilon, default 1e-6), in double, output rounded to its dtype.
#include <cmath>
#include <cstdint>

#include "aopt/reference.h"

void aopt_reference(aopt::ref::context& ctx)
{
  const auto& x = ctx.in("x");
  const auto& gamma = ctx.in("gamma");
  auto& y = ctx.out("y");
  const double eps = ctx.attr<double>("epsilon", 1e-6);
  const std::int64_t h = x.dim(-1);
  const std::int64_t rows = x.numel() / h;
  for (std::int64_t r = 0; r < rows; ++r) {
    const double* in = x.data.data() + r * h;
    double ss = 0.0;
    for (std::int64_t j = 0; j < h; ++j) ss += in[j] * in[j];
    const double rstd = 1.0 / std::sqrt(ss / static_cast<double>(h) + eps);
    for (std::int64_t j = 0; j < h; ++j) {
      y.data[static_cast<std::size_t>(r * h + j)] =
          aopt::ref::round_to(y.dtype, in[j] * rstd * gamma.data[static_cast<std::size_t>(j)]);
    }
  }
}
