// Independent reference of AddCustom: z = x + y, rounded to the output dtype.
#include "aopt/reference.h"

void aopt_reference(aopt::ref::context& ctx) {
  const auto& x = ctx.in("x");
  const auto& y = ctx.in("y");
  auto& z = ctx.out("z");
  for (std::size_t i = 0; i < z.data.size(); ++i) z.data[i] = aopt::ref::round_to(z.dtype, x.data[i] + y.data[i]);
}
