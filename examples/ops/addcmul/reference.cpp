// Independent reference of addcmul: y = x + value * tensor1 * tensor2 (value: one-element tensor), computed in double.
#include <cmath>

#include "aopt/reference.h"

void aopt_reference(aopt::ref::context& ctx) {
  const auto& x = ctx.in("x");
  const auto& t1 = ctx.in("tensor1");
  const auto& t2 = ctx.in("tensor2");
  const double value = ctx.in("value").data.at(0);
  auto& y = ctx.out("y");
  for (std::size_t i = 0; i < y.data.size(); ++i) {
    y.data[i] = aopt::ref::round_to(y.dtype, x.data[i] + value * t1.data[i] * t2.data[i]);
  }
}
