// Independent reference of lerp: y = start + weight * (end - start), computed in double, rounded once.
#include <cmath>

#include "aopt/reference.h"

void aopt_reference(aopt::ref::context& ctx) {
  const auto& start = ctx.in("start");
  const auto& end = ctx.in("end");
  const auto& weight = ctx.in("weight");
  auto& y = ctx.out("y");
  for (std::size_t i = 0; i < y.data.size(); ++i) {
    const double a = start.data[i];
    const double b = end.data[i];
    const double c = weight.data[i];
    y.data[i] = aopt::ref::round_to(y.dtype, a + c * (b - a));
  }
}
