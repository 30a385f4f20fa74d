// Independent reference of sigmoid_custom. Sigmoid: y = 1 / (1 + exp(-x)).
// Computed in fp32 (the precision the operator promises), output rounded to its dtype.
#include <cmath>

#include "aopt/reference.h"

namespace {
float sigmoid_ref(float x)
{
  return 1.0f / (1.0f + std::exp(-x));
}
}  // namespace

void aopt_reference(aopt::ref::context& ctx)
{
  const auto& x = ctx.in("x");
  auto& y = ctx.out("y");
  for (std::size_t i = 0; i < y.data.size(); ++i) {
    y.data[i] = aopt::ref::round_to(y.dtype, sigmoid_ref(static_cast<float>(x.data[i])));
  }
}
