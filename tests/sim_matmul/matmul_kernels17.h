// Matmul kernels of our own written as AscendC operators write them (C++17, lib/matmul_intf.h),
// run by matmul_kernel_test.cpp through aopt::sim::launch. Each block takes its
// singleCoreM x singleCoreN piece of C (block b: piece (b % mDim, b / mDim)), tails by SetTail.
#pragma once

#include <cstdint>
#include <vector>

#include "aopt_sim/host/matmul_tiling_data.h"

namespace aopt::sim::test {

// iterate_async_ws: SetWorkspace, one Iterate<false>(), then GetTensorC() per block (the
// workspace block copied to its place in C row by row, as quant_batch_matmul_v3 reads it).
enum class mm_out { iterate_all, iterate_get_gm, iterate_get_ub, iterate_all_atomic_add, iterate_async_ws };

struct mm_args {
  std::uint8_t* a = nullptr;
  std::uint8_t* b = nullptr;
  std::uint8_t* bias = nullptr;  // nullptr: no SetBias
  std::uint8_t* c = nullptr;
  const optiling::TCubeTiling* tiling = nullptr;
  bool trans_a = false;
  bool trans_b = false;
  mm_out out = mm_out::iterate_all;
  std::uint64_t quant_scalar = 0;  // SetQuantScalar when not 0
  std::vector<int>* order = nullptr;  // block 0's (mIdx * 1000 + nIdx) per Iterate, in order
  std::uint8_t* workspace = nullptr;  // iterate_async_ws: per block singleCoreM * singleCoreN of C
  bool skip_set_workspace = false;    // iterate_async_ws without SetWorkspace (an error)
};

void mm17_f16_f32_norm(const mm_args& x);
void mm17_f16_f32_mdl(const mm_args& x);
void mm17_bf16_f32_norm(const mm_args& x);
void mm17_i8_i32_norm(const mm_args& x);
void mm17_i8_f16_norm(const mm_args& x);  // dequantised with SetQuantScalar
void mm17_f16_f16_mdl(const mm_args& x);
// Matmul with a constant tiling (GetMMConfig + GetMatmulApiTiling) as its CFG: 256 x 256 x 256, 4 cores.
void mm17_f16_f32_static(const mm_args& x);
// The same with mat_mul_v3's static configuration: GetMMConfig<CONFIG_MDL> with shape, quant,
// batch and function parameter groups (MatmulFuncParams' doMTE2Preload = 2, its positional form).
void mm17_f16_f32_static_mdl(const mm_args& x);
// Two Matmul objects registered with one REGIST_MATMUL_OBJ: c = a x b and c2 = a x b2.
void mm17_two_objects(const mm_args& x, std::uint8_t* b2, std::uint8_t* c2, const optiling::TCubeTiling* tiling2);

// Batch matmul (LayoutMode::NORMAL) on one core: `batch` products c[i] = a[i] x b[i] (+ bias[i]),
// the whole tiling's M x N x K each. by_set_batch_num: SetBatchNum(batch, batch) then
// IterateBatch(gm, false, 0, false, strideA, strideB) with explicit strides (as cann-ops'
// batch_mat_mul_v3); otherwise IterateBatch(gm, batch_a, batch_b, false) with the default strides,
// the smaller batch broadcast.
struct mm_batch_args {
  int batch_a = 1, batch_b = 1;
  bool by_set_batch_num = false;
  std::uint32_t stride_a = 0, stride_b = 0;
};
void mm17_f16_f32_batch(const mm_args& x, const mm_batch_args& bx);

}  // namespace aopt::sim::test
