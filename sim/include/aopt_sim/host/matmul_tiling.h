// The host-side Matmul tiling API (CANN: tiling/tiling_api.h, namespace matmul_tiling):
// MatmulApiTiling (one core) and MultiCoreMatmulTiling (the M x N split over cores), which fill
// a TCubeTiling (aopt_sim/host/matmul_tiling_data.h). Names and signatures follow the public
// "Matmul Tiling" API reference; the choice of the split is our own rule (the real one is not
// public), written out in docs/sim.md ("The Matmul API"):
//
//   1. Shapes: M, N, Ka, Kb from SetOrgShape (else SetShape); the per-core shape from
//      SetSingleShape, else SetShape, else (multi-core) the split of step 2, else the whole.
//   2. Multi-core split (MultiCoreMatmulTiling, no SetSingleShape): K is never split; of every
//      mDim x nDim <= SetDim's core count, the one whose per-core block (each side rounded up to
//      16) has the least M x N area, ties to the squarer block (least M + N), then fewer cores. usedCoreNum = ceil(M / singleCoreM) x
//      ceil(N / singleCoreN).
//   3. Base block: SetFixSplit's values where given (baseM, baseN multiples of 16, baseK of the
//      dtype's C0 = 32 bytes; -1 = choose). Else the largest of 256/128/64/32/16 for baseM and
//      baseN (not above the per-core side rounded up to 16; the larger side first) with
//      baseM x baseN x 4 B x 2 within L0C (one of the two halves of L0C double buffering; ties
//      to the squarer block, which loads fewer bytes per MAC), then
//      the largest baseK (C0 multiples, powers of two, not above singleCoreK rounded to C0) with
//      baseM x baseK and baseN x baseK x dtype bytes x 2 within L0A / L0B.
//   4. L0 double buffering: dbL0A / dbL0B / dbL0C = 2 when two base blocks fit their buffer, else 1.
//   5. L1: stepM = stepN = 1, stepKa = stepKb = the K steps of one core (ceil(singleCoreK / baseK)),
//      halved until depthA1 = 2 x stepM x stepKa and depthB1 = 2 x stepN x stepKb base blocks
//      (and the bias row) fit the L1 space (SetBufferSpace's l1Size, else the platform's L1);
//      at stepKa = stepKb = 1 the depths may drop to 1.
//   6. GetTiling returns -1 (and says why on stderr) when a type or shape is missing, a value is
//      out of range, a SetFixSplit base is misaligned or does not fit L0A/L0B/L0C, or no L1 plan fits.
#pragma once

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <string>

#include "aopt_sim/host/matmul_tiling_data.h"
#include "tiling/platform/platform_ascendc.h"

namespace matmul_tiling {

enum class TPosition : std::int32_t { GM, A1, A2, B1, B2, C1, C2, CO1, CO2, VECIN, VECOUT, VECCALC, LCM = VECCALC, SPM, SHM, TSCM, MAX };
enum class CubeFormat : std::int32_t { ND = 0, NZ, ZN, ZZ, NN, ND_ALIGN, SCALAR, VECTOR, ROW_MAJOR = ND, COLUMN_MAJOR = 8 };
// Values as ge::DataType's, so a cast from the tensor's dtype works as in real tiling code.
enum class DataType : std::int32_t {
  DT_FLOAT = 0, DT_FLOAT16 = 1, DT_INT8 = 2, DT_INT32 = 3, DT_UINT8 = 4, DT_INT16 = 6, DT_UINT16 = 7,
  DT_UINT32 = 8, DT_INT64 = 9, DT_UINT64 = 10, DT_DOUBLE = 11, DT_BOOL = 12, DT_BF16 = 27, DT_INT4 = 29,
  DT_BFLOAT16 = DT_BF16, DT_HALF = DT_FLOAT16
};
enum class MatrixTraverse : std::int32_t { NOSET = 0, FIRSTM = 1, FIRSTN = 2 };
enum class MatrixMadType : std::int32_t { NORMAL = 0, HF32 = 1 };
enum class DequantType : std::int32_t { SCALAR = 0, TENSOR = 1 };
enum class ScheduleType : std::int32_t { INNER_PRODUCT = 0, OUTER_PRODUCT = 1 };

struct SysTilingTempBufSize {
  std::int32_t ubSize = 0;
  std::int32_t l1Size = 0;
  std::int32_t l0cSize = 0;
};

struct MatTilingType {
  TPosition pos = TPosition::GM;
  CubeFormat type = CubeFormat::ND;
  DataType dataType = DataType::DT_FLOAT16;
  bool isTrans = false;
  bool set = false;
};

namespace aopt_mm {
inline std::int32_t dtype_bits(DataType t) {
  switch (t) {
    case DataType::DT_FLOAT: case DataType::DT_INT32: case DataType::DT_UINT32: return 32;
    case DataType::DT_FLOAT16: case DataType::DT_BF16: case DataType::DT_INT16: case DataType::DT_UINT16: return 16;
    case DataType::DT_INT8: case DataType::DT_UINT8: case DataType::DT_BOOL: return 8;
    case DataType::DT_INT4: return 4;
    case DataType::DT_INT64: case DataType::DT_UINT64: case DataType::DT_DOUBLE: return 64;
  }
  return 16;
}
inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return b <= 0 ? 0 : (a + b - 1) / b; }
inline std::int64_t align_up(std::int64_t a, std::int64_t b) { return ceil_div(a, b) * b; }
// C0: the elements of 32 bytes (the fractal's K side): 16 for half/bf16, 8 for float, 32 for int8.
inline std::int64_t c0_of(DataType t) { return 256 / dtype_bits(t); }
}  // namespace aopt_mm

class MatmulApiTiling {
 public:
  MatmulApiTiling() : MatmulApiTiling(platform_ascendc::PlatformAscendC()) {}
  explicit MatmulApiTiling(const platform_ascendc::PlatformAscendC& ascendcPlatform) {
    std::uint64_t v = 0;
    ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::L1, v);
    l1_ = static_cast<std::int64_t>(v);
    ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::L0_A, v);
    l0a_ = static_cast<std::int64_t>(v);
    ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::L0_B, v);
    l0b_ = static_cast<std::int64_t>(v);
    ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::L0_C, v);
    l0c_ = static_cast<std::int64_t>(v);
    ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, v);
    ub_ = static_cast<std::int64_t>(v);
    cores_ = static_cast<std::int32_t>(ascendcPlatform.GetCoreNumAic());
    if (cores_ <= 0) cores_ = 1;
  }
  virtual ~MatmulApiTiling() = default;

  std::int32_t SetAType(TPosition pos, CubeFormat type, DataType dataType, bool isTrans = false) {
    a_ = MatTilingType{pos, type, dataType, isTrans, true};
    return 0;
  }
  std::int32_t SetBType(TPosition pos, CubeFormat type, DataType dataType, bool isTrans = false) {
    b_ = MatTilingType{pos, type, dataType, isTrans, true};
    return 0;
  }
  std::int32_t SetCType(TPosition pos, CubeFormat type, DataType dataType) {
    c_ = MatTilingType{pos, type, dataType, false, true};
    return 0;
  }
  std::int32_t SetBiasType(TPosition pos, CubeFormat type, DataType dataType) {
    bias_ = MatTilingType{pos, type, dataType, false, true};
    return 0;
  }
  std::int32_t SetShape(std::int32_t m, std::int32_t n, std::int32_t k) {
    m_ = m;
    n_ = n;
    k_ = k;
    return 0;
  }
  std::int32_t SetOrgShape(std::int32_t orgMIn, std::int32_t orgNIn, std::int32_t orgKIn) {
    return SetOrgShape(orgMIn, orgNIn, orgKIn, orgKIn);
  }
  std::int32_t SetOrgShape(std::int32_t orgMIn, std::int32_t orgNIn, std::int32_t orgKaIn, std::int32_t orgKbIn) {
    org_m_ = orgMIn;
    org_n_ = orgNIn;
    org_ka_ = orgKaIn;
    org_kb_ = orgKbIn;
    return 0;
  }
  std::int32_t SetBias(bool isBiasIn = false) {
    has_bias_ = isBiasIn;
    return 0;
  }
  std::int32_t EnableBias(bool isBiasIn = false) { return SetBias(isBiasIn); }
  std::int32_t SetBufferSpace(std::int32_t l1Size = -1, std::int32_t l0CSize = -1, std::int32_t ubSize = -1,
                              std::int32_t btSize = -1) {
    static_cast<void>(btSize);
    l1_limit_ = l1Size;
    l0c_limit_ = l0CSize;
    ub_limit_ = ubSize;
    return 0;
  }
  std::int32_t SetFixSplit(std::int32_t baseMIn = -1, std::int32_t baseNIn = -1, std::int32_t baseKIn = -1) {
    fix_m_ = baseMIn;
    fix_n_ = baseNIn;
    fix_k_ = baseKIn;
    return 0;
  }
  std::int32_t SetTraverse(MatrixTraverse traverse) {
    traverse_ = traverse;
    return 0;
  }
  std::int32_t SetDoubleBuffer(bool a, bool b, bool c, bool bias, bool transND2NZ = true, bool transNZ2ND = true) {
    static_cast<void>(bias);
    static_cast<void>(transND2NZ);
    static_cast<void>(transNZ2ND);
    db_a_ = a;
    db_b_ = b;
    db_c_ = c;
    return 0;
  }
  std::int32_t SetSplitRange(std::int32_t maxBaseM = -1, std::int32_t maxBaseN = -1, std::int32_t maxBaseK = -1,
                             std::int32_t minBaseM = -1, std::int32_t minBaseN = -1, std::int32_t minBaseK = -1) {
    static_cast<void>(minBaseM);
    static_cast<void>(minBaseN);
    static_cast<void>(minBaseK);
    max_m_ = maxBaseM;
    max_n_ = maxBaseN;
    max_k_ = maxBaseK;
    return 0;
  }
  std::int32_t SetMadType(MatrixMadType madType) {
    static_cast<void>(madType);
    return 0;
  }
  void SetMatmulConfigParams(std::int32_t mmConfigTypeIn = 1, bool enableL1CacheUBIn = false,
                             ScheduleType scheduleTypeIn = ScheduleType::INNER_PRODUCT,
                             MatrixTraverse traverseIn = MatrixTraverse::NOSET, bool enVecND2NZIn = false) {
    static_cast<void>(mmConfigTypeIn);
    static_cast<void>(enableL1CacheUBIn);
    static_cast<void>(scheduleTypeIn);
    static_cast<void>(enVecND2NZIn);
    if (traverseIn != MatrixTraverse::NOSET) traverse_ = traverseIn;
  }

  // Fills `tiling` (see the rule at the top of this file); 0 on success, -1 when infeasible.
  std::int64_t GetTiling(optiling::TCubeTiling& tiling) { return compute(tiling, false); }

  std::int32_t GetBaseM() const { return base_m_; }
  std::int32_t GetBaseN() const { return base_n_; }
  std::int32_t GetBaseK() const { return base_k_; }

 protected:
  std::int64_t fail(const std::string& why) const {
    std::cerr << "matmul_tiling::GetTiling: " << why << "\n";
    return -1;
  }

  // Per-core shape of the multi-core split (step 2); false when nothing fits.
  virtual bool split_cores(std::int64_t M, std::int64_t N, std::int64_t& sm, std::int64_t& sn) const {
    sm = M;
    sn = N;
    return true;
  }

  std::int64_t compute(optiling::TCubeTiling& t, bool multi) {
    using aopt_mm::align_up;
    using aopt_mm::ceil_div;
    if (!a_.set || !b_.set || !c_.set) return fail("SetAType, SetBType and SetCType must all be called before GetTiling");
    const std::int64_t M = org_m_ > 0 ? org_m_ : m_;
    const std::int64_t N = org_n_ > 0 ? org_n_ : n_;
    const std::int64_t Ka = org_ka_ > 0 ? org_ka_ : k_;
    const std::int64_t Kb = org_kb_ > 0 ? org_kb_ : k_;
    if (M <= 0 || N <= 0 || Ka <= 0 || Kb <= 0)
      return fail("the shape is not set or not positive (M=" + std::to_string(M) + " N=" + std::to_string(N) +
                  " K=" + std::to_string(Ka) + "): call SetShape(m, n, k) or SetOrgShape(m, n, k)");
    const std::int64_t in_bits = aopt_mm::dtype_bits(a_.dataType);
    if (aopt_mm::dtype_bits(b_.dataType) != in_bits)
      return fail("A and B have different element sizes; Mmad takes one input dtype");
    const std::int64_t c0 = aopt_mm::c0_of(a_.dataType);
    const std::int64_t l0c_elem = 4;  // float or int32 accumulation

    std::int64_t sm = single_m_, sn = single_n_, sk = single_k_;
    if (sk <= 0) sk = k_ > 0 ? k_ : Ka;
    if (sm <= 0 || sn <= 0) {
      std::int64_t wm = m_ > 0 ? m_ : M, wn = n_ > 0 ? n_ : N;
      if (multi) {
        if (!split_cores(wm, wn, wm, wn)) return fail("no split of M x N over the cores of SetDim");
      }
      if (sm <= 0) sm = wm;
      if (sn <= 0) sn = wn;
    }
    if (sm > M || sn > N || sk > std::max(Ka, Kb))
      return fail("the single-core shape (" + std::to_string(sm) + ", " + std::to_string(sn) + ", " +
                  std::to_string(sk) + ") exceeds the whole shape");

    const std::int64_t l0c_cap = l0c_limit_ > 0 ? std::min<std::int64_t>(l0c_limit_, l0c_) : l0c_;
    const std::int64_t l1_cap = l1_limit_ > 0 ? std::min<std::int64_t>(l1_limit_, l1_) : l1_;
    auto bytes = [&](std::int64_t elems) { return elems * in_bits / 8; };

    // Step 3: the base block.
    std::int64_t bm = fix_m_, bn = fix_n_, bk = fix_k_;
    const std::int64_t cap_m = std::min<std::int64_t>(align_up(sm, 16), max_m_ > 0 ? max_m_ : 256);
    const std::int64_t cap_n = std::min<std::int64_t>(align_up(sn, 16), max_n_ > 0 ? max_n_ : 256);
    if (bm <= 0 || bn <= 0) {
      static constexpr std::int64_t sides[] = {256, 128, 64, 32, 16};
      std::int64_t best = 0, best_m = 16, best_n = 16;
      for (std::int64_t cm : sides) {
        if (bm > 0 && cm != bm) continue;
        if (cm > cap_m && !(bm > 0)) continue;
        for (std::int64_t cn : sides) {
          if (bn > 0 && cn != bn) continue;
          if (cn > cap_n && !(bn > 0)) continue;
          if (cm * cn * l0c_elem * 2 > l0c_cap) continue;
          const std::int64_t area = cm * cn;
          // larger area first; on a tie the squarer block (fewer loads per MAC), then the
          // larger side along the larger side of the core's block
          const bool squarer = cm + cn < best_m + best_n;
          const bool same = cm + cn == best_m + best_n;
          const bool better = area > best || (area == best && (squarer || (same && ((sm >= sn && cm > best_m) || (sn > sm && cn > best_n)))));
          if (better) {
            best = area;
            best_m = cm;
            best_n = cn;
          }
        }
      }
      if (bm <= 0) bm = best_m;
      if (bn <= 0) bn = best_n;
    }
    if (bk <= 0) {
      const std::int64_t cap_k = std::min<std::int64_t>(align_up(sk, c0), max_k_ > 0 ? max_k_ : 1 << 20);
      bk = c0;
      for (std::int64_t cand = c0; cand <= cap_k; cand *= 2) {
        if (bytes(bm * cand) * 2 <= l0a_ && bytes(bn * cand) * 2 <= l0b_) bk = cand;
      }
    }
    if (bm % 16 != 0 || bn % 16 != 0)
      return fail("baseM (" + std::to_string(bm) + ") and baseN (" + std::to_string(bn) +
                  ") must be multiples of 16 (the fractal's side)");
    if (bk % c0 != 0)
      return fail("baseK (" + std::to_string(bk) + ") must be a multiple of " + std::to_string(c0) +
                  " (32 bytes of the input dtype)");
    if (bytes(bm * bk) > l0a_)
      return fail("baseM x baseK = " + std::to_string(bytes(bm * bk)) + " bytes exceeds L0A (" + std::to_string(l0a_) + ")");
    if (bytes(bn * bk) > l0b_)
      return fail("baseN x baseK = " + std::to_string(bytes(bn * bk)) + " bytes exceeds L0B (" + std::to_string(l0b_) + ")");
    if (bm * bn * l0c_elem > l0c_cap)
      return fail("baseM x baseN x 4 = " + std::to_string(bm * bn * l0c_elem) + " bytes exceeds L0C (" +
                  std::to_string(l0c_cap) + ")");

    // Step 4: L0 double buffering.
    const std::int64_t db_a = db_a_ && bytes(bm * bk) * 2 <= l0a_ ? 2 : 1;
    const std::int64_t db_b = db_b_ && bytes(bn * bk) * 2 <= l0b_ ? 2 : 1;
    const std::int64_t db_c = db_c_ && bm * bn * l0c_elem * 2 <= l0c_cap ? 2 : 1;

    // Step 5: L1.
    const std::int64_t ksteps = ceil_div(sk, bk);
    const std::int64_t bias_bytes = has_bias_ ? bn * 4 : 0;
    std::int64_t step_k = ksteps, depth_mul = 2;
    auto l1_use = [&](std::int64_t stepk, std::int64_t mul) {
      return bytes(bm * bk) * mul * stepk + bytes(bn * bk) * mul * stepk + bias_bytes;
    };
    while (step_k > 1 && l1_use(step_k, depth_mul) > l1_cap) step_k = ceil_div(step_k, 2);
    if (l1_use(step_k, depth_mul) > l1_cap) depth_mul = 1;
    if (l1_use(step_k, depth_mul) > l1_cap)
      return fail("one base block of A and of B (" + std::to_string(l1_use(1, 1)) + " bytes) exceeds L1 (" +
                  std::to_string(l1_cap) + ")");

    base_m_ = static_cast<std::int32_t>(bm);
    base_n_ = static_cast<std::int32_t>(bn);
    base_k_ = static_cast<std::int32_t>(bk);
    t = optiling::TCubeTiling{};
    t.usedCoreNum = static_cast<std::int32_t>(ceil_div(m_ > 0 ? m_ : M, sm) * ceil_div(n_ > 0 ? n_ : N, sn));
    t.M = static_cast<std::int32_t>(M);
    t.N = static_cast<std::int32_t>(N);
    t.Ka = static_cast<std::int32_t>(Ka);
    t.Kb = static_cast<std::int32_t>(Kb);
    t.singleCoreM = static_cast<std::int32_t>(sm);
    t.singleCoreN = static_cast<std::int32_t>(sn);
    t.singleCoreK = static_cast<std::int32_t>(sk);
    t.baseM = base_m_;
    t.baseN = base_n_;
    t.baseK = base_k_;
    t.stepM = 1;
    t.stepN = 1;
    t.stepKa = static_cast<std::int32_t>(step_k);
    t.stepKb = static_cast<std::int32_t>(step_k);
    t.depthA1 = static_cast<std::int32_t>(depth_mul * step_k);
    t.depthB1 = static_cast<std::int32_t>(depth_mul * step_k);
    t.isBias = has_bias_ ? 1 : 0;
    const bool ub_a = a_.pos == TPosition::VECCALC || a_.pos == TPosition::VECIN;
    const bool ub_b = b_.pos == TPosition::VECCALC || b_.pos == TPosition::VECIN;
    const bool ub_c = c_.pos == TPosition::VECCALC || c_.pos == TPosition::VECOUT;
    std::int64_t trans = 0;
    if (ub_a) trans = std::max(trans, bytes(bm * bk));
    if (ub_b) trans = std::max(trans, bytes(bn * bk));
    if (ub_c) trans = std::max(trans, bm * bn * aopt_mm::dtype_bits(c_.dataType) / 8);
    t.transLength = static_cast<std::int32_t>(trans);
    t.iterateOrder = traverse_ == MatrixTraverse::FIRSTN ? 1 : 0;
    t.shareMode = 0;
    t.shareL1Size = static_cast<std::int32_t>(l1_use(step_k, depth_mul));
    t.shareL0CSize = static_cast<std::int32_t>(bm * bn * l0c_elem * db_c);
    t.shareUbSize = 0;
    t.batchM = 1;
    t.batchN = 1;
    t.singleBatchM = 1;
    t.singleBatchN = 1;
    t.dbL0A = static_cast<std::int32_t>(db_a);
    t.dbL0B = static_cast<std::int32_t>(db_b);
    t.dbL0C = static_cast<std::int32_t>(db_c);
    t.BatchNum = 1;
    static_cast<void>(ub_limit_);
    static_cast<void>(ub_);
    return 0;
  }

  MatTilingType a_, b_, c_, bias_;
  std::int64_t l1_ = 0, l0a_ = 0, l0b_ = 0, l0c_ = 0, ub_ = 0;
  std::int32_t cores_ = 1;
  std::int32_t m_ = -1, n_ = -1, k_ = -1;
  std::int32_t org_m_ = -1, org_n_ = -1, org_ka_ = -1, org_kb_ = -1;
  std::int32_t single_m_ = -1, single_n_ = -1, single_k_ = -1;
  std::int32_t fix_m_ = -1, fix_n_ = -1, fix_k_ = -1;
  std::int32_t max_m_ = -1, max_n_ = -1, max_k_ = -1;
  std::int32_t l1_limit_ = -1, l0c_limit_ = -1, ub_limit_ = -1;
  std::int32_t base_m_ = 0, base_n_ = 0, base_k_ = 0;
  bool has_bias_ = false;
  bool db_a_ = true, db_b_ = true, db_c_ = false;
  MatrixTraverse traverse_ = MatrixTraverse::NOSET;
};

class MultiCoreMatmulTiling : public MatmulApiTiling {
 public:
  MultiCoreMatmulTiling() = default;
  explicit MultiCoreMatmulTiling(const platform_ascendc::PlatformAscendC& ascendcPlatform)
      : MatmulApiTiling(ascendcPlatform) {}

  // The cores the split may use (the AIC count of the platform by default).
  std::int32_t SetDim(std::int32_t dim) {
    dim_ = dim;
    return 0;
  }
  std::int32_t SetSingleShape(std::int32_t singleMIn = -1, std::int32_t singleNIn = -1, std::int32_t singleKIn = -1) {
    single_m_ = singleMIn;
    single_n_ = singleNIn;
    single_k_ = singleKIn;
    return 0;
  }
  std::int32_t SetSingleRange(std::int32_t maxM = -1, std::int32_t maxN = -1, std::int32_t maxK = -1,
                              std::int32_t minM = -1, std::int32_t minN = -1, std::int32_t minK = -1) {
    static_cast<void>(maxM);
    static_cast<void>(maxN);
    static_cast<void>(maxK);
    static_cast<void>(minM);
    static_cast<void>(minN);
    static_cast<void>(minK);
    return 0;
  }
  std::int32_t SetAlignSplit(std::int32_t alignM, std::int32_t alignN, std::int32_t alignK) {
    static_cast<void>(alignM);
    static_cast<void>(alignN);
    static_cast<void>(alignK);
    return 0;
  }
  void EnableMultiCoreSplitK(bool flag) { static_cast<void>(flag); }
  std::int64_t GetTiling(optiling::TCubeTiling& tiling) {
    const std::int64_t r = compute(tiling, true);
    if (r == 0) {
      single_m_out_ = tiling.singleCoreM;
      single_n_out_ = tiling.singleCoreN;
      single_k_out_ = tiling.singleCoreK;
      const std::int64_t M = m_ > 0 ? m_ : tiling.M, N = n_ > 0 ? n_ : tiling.N;
      m_dim_ = static_cast<std::int32_t>(aopt_mm::ceil_div(M, tiling.singleCoreM));
      n_dim_ = static_cast<std::int32_t>(aopt_mm::ceil_div(N, tiling.singleCoreN));
    }
    return r;
  }
  std::int32_t GetSingleShape(std::int32_t& shapeM, std::int32_t& shapeN, std::int32_t& shapeK) const {
    shapeM = single_m_out_;
    shapeN = single_n_out_;
    shapeK = single_k_out_;
    return 0;
  }
  std::int32_t GetCoreNum(std::int32_t& dim, std::int32_t& mDim, std::int32_t& nDim) const {
    dim = m_dim_ * n_dim_;
    mDim = m_dim_;
    nDim = n_dim_;
    return 0;
  }

 protected:
  bool split_cores(std::int64_t M, std::int64_t N, std::int64_t& sm, std::int64_t& sn) const override {
    using aopt_mm::align_up;
    using aopt_mm::ceil_div;
    const std::int64_t dim = dim_ > 0 ? dim_ : cores_;
    std::int64_t best_area = -1, best_cores = 0, best_perim = 0;
    for (std::int64_t md = 1; md <= dim; ++md) {
      for (std::int64_t nd = 1; md * nd <= dim; ++nd) {
        const std::int64_t cm = align_up(ceil_div(M, md), 16), cn = align_up(ceil_div(N, nd), 16);
        const std::int64_t pm = std::min(cm, M), pn = std::min(cn, N);
        const std::int64_t used = ceil_div(M, pm) * ceil_div(N, pn);
        const std::int64_t area = cm * cn;
        const std::int64_t perim = cm + cn;
        if (best_area < 0 || area < best_area || (area == best_area && perim < best_perim) ||
            (area == best_area && perim == best_perim && used < best_cores)) {
          best_perim = perim;
          best_area = area;
          best_cores = used;
          sm = pm;
          sn = pn;
        }
      }
    }
    return best_area > 0;
  }

 private:
  std::int32_t dim_ = -1;
  std::int32_t single_m_out_ = 0, single_n_out_ = 0, single_k_out_ = 0;
  std::int32_t m_dim_ = 0, n_dim_ = 0;
};

// The L1 / UB / L0C bytes a tiling uses (0 on success, -1 for a tiling without base blocks).
inline std::int32_t MatmulGetTmpBufSize(const optiling::TCubeTiling& tiling, SysTilingTempBufSize& bufSize) {
  if (tiling.baseM <= 0 || tiling.baseN <= 0 || tiling.baseK <= 0) return -1;
  bufSize.l1Size = tiling.shareL1Size;
  bufSize.l0cSize = tiling.shareL0CSize;
  bufSize.ubSize = tiling.transLength;
  return 0;
}

}  // namespace matmul_tiling
