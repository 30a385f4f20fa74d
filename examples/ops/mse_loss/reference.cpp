// Independent reference of mse_loss_custom: d = predict - label; reduction (attribute, default
// "mean"): "none" -> d^2 element-wise, "sum" -> sum(d^2), "mean" -> sum(d^2) / N. In double,
// output rounded to its dtype.
#include <stdexcept>
#include <string>

#include "aopt/reference.h"

void aopt_reference(aopt::ref::context& ctx)
{
  const auto& p = ctx.in("predict");
  const auto& l = ctx.in("label");
  auto& y = ctx.out("y");
  const std::string reduction = ctx.attr<std::string>("reduction", "mean");
  if (reduction == "none") {
    for (std::size_t i = 0; i < y.data.size(); ++i) {
      const double d = p.data[i] - l.data[i];
      y.data[i] = aopt::ref::round_to(y.dtype, d * d);
    }
    return;
  }
  if (reduction != "sum" && reduction != "mean") {
    throw std::invalid_argument("mse_loss reference: reduction must be none, sum or mean, got " + reduction);
  }
  double acc = 0.0;
  for (std::size_t i = 0; i < p.data.size(); ++i) {
    const double d = p.data[i] - l.data[i];
    acc += d * d;
  }
  if (reduction == "mean") acc /= static_cast<double>(p.data.size());
  y.data.at(0) = aopt::ref::round_to(y.dtype, acc);
}
