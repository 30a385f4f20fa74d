// Independent reference of PrivateScale in the plain layout: y = 2 x.
#include "aopt/reference.h"

void aopt_reference(aopt::ref::context& ctx) {
  const auto& x = ctx.in("x");
  auto& y = ctx.out("y");
  for (std::size_t i = 0; i < y.data.size(); ++i) y.data[i] = aopt::ref::round_to(y.dtype, 2.0 * x.data[i]);
}
