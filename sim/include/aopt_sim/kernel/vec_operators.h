// The operator forms of the vector API: `dst = a * b;` is Mul over the tensors, and
// `mask = a >= b;` is Compare into a bit mask. The right-hand side is an expression object;
// LocalTensor's assignment from it runs the instruction (count: the smallest of the tensors).
#pragma once

#include <algorithm>
#include <cstdint>

#include "aopt_sim/kernel/tensor.h"
#include "aopt_sim/kernel/vec_cmpsel.h"
#include "aopt_sim/kernel/vec_elementwise.h"

namespace AscendC {

enum class aopt_tensor_op : std::uint8_t { add, sub, mul, div, bit_and, bit_or, lt, gt, le, ge, eq, ne };

template <typename T, aopt_tensor_op Op>
struct LocalTensorExpr {
  const LocalTensor<T>& a;
  const LocalTensor<T>& b;

  template <typename U>
  void aopt_assign_to(const LocalTensor<U>& dst) const {
    using op = aopt_tensor_op;
    const std::uint32_t n = std::min(a.GetSize(), b.GetSize());
    if constexpr (Op >= op::lt) {
      constexpr CMPMODE modes[] = {CMPMODE::LT, CMPMODE::GT, CMPMODE::LE, CMPMODE::GE, CMPMODE::EQ, CMPMODE::NE};
      Compare(dst, a, b, modes[static_cast<int>(Op) - static_cast<int>(op::lt)], n);
    } else {
      const std::uint32_t m = std::min(n, dst.GetSize());
      if constexpr (Op == op::add) Add(dst, a, b, m);
      else if constexpr (Op == op::sub) Sub(dst, a, b, m);
      else if constexpr (Op == op::mul) Mul(dst, a, b, m);
      else if constexpr (Op == op::div) Div(dst, a, b, m);
      else if constexpr (Op == op::bit_and) And(dst, a, b, m);
      else Or(dst, a, b, m);
    }
  }
};

#define AOPT_TENSOR_OPERATOR(sym, op)                                                                         \
  template <typename T>                                                                                     \
  LocalTensorExpr<T, aopt_tensor_op::op> operator sym(const LocalTensor<T>& a, const LocalTensor<T>& b) {  \
    return {a, b};                                                                                          \
  }
AOPT_TENSOR_OPERATOR(+, add)
AOPT_TENSOR_OPERATOR(-, sub)
AOPT_TENSOR_OPERATOR(*, mul)
AOPT_TENSOR_OPERATOR(/, div)
AOPT_TENSOR_OPERATOR(&, bit_and)
AOPT_TENSOR_OPERATOR(|, bit_or)
AOPT_TENSOR_OPERATOR(<, lt)
AOPT_TENSOR_OPERATOR(>, gt)
AOPT_TENSOR_OPERATOR(<=, le)
AOPT_TENSOR_OPERATOR(>=, ge)
AOPT_TENSOR_OPERATOR(==, eq)
AOPT_TENSOR_OPERATOR(!=, ne)
#undef AOPT_TENSOR_OPERATOR

}  // namespace AscendC
