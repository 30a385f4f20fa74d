// Independent reference of muls: y = x * value, with the float attribute rounded to x's dtype first (the vector
// instruction takes its scalar in the tensor's dtype).
#include <cmath>

#include "aopt/reference.h"

void aopt_reference(aopt::ref::context& ctx) {
  const auto& x = ctx.in("x");
  auto& y = ctx.out("y");
  const double value = aopt::ref::round_to(x.dtype, ctx.attr<double>("value", 1.0));
  for (std::size_t i = 0; i < y.data.size(); ++i) {
    y.data[i] = aopt::ref::round_to(y.dtype, x.data[i] * value);
  }
}
