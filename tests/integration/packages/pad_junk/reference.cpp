// Reference of PadJunk: y = x, except y[0] = the sum of all of x.
#include "aopt/reference.h"

void aopt_reference(aopt::ref::context& ctx) {
  const auto& x = ctx.in("x");
  auto& y = ctx.out("y");
  double sum = 0;
  for (double v : x.data) sum += v;
  for (std::size_t i = 0; i < y.data.size(); ++i) y.data[i] = x.data[i];
  y.data[0] = aopt::ref::round_to(y.dtype, sum);
}
