// Independent reference of logical_and: y = x1 && x2 (1 or 0).
#include <cmath>

#include "aopt/reference.h"

void aopt_reference(aopt::ref::context& ctx) {
  const auto& x1 = ctx.in("x1");
  const auto& x2 = ctx.in("x2");
  auto& y = ctx.out("y");
  for (std::size_t i = 0; i < y.data.size(); ++i) {
    const double a = x1.data[i];
    const double b = x2.data[i];
    y.data[i] = (a != 0.0 && b != 0.0) ? 1.0 : 0.0;
  }
}
