// Independent reference of the element_mix fixture (the AddCustom interface, fp32): per element
// pair a complex multiply-add, then a per-channel scale of groups of four, then an axpby; in
// float, in the kernel's order of operations, so the scalar and the vectorized kernels match it
// exactly.
#include <vector>

#include "aopt/reference.h"

void aopt_reference(aopt::ref::context& ctx) {
  const auto& xin = ctx.in("x");
  const auto& yin = ctx.in("y");
  auto& out = ctx.out("z");
  const std::size_t n = out.data.size();
  const float alpha = 0.5f;
  const float beta = 0.25f;
  const float weight[4] = {0.299f, 0.587f, 0.114f, 1.0f};
  std::vector<float> x(n), y(n), z(n);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(xin.data[i]);
    y[i] = static_cast<float>(yin.data[i]);
  }
  for (std::size_t k = 0; k + 1 < n; k += 2) {
    const float a = x[k], b = x[k + 1], c = y[k], d = y[k + 1];
    z[k] = alpha * (a * c - b * d) + a;
    z[k + 1] = alpha * (a * d + b * c) + b;
  }
  for (std::size_t i = 0; i < n; ++i) y[i] = i % 4 == 3 ? z[i] : weight[i % 4] * z[i];
  for (std::size_t i = 0; i < n; ++i) {
    const float t = y[i] * alpha + x[i] * beta;
    out.data[i] = aopt::ref::round_to(out.dtype, 1.0f - t / 3.0f);
  }
}
