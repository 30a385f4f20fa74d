// Independent reference of abs: y = |x|.
#include <cmath>

#include "aopt/reference.h"

void aopt_reference(aopt::ref::context& ctx) {
  const auto& x = ctx.in("x");
  auto& y = ctx.out("y");
  for (std::size_t i = 0; i < y.data.size(); ++i) {
    const double a = x.data[i];
    y.data[i] = aopt::ref::round_to(y.dtype, std::fabs(a));
  }
}
