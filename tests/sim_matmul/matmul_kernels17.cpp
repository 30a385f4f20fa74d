// Kernels written as an AscendC Matmul operator is (C++17, lib/matmul_intf.h only).
#include "matmul_kernels17.h"

#include <algorithm>

#include "lib/matmul_intf.h"

#if __cplusplus > 201703L
#error "matmul_kernels17.cpp must be compiled as C++17, as CANN compiles kernels"
#endif

using namespace AscendC;

namespace aopt::sim::test {
namespace {

struct piece {
  int mi = 0, ni = 0, tail_m = 0, tail_n = 0;
  std::uint64_t off_a = 0, off_b = 0, off_c = 0, off_bias = 0;
};

piece piece_of(const TCubeTiling& t, bool trans_a, bool trans_b, int idx) {
  const int m_dim = (t.M + t.singleCoreM - 1) / t.singleCoreM;
  piece p;
  p.mi = idx % m_dim;
  p.ni = idx / m_dim;
  const std::uint64_t m0 = static_cast<std::uint64_t>(p.mi) * t.singleCoreM;
  const std::uint64_t n0 = static_cast<std::uint64_t>(p.ni) * t.singleCoreN;
  p.tail_m = static_cast<int>(t.M - m0 < static_cast<std::uint64_t>(t.singleCoreM) ? t.M - m0 : t.singleCoreM);
  p.tail_n = static_cast<int>(t.N - n0 < static_cast<std::uint64_t>(t.singleCoreN) ? t.N - n0 : t.singleCoreN);
  p.off_a = trans_a ? m0 : m0 * t.Ka;
  p.off_b = trans_b ? n0 * t.Kb : n0;
  p.off_c = m0 * t.N + n0;
  p.off_bias = n0;
  return p;
}

template <class AT, class CT, class BiasT, const auto& CFG>
__aicore__ inline void mm_kernel(const mm_args& x) {
  const TCubeTiling& t = *x.tiling;
  const int idx = static_cast<int>(GetBlockIdx());
  if (idx >= t.usedCoreNum) return;
  const piece p = piece_of(t, x.trans_a, x.trans_b, idx);
  TPipe pipe;
  GlobalTensor<AT> aG, bG;
  GlobalTensor<CT> cG;
  GlobalTensor<BiasT> biasG;
  aG.SetGlobalBuffer(reinterpret_cast<__gm__ AT*>(x.a));
  bG.SetGlobalBuffer(reinterpret_cast<__gm__ AT*>(x.b));
  cG.SetGlobalBuffer(reinterpret_cast<__gm__ CT*>(x.c));
  if (x.bias != nullptr) biasG.SetGlobalBuffer(reinterpret_cast<__gm__ BiasT*>(x.bias));

  using A_T = MatmulType<TPosition::GM, CubeFormat::ND, AT>;
  using C_T = MatmulType<TPosition::GM, CubeFormat::ND, CT>;
  using BIAS_T = MatmulType<TPosition::GM, CubeFormat::ND, BiasT>;
  Matmul<A_T, A_T, C_T, BIAS_T, CFG> mm;
  REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
  mm.SetTensorA(aG[p.off_a], x.trans_a);
  mm.SetTensorB(bG[p.off_b], x.trans_b);
  if (x.bias != nullptr) mm.SetBias(biasG[p.off_bias]);
  if (x.quant_scalar != 0) mm.SetQuantScalar(x.quant_scalar);
  mm.SetTail(p.tail_m, p.tail_n);
  switch (x.out) {
    case mm_out::iterate_all: mm.IterateAll(cG[p.off_c]); break;
    case mm_out::iterate_all_atomic_add: mm.IterateAll(cG[p.off_c], 1); break;
    case mm_out::iterate_get_gm: {
      const int m_iter = (p.tail_m + t.baseM - 1) / t.baseM;
      int k = 0;
      while (mm.Iterate()) {
        if (idx == 0 && x.order != nullptr) x.order->push_back((k % m_iter) * 1000 + k / m_iter);
        mm.GetTensorC(cG[p.off_c]);
        ++k;
      }
      break;
    }
    case mm_out::iterate_async_ws: {
      GlobalTensor<std::uint8_t> ws;
      ws.SetGlobalBuffer(reinterpret_cast<__gm__ std::uint8_t*>(x.workspace) +
                             static_cast<std::uint64_t>(idx) * t.singleCoreM * t.singleCoreN * sizeof(CT),
                         static_cast<std::uint64_t>(t.singleCoreM) * t.singleCoreN * sizeof(CT));
      if (!x.skip_set_workspace) mm.SetWorkspace(ws);
      mm.template Iterate<false>();
      const int m_iter = (p.tail_m + t.baseM - 1) / t.baseM, n_iter = (p.tail_n + t.baseN - 1) / t.baseN;
      for (int k = 0; k < m_iter * n_iter; ++k) {
        GlobalTensor<CT> blk = mm.GetTensorC();
        const int m0 = (k % m_iter) * t.baseM, n0 = (k / m_iter) * t.baseN;
        const int rows = std::min(t.baseM, p.tail_m - m0), cols = std::min(t.baseN, p.tail_n - n0);
        for (int i = 0; i < rows; ++i)
          for (int j = 0; j < cols; ++j)
            cG.SetValue(p.off_c + static_cast<std::uint64_t>(m0 + i) * t.N + (n0 + j), blk.GetValue(i * cols + j));
      }
      break;
    }
    case mm_out::iterate_get_ub: {
      // Each block to UB (dense baseM x baseN), then row by row to its place in GM; the block's
      // place follows iterateOrder 0 (M first).
      TBuf<TPosition::VECCALC> buf;
      pipe.InitBuffer(buf, static_cast<std::uint32_t>(t.baseM * t.baseN * sizeof(CT)));
      LocalTensor<CT> cl = buf.Get<CT>();
      const int m_iter = (p.tail_m + t.baseM - 1) / t.baseM;
      int k = 0;
      while (mm.Iterate()) {
        mm.GetTensorC(cl);
        const int m0 = (k % m_iter) * t.baseM, n0 = (k / m_iter) * t.baseN;
        for (int i = 0; i < t.baseM && m0 + i < p.tail_m; ++i)
          for (int j = 0; j < t.baseN && n0 + j < p.tail_n; ++j)
            cG.SetValue(p.off_c + static_cast<std::uint64_t>(m0 + i) * t.N + (n0 + j), cl.GetValue(i * t.baseN + j));
        ++k;
      }
      break;
    }
  }
  mm.End();
}

}  // namespace

void mm17_f16_f32_norm(const mm_args& x) { mm_kernel<half, float, float, CFG_NORM>(x); }
void mm17_f16_f32_mdl(const mm_args& x) { mm_kernel<half, float, float, CFG_MDL>(x); }
void mm17_bf16_f32_norm(const mm_args& x) { mm_kernel<bfloat16_t, float, float, CFG_NORM>(x); }
void mm17_i8_i32_norm(const mm_args& x) { mm_kernel<std::int8_t, std::int32_t, std::int32_t, CFG_NORM>(x); }
void mm17_i8_f16_norm(const mm_args& x) { mm_kernel<std::int8_t, half, std::int32_t, CFG_NORM>(x); }
void mm17_f16_f16_mdl(const mm_args& x) { mm_kernel<half, half, float, CFG_MDL>(x); }

// A constant tiling as cann-ops' matmul_api_constant writes it: GetMMConfig with the shapes,
// GetMatmulApiTiling, the result as Matmul's CFG (the runtime tiling is still registered).
struct static_f16 {
  using A_T = MatmulType<TPosition::GM, CubeFormat::ND, half>;
  using C_T = MatmulType<TPosition::GM, CubeFormat::ND, float>;
  constexpr static MatmulShapeParams shape = {128, 128, 256, 128, 128, 64};
  constexpr static MatmulConfig config = GetMMConfig<MatmulConfigMode::CONFIG_NORM>(shape);
  constexpr static MatmulApiStaticTiling tiling = GetMatmulApiTiling<A_T, A_T, C_T, C_T>(config);
};
static_assert(static_f16::tiling.baseK == 64 && static_f16::tiling.singleCoreK == 256 && static_f16::tiling.cfg.doNorm,
              "GetMatmulApiTiling keeps the constant shapes and the config");
void mm17_f16_f32_static(const mm_args& x) { mm_kernel<half, float, float, static_f16::tiling>(x); }

// mat_mul_v3's form (mat_mul_deterministic_splitk_kernel.h): every parameter group, positional.
struct static_mdl_f16 {
  using A_T = MatmulType<TPosition::GM, CubeFormat::ND, half>;
  using C_T = MatmulType<TPosition::GM, CubeFormat::ND, float>;
  constexpr static MatmulConfigMode mode = MatmulConfigMode::CONFIG_MDL;
  constexpr static MatmulShapeParams shape = {0, 0, 0, 128, 128, 64};
  constexpr static MatmulQuantParams quant = {false, true};
  constexpr static MatmulBatchParams batch = {false, BatchMode::NONE};
  constexpr static MatmulFuncParams func{false, false, false, false, 2, IterateOrder::UNDEF,
                                         ScheduleType::INNER_PRODUCT, true, true};
  constexpr static MatmulConfig config = GetMMConfig<mode>(shape, quant, batch, func);
  constexpr static MatmulApiStaticTiling tiling = GetMatmulApiTiling<A_T, A_T, C_T, C_T>(config);
};
static_assert(static_mdl_f16::config.doMultiDataLoad && static_mdl_f16::config.basicK == 64,
              "CONFIG_MDL with the shape group");
static_assert(static_mdl_f16::config.doMTE2Preload == 2 && static_mdl_f16::config.enableReuse &&
                  static_mdl_f16::config.enableUBReuse && !static_mdl_f16::config.enVecND2NZ,
              "MatmulFuncParams' fields land in the documented order");
static_assert(static_mdl_f16::config.hasAntiQuantOffset && !static_mdl_f16::config.isPerTensor &&
                  static_mdl_f16::config.batchMode == BatchMode::NONE && static_mdl_f16::config.isBiasBatch,
              "the quant and batch groups");
static_assert(static_mdl_f16::tiling.singleCoreM == -1 && static_mdl_f16::tiling.baseN == 128,
              "zero shapes are not constant");
void mm17_f16_f32_static_mdl(const mm_args& x) { mm_kernel<half, float, float, static_mdl_f16::tiling>(x); }

void mm17_two_objects(const mm_args& x, std::uint8_t* b2, std::uint8_t* c2, const optiling::TCubeTiling* tiling2) {
  TPipe pipe;
  GlobalTensor<half> aG, bG, b2G;
  GlobalTensor<float> cG, c2G;
  aG.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(x.a));
  bG.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(x.b));
  b2G.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(b2));
  cG.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x.c));
  c2G.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(c2));
  using A_T = matmul::MatmulType<TPosition::GM, CubeFormat::ND, half>;
  using C_T = matmul::MatmulType<TPosition::GM, CubeFormat::ND, float>;
  matmul::Matmul<A_T, A_T, C_T, C_T> mm1;
  matmul::Matmul<A_T, A_T, C_T, C_T, CFG_MDL> mm2;
  REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm1, x.tiling, mm2, tiling2);
  mm1.SetTensorA(aG);
  mm1.SetTensorB(bG);
  mm1.IterateAll(cG);
  mm1.End();
  mm2.SetTensorA(aG);
  mm2.SetTensorB(b2G);
  mm2.IterateAll(c2G);
  mm2.End();
}

void mm17_f16_f32_batch(const mm_args& x, const mm_batch_args& bx) {
  TPipe pipe;
  GlobalTensor<half> aG, bG;
  GlobalTensor<float> cG, biasG;
  aG.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(x.a));
  bG.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(x.b));
  cG.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x.c));
  using A_T = MatmulType<TPosition::GM, CubeFormat::ND, half, false, LayoutMode::NORMAL>;
  using C_T = MatmulType<TPosition::GM, CubeFormat::ND, float, false, LayoutMode::NORMAL>;
  using BIAS_T = MatmulType<TPosition::GM, CubeFormat::ND, float>;
  Matmul<A_T, A_T, C_T, BIAS_T> mm;
  REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, x.tiling);
  mm.SetTensorA(aG, x.trans_a);
  mm.SetTensorB(bG, x.trans_b);
  if (x.bias != nullptr) {
    biasG.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x.bias));
    mm.SetBias(biasG);
  }
  if (bx.by_set_batch_num) {
    mm.SetBatchNum(bx.batch_a, bx.batch_b);
    mm.IterateBatch(cG, 0, 0, 0, bx.stride_a, bx.stride_b);  // the literals of batch_mat_mul_v3's call
  } else {
    mm.IterateBatch(cG, static_cast<std::uint32_t>(bx.batch_a), static_cast<std::uint32_t>(bx.batch_b), false);
  }
  mm.End();
}

}  // namespace aopt::sim::test
