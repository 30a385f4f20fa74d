// Independent reference of the stagger_op fixture: z = (((x * y + x) * y + x) * y + x) * y + x,
// rounded to the output's dtype after each of the kernel's eight steps (Mul, Add, ...).
#include "aopt/reference.h"

void aopt_reference(aopt::ref::context& ctx) {
  const auto& x = ctx.in("x");
  const auto& y = ctx.in("y");
  auto& z = ctx.out("z");
  for (std::size_t i = 0; i < z.data.size(); ++i) {
    double sum = x.data[i];
    for (int step = 0; step < 4; ++step) {
      const double product = aopt::ref::round_to(z.dtype, sum * y.data[i]);
      sum = aopt::ref::round_to(z.dtype, product + x.data[i]);
    }
    z.data[i] = sum;
  }
}
