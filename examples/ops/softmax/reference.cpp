// Independent reference of softmax_custom: softmax over the last axis,
// y = exp(x - max) / sum(exp(x - max)), in double, output rounded to its dtype.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "aopt/reference.h"

void aopt_reference(aopt::ref::context& ctx)
{
  const auto& x = ctx.in("x");
  auto& y = ctx.out("y");
  const std::int64_t h = x.dim(-1);
  const std::int64_t rows = x.numel() / h;
  for (std::int64_t r = 0; r < rows; ++r) {
    const double* in = x.data.data() + r * h;
    double m = in[0];
    for (std::int64_t j = 1; j < h; ++j) m = std::max(m, in[j]);
    double s = 0.0;
    for (std::int64_t j = 0; j < h; ++j) s += std::exp(in[j] - m);
    for (std::int64_t j = 0; j < h; ++j) {
      y.data[static_cast<std::size_t>(r * h + j)] = aopt::ref::round_to(y.dtype, std::exp(in[j] - m) / s);
    }
  }
}
