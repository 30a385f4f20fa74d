// Independent reference of foreach_pow_scalar_and_tensor_custom: y_i = scalar ^ x_i for every tensor of the list x (inputs "x.0",
// "x.1", ...; outputs in the same order). In double, outputs rounded to their dtype.
#include <cmath>
#include <stdexcept>
#include <string>

#include "aopt/reference.h"

void aopt_reference(aopt::ref::context& ctx)
{
  const double s = ctx.in("scalar").data.at(0);
  std::size_t k = 0;
  for (const auto& in : ctx.inputs) {
    if (in.name.rfind("x.", 0) != 0) continue;
    if (k >= ctx.outputs.size()) {
      throw std::invalid_argument("foreach_pow_scalar_and_tensor reference: more tensors in x than outputs (" +
                                  std::to_string(ctx.outputs.size()) + ")");
    }
    auto& y = ctx.outputs[k++];
    for (std::size_t i = 0; i < y.data.size(); ++i) {
      const double x = in.data.at(i);
      y.data[i] = aopt::ref::round_to(y.dtype, std::pow(s, x));
    }
  }
  if (k != ctx.outputs.size()) {
    throw std::invalid_argument("foreach_pow_scalar_and_tensor reference: " + std::to_string(k) + " tensors in x but " +
                                std::to_string(ctx.outputs.size()) + " outputs");
  }
}
