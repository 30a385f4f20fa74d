// Independent reference of complex_mat_dot_custom: out = matx * maty element-wise on complex
// numbers stored as interleaved fp32 (re, im) pairs: (a + bi)(c + di) = (ac - bd) + (ad + bc)i.
// In double, output rounded to fp32.
#include "aopt/reference.h"

void aopt_reference(aopt::ref::context& ctx)
{
  const auto& x = ctx.in("matx");
  const auto& y = ctx.in("maty");
  auto& z = ctx.out("out");
  for (std::size_t k = 0; k + 1 < z.data.size(); k += 2) {
    const double a = x.data[k], b = x.data[k + 1], c = y.data[k], d = y.data[k + 1];
    z.data[k] = aopt::ref::round_to(z.dtype, a * c - b * d);
    z.data[k + 1] = aopt::ref::round_to(z.dtype, a * d + b * c);
  }
}
