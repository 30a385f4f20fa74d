// Independent reference of clip_by_value: y = min(max(x, clip_value_min), clip_value_max).
#include <cmath>

#include "aopt/reference.h"

void aopt_reference(aopt::ref::context& ctx) {
  const auto& x = ctx.in("x");
  const double lo = ctx.in("clip_value_min").data.at(0);
  const double hi = ctx.in("clip_value_max").data.at(0);
  auto& y = ctx.out("y");
  for (std::size_t i = 0; i < y.data.size(); ++i) {
    y.data[i] = std::fmin(std::fmax(x.data[i], lo), hi);
  }
}
