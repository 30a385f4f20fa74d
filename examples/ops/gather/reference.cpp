// Independent reference of gather_custom: y[m, :] = x[indices[m], :] for a 2-D table x [N, D].
// Exact (a copy); an index outside [0, N) is reported as an error.
#include <cstdint>
#include <stdexcept>
#include <string>

#include "aopt/reference.h"

void aopt_reference(aopt::ref::context& ctx)
{
  const auto& x = ctx.in("x");
  const auto& idx = ctx.in("indices");
  auto& y = ctx.out("y");
  const std::int64_t n = x.dim(0);
  const std::int64_t d = x.dim(1);
  for (std::size_t m = 0; m < idx.data.size(); ++m) {
    const auto row = static_cast<std::int64_t>(idx.data[m]);
    if (row < 0 || row >= n) {
      throw std::out_of_range("gather reference: indices[" + std::to_string(m) + "] = " + std::to_string(row) +
                              " is outside [0, " + std::to_string(n) + ")");
    }
    for (std::int64_t j = 0; j < d; ++j) {
      y.data[m * static_cast<std::size_t>(d) + static_cast<std::size_t>(j)] =
          x.data[static_cast<std::size_t>(row * d + j)];
    }
  }
}
