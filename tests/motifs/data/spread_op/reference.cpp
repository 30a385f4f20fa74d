// Independent reference of the spread_op fixture: z = 2 * x - y, rounded to the output's dtype
// after each of the kernel's two steps (Muls, then Sub).
#include "aopt/reference.h"

void aopt_reference(aopt::ref::context& ctx) {
  const auto& x = ctx.in("x");
  const auto& y = ctx.in("y");
  auto& z = ctx.out("z");
  for (std::size_t i = 0; i < z.data.size(); ++i) {
    const double twice = aopt::ref::round_to(z.dtype, 2.0 * x.data[i]);
    z.data[i] = aopt::ref::round_to(z.dtype, twice - y.data[i]);
  }
}
