// Independent reference of InplaceRefAxpy: y (input and output of one name) ends as
// y + alpha * x (the product rounded first, as the kernel computes it).
#include "aopt/reference.h"

void aopt_reference(aopt::ref::context& ctx) {
  const auto& x = ctx.in("x");
  const auto& y = ctx.in("y");
  auto& out = ctx.out("y");
  const double alpha = ctx.attr<double>("alpha", 2.0);
  for (std::size_t i = 0; i < out.data.size(); ++i) {
    out.data[i] = aopt::ref::round_to(out.dtype, y.data[i] + aopt::ref::round_to(out.dtype, alpha * x.data[i]));
  }
}
