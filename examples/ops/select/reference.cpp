// Independent reference of select: y = condition ? x1 : x2.
#include <cmath>

#include "aopt/reference.h"

void aopt_reference(aopt::ref::context& ctx) {
  const auto& condition = ctx.in("condition");
  const auto& x1 = ctx.in("x1");
  const auto& x2 = ctx.in("x2");
  auto& y = ctx.out("y");
  for (std::size_t i = 0; i < y.data.size(); ++i) {
    const double a = condition.data[i];
    const double b = x1.data[i];
    const double c = x2.data[i];
    y.data[i] = a != 0.0 ? b : c;
  }
}
