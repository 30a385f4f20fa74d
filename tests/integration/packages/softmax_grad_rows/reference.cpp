// Independent reference of softmax_grad_rows: per row d = sum(grad * y), dx = (grad - d) * y, in
// double, rounded to dx's dtype.
#include <cstdint>

#include "aopt/reference.h"

void aopt_reference(aopt::ref::context& ctx)
{
  const auto& g = ctx.in("grad");
  const auto& y = ctx.in("y");
  auto& dx = ctx.out("dx");
  const std::int64_t k = g.dim(-1);
  const std::int64_t rows = g.numel() / k;
  for (std::int64_t r = 0; r < rows; ++r) {
    double d = 0.0;
    for (std::int64_t c = 0; c < k; ++c) {
      d += g.data[static_cast<std::size_t>(r * k + c)] * y.data[static_cast<std::size_t>(r * k + c)];
    }
    for (std::int64_t c = 0; c < k; ++c) {
      const std::size_t i = static_cast<std::size_t>(r * k + c);
      dx.data[i] = aopt::ref::round_to(dx.dtype, (g.data[i] - d) * y.data[i]);
    }
  }
}
