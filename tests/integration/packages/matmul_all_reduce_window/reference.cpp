// Independent reference of matmul_all_reduce_window: on one rank the all-reduce of a x b is
// a x b itself, computed here in double and rounded to c's dtype.
#include <cstdint>

#include "aopt/reference.h"

void aopt_reference(aopt::ref::context& ctx)
{
  const auto& a = ctx.in("a");
  const auto& b = ctx.in("b");
  auto& c = ctx.out("c");
  const std::int64_t m = a.dim(0), k = a.dim(1), n = b.dim(1);
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      double s = 0.0;
      for (std::int64_t q = 0; q < k; ++q) {
        s += a.data[static_cast<std::size_t>(i * k + q)] * b.data[static_cast<std::size_t>(q * n + j)];
      }
      c.data[static_cast<std::size_t>(i * n + j)] = aopt::ref::round_to(c.dtype, s);
    }
  }
}
