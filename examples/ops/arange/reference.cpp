// Independent reference of arange_custom: y[i] = start + i * step for i in [0, ceil((end - start) /
// step)), start/end/step being one-element input tensors. In double, output rounded to its dtype.
#include "aopt/reference.h"

void aopt_reference(aopt::ref::context& ctx)
{
  const double start = ctx.in("start").data.at(0);
  const double step = ctx.in("step").data.at(0);
  auto& y = ctx.out("y");
  for (std::size_t i = 0; i < y.data.size(); ++i) {
    y.data[i] = aopt::ref::round_to(y.dtype, start + static_cast<double>(i) * step);
  }
}
