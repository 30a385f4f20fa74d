// Independent reference of reduce_mean_custom: the mean of x over the axis given by the attribute
// "axis" (default -1); "keep_dims" only changes the output shape, not its values.
// Accumulated in double (at least the fp32 the operator promises), output rounded to its dtype.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "aopt/reference.h"

void aopt_reference(aopt::ref::context& ctx)
{
  const auto& x = ctx.in("x");
  auto& y = ctx.out("y");
  const auto rank = static_cast<std::int64_t>(x.shape.size());
  std::int64_t axis = ctx.attr<std::int64_t>("axis", -1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) {
    throw std::invalid_argument("reduce_mean reference: axis " + std::to_string(axis) + " out of range for rank " +
                                std::to_string(rank));
  }
  std::int64_t outer = 1, inner = 1;
  for (std::int64_t i = 0; i < axis; ++i) outer *= x.shape[static_cast<std::size_t>(i)];
  for (std::int64_t i = axis + 1; i < rank; ++i) inner *= x.shape[static_cast<std::size_t>(i)];
  const std::int64_t reduce = x.shape[static_cast<std::size_t>(axis)];
  for (std::int64_t o = 0; o < outer; ++o) {
    for (std::int64_t j = 0; j < inner; ++j) {
      double acc = 0.0;
      for (std::int64_t r = 0; r < reduce; ++r) {
        const double v = x.data[static_cast<std::size_t>((o * reduce + r) * inner + j)];
        acc += v;
      }
      y.data[static_cast<std::size_t>(o * inner + j)] = aopt::ref::round_to(y.dtype, acc / static_cast<double>(reduce));
    }
  }
}
