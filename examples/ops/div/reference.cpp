// Independent reference of div: z = x / y, rounded once to z's dtype.
#include <cmath>

#include "aopt/reference.h"

void aopt_reference(aopt::ref::context& ctx) {
  const auto& x = ctx.in("x");
  const auto& y = ctx.in("y");
  auto& z = ctx.out("z");
  for (std::size_t i = 0; i < z.data.size(); ++i) {
    const double a = x.data[i];
    const double b = y.data[i];
    z.data[i] = aopt::ref::round_to(z.dtype, a / b);
  }
}
