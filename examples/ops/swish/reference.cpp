// Independent reference of swish_custom. Swish: y = x / (1 + exp(-scale x)), attribute scale (default 1.0).
// Computed in fp32 (the precision the operator promises), output rounded to its dtype.
#include <cmath>

#include "aopt/reference.h"

namespace {
float swish_ref(float x, float scale)
{
  return x / (1.0f + std::exp(-scale * x));
}
}  // namespace

void aopt_reference(aopt::ref::context& ctx)
{
  const float scale = static_cast<float>(ctx.attr<double>("scale", 1.0));
  const auto& x = ctx.in("x");
  auto& y = ctx.out("y");
  for (std::size_t i = 0; i < y.data.size(); ++i) {
    y.data[i] = aopt::ref::round_to(y.dtype, swish_ref(static_cast<float>(x.data[i]), scale));
  }
}
