// Independent reference of InplaceAxpy: the final content of x is x + alpha * y (the product
// rounded first, as the kernel computes it).
#include "aopt/reference.h"

void aopt_reference(aopt::ref::context& ctx) {
  const auto& y = ctx.in("y");
  const auto& x = ctx.in("x");
  auto& out = ctx.out("x");
  const double alpha = ctx.attr<double>("alpha", 2.0);
  for (std::size_t i = 0; i < out.data.size(); ++i) {
    out.data[i] = aopt::ref::round_to(out.dtype, x.data[i] + aopt::ref::round_to(out.dtype, alpha * y.data[i]));
  }
}
