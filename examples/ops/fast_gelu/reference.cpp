// Independent reference of fast_gelu_custom. FastGelu: y = x / (1 + exp(-1.702 |x|)) * exp(0.851 (x - |x|)).
// Computed in fp32 (the precision the operator promises), output rounded to its dtype.
#include <cmath>

#include "aopt/reference.h"

namespace {
float fast_gelu_ref(float x)
{
  const float a = std::fabs(x);
  return x / (1.0f + std::exp(-1.702f * a)) * std::exp(0.851f * (x - a));
}
}  // namespace

void aopt_reference(aopt::ref::context& ctx)
{
  const auto& x = ctx.in("x");
  auto& y = ctx.out("y");
  for (std::size_t i = 0; i < y.data.size(); ++i) {
    y.data[i] = aopt::ref::round_to(y.dtype, fast_gelu_ref(static_cast<float>(x.data[i])));
  }
}
