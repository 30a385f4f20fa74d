// Independent reference of gelu_custom. GELU, tanh approximation: y = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
// Computed in fp32 (the precision the operator promises), output rounded to its dtype.
#include <cmath>

#include "aopt/reference.h"

namespace {
float gelu_ref(float x)
{
  const float c = 0.7978845608028654f;  // sqrt(2/pi)
  return 0.5f * x * (1.0f + std::tanh(c * (x + 0.044715f * x * x * x)));
}
}  // namespace

void aopt_reference(aopt::ref::context& ctx)
{
  const auto& x = ctx.in("x");
  auto& y = ctx.out("y");
  for (std::size_t i = 0; i < y.data.size(); ++i) {
    y.data[i] = aopt::ref::round_to(y.dtype, gelu_ref(static_cast<float>(x.data[i])));
  }
}
