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
  DT_UNDEFINED = 28, DT_BFLOAT16 = DT_BF16, DT_HALF = DT_FLOAT16
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
    case DataType::DT_UNDEFINED: break;  // refused by GetTiling before any size is asked
  }
  return 16;
}
inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return b <= 0 ? 0 : (a + b - 1) / b; }
inline std::int64_t align_up(std::int64_t a, std::int64_t b) { return ceil_div(a, b) * b; }
// C0: the elements of 32 bytes (the fractal's K side): 16 for half/bf16, 8 for float, 32 for int8.
inline std::int64_t c0_of(DataType t) { return 256 / dtype_bits(t); }
}  // namespace aopt_mm

// The chip version and one AI Core's buffer sizes, for tiling code that builds them itself (from
// GetSocVersion / GetCoreMemSize) instead of passing a PlatformAscendC; members as documented.
struct PlatformInfo {
  platform_ascendc::SocVersion socVersion{};
  std::uint64_t l1Size = 0;
  std::uint64_t l0CSize = 0;
  std::uint64_t ubSize = 0;
  std::uint64_t l0ASize = 0;
  std::uint64_t l0BSize = 0;
};

// The base of MatmulApiTiling (one core), MultiCoreMatmulTiling and the tiling code's own classes
// (quant_batch_matmul_v3 fills either through a `MatmulApiTilingBase&`): the setters and the rule,
// GetTiling virtual as documented.
class MatmulApiTilingBase {
 public:
  MatmulApiTilingBase() : MatmulApiTilingBase(platform_ascendc::PlatformAscendC()) {}
  // The sizes come from `platform`; PlatformInfo carries no core count, so the platform's AIC count
  // stands (MultiCoreMatmulTiling's SetDim sets the cores used).
  explicit MatmulApiTilingBase(const PlatformInfo& platform) : MatmulApiTilingBase() {
    l1_ = static_cast<std::int64_t>(platform.l1Size);
    l0a_ = static_cast<std::int64_t>(platform.l0ASize);
    l0b_ = static_cast<std::int64_t>(platform.l0BSize);
    l0c_ = static_cast<std::int64_t>(platform.l0CSize);
    ub_ = static_cast<std::int64_t>(platform.ubSize);
  }
  explicit MatmulApiTilingBase(const platform_ascendc::PlatformAscendC& ascendcPlatform) {
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
  virtual ~MatmulApiTilingBase() = default;

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
  virtual std::int64_t GetTiling(optiling::TCubeTiling& tiling) = 0;

  std::int32_t GetBaseM() const { return base_m_; }
  std::int32_t GetBaseN() const { return base_n_; }
  std::int32_t GetBaseK() const { return base_k_; }

 protected:
  std::int64_t fail(const std::string& why) const {
    std::cerr << "matmul_tiling::GetTiling: " << why << "\n";
    return -1;
  }
  // fail() for the phases of compute(): says why, returns false.
  bool refuse(const std::string& why) const { return fail(why) == 0; }

  // Per-core shape of the multi-core split (step 2); false when nothing fits.
  virtual bool split_cores(std::int64_t M, std::int64_t N, std::int64_t& sm, std::int64_t& sn) const {
    sm = M;
    sn = N;
    return true;
  }

  // The working values of one GetTiling, filled phase by phase (steps 1-5 of the rule at the top).
  struct plan {
    std::int64_t M = 0, N = 0, Ka = 0, Kb = 0;  // step 1: the whole shape
    std::int64_t in_bits = 0, c0 = 0;           // input element size, C0 in elements
    std::int64_t sm = 0, sn = 0, sk = 0;        // steps 1-2: the per-core shape
    std::int64_t l0c_cap = 0, l1_cap = 0;       // L0C / L1 after SetBufferSpace
    std::int64_t bm = 0, bn = 0, bk = 0;        // step 3: the base block
    std::int64_t db_a = 1, db_b = 1, db_c = 1;  // step 4
    std::int64_t step_k = 1, depth_mul = 2;     // step 5
    static constexpr std::int64_t l0c_elem = 4;  // float or int32 accumulation
    std::int64_t bytes(std::int64_t elems) const { return elems * in_bits / 8; }
  };

  // Step 1: the whole shape and the input dtype; false (said why) when something is missing.
  bool resolve_shape(plan& p) const {
    if (!a_.set || !b_.set || !c_.set) return refuse("SetAType, SetBType and SetCType must all be called before GetTiling");
    for (const MatTilingType* t : {&a_, &b_, &c_}) {
      if (t->dataType == DataType::DT_UNDEFINED) return refuse("a matrix type is DT_UNDEFINED: give SetAType/SetBType/SetCType a data type");
    }
    p.M = org_m_ > 0 ? org_m_ : m_;
    p.N = org_n_ > 0 ? org_n_ : n_;
    p.Ka = org_ka_ > 0 ? org_ka_ : k_;
    p.Kb = org_kb_ > 0 ? org_kb_ : k_;
    if (p.M <= 0 || p.N <= 0 || p.Ka <= 0 || p.Kb <= 0)
      return refuse("the shape is not set or not positive (M=" + std::to_string(p.M) + " N=" + std::to_string(p.N) +
                  " K=" + std::to_string(p.Ka) + "): call SetShape(m, n, k) or SetOrgShape(m, n, k)");
    p.in_bits = aopt_mm::dtype_bits(a_.dataType);
    if (aopt_mm::dtype_bits(b_.dataType) != p.in_bits)
      return refuse("A and B have different element sizes; Mmad takes one input dtype");
    p.c0 = aopt_mm::c0_of(a_.dataType);
    p.l0c_cap = l0c_limit_ > 0 ? std::min<std::int64_t>(l0c_limit_, l0c_) : l0c_;
    p.l1_cap = l1_limit_ > 0 ? std::min<std::int64_t>(l1_limit_, l1_) : l1_;
    return true;
  }

  // Steps 1-2: the per-core shape (SetSingleShape, else SetShape, else the multi-core split).
  bool resolve_single_core(plan& p, bool multi) const {
    p.sm = single_m_;
    p.sn = single_n_;
    p.sk = single_k_;
    if (p.sk <= 0) p.sk = k_ > 0 ? k_ : p.Ka;
    if (p.sm <= 0 || p.sn <= 0) {
      std::int64_t wm = m_ > 0 ? m_ : p.M, wn = n_ > 0 ? n_ : p.N;
      if (multi) {
        if (!split_cores(wm, wn, wm, wn)) return refuse("no split of M x N over the cores of SetDim");
      }
      if (p.sm <= 0) p.sm = wm;
      if (p.sn <= 0) p.sn = wn;
    }
    // SetShape.md: the shape is "the original matrix or a part of it" but no constraint is documented and
    // SetOrgShape's only says the original shape serves the offsets; CANN's own image family sets a
    // per-core N larger than the original (upsample_bilinear2d_aa), so a larger single shape is tiled as given.
    return true;
  }

  // Step 3a: baseM x baseN, the largest (then squarest) block of which two fit L0C.
  void choose_base_mn(plan& p) const {
    using aopt_mm::align_up;
    std::int64_t bm = fix_m_, bn = fix_n_;
    if (bm > 0 && bn > 0) {
      p.bm = bm;
      p.bn = bn;
      return;
    }
    const std::int64_t cap_m = std::min<std::int64_t>(align_up(p.sm, 16), max_m_ > 0 ? max_m_ : 256);
    const std::int64_t cap_n = std::min<std::int64_t>(align_up(p.sn, 16), max_n_ > 0 ? max_n_ : 256);
    static constexpr std::int64_t sides[] = {256, 128, 64, 32, 16};
    std::int64_t best = 0, best_m = 16, best_n = 16;
    for (std::int64_t cm : sides) {
      if (bm > 0 && cm != bm) continue;
      if (cm > cap_m && !(bm > 0)) continue;
      for (std::int64_t cn : sides) {
        if (bn > 0 && cn != bn) continue;
        if (cn > cap_n && !(bn > 0)) continue;
        if (cm * cn * plan::l0c_elem * 2 > p.l0c_cap) continue;
        const std::int64_t area = cm * cn;
        // larger area first; on a tie the squarer block (fewer loads per MAC), then the
        // larger side along the larger side of the core's block
        const bool squarer = cm + cn < best_m + best_n;
        const bool same = cm + cn == best_m + best_n;
        const bool better = area > best || (area == best && (squarer || (same && ((p.sm >= p.sn && cm > best_m) || (p.sn > p.sm && cn > best_n)))));
        if (better) {
          best = area;
          best_m = cm;
          best_n = cn;
        }
      }
    }
    p.bm = bm > 0 ? bm : best_m;
    p.bn = bn > 0 ? bn : best_n;
  }

  // Step 3b: baseK (the largest power-of-two multiple of C0 of which two blocks fit L0A and L0B),
  // then the checks of the whole base block against the fractal sizes and L0A/L0B/L0C.
  bool choose_base_k(plan& p) const {
    p.bk = fix_k_;
    if (p.bk <= 0) {
      const std::int64_t cap_k = std::min<std::int64_t>(aopt_mm::align_up(p.sk, p.c0), max_k_ > 0 ? max_k_ : 1 << 20);
      p.bk = p.c0;
      for (std::int64_t cand = p.c0; cand <= cap_k; cand *= 2) {
        if (p.bytes(p.bm * cand) * 2 <= l0a_ && p.bytes(p.bn * cand) * 2 <= l0b_) p.bk = cand;
      }
    }
    if (p.bm % 16 != 0 || p.bn % 16 != 0)
      return refuse("baseM (" + std::to_string(p.bm) + ") and baseN (" + std::to_string(p.bn) +
                  ") must be multiples of 16 (the fractal's side)");
    if (p.bk % p.c0 != 0)
      return refuse("baseK (" + std::to_string(p.bk) + ") must be a multiple of " + std::to_string(p.c0) +
                  " (32 bytes of the input dtype)");
    if (p.bytes(p.bm * p.bk) > l0a_)
      return refuse("baseM x baseK = " + std::to_string(p.bytes(p.bm * p.bk)) + " bytes exceeds L0A (" + std::to_string(l0a_) + ")");
    if (p.bytes(p.bn * p.bk) > l0b_)
      return refuse("baseN x baseK = " + std::to_string(p.bytes(p.bn * p.bk)) + " bytes exceeds L0B (" + std::to_string(l0b_) + ")");
    if (p.bm * p.bn * plan::l0c_elem > p.l0c_cap)
      return refuse("baseM x baseN x 4 = " + std::to_string(p.bm * p.bn * plan::l0c_elem) + " bytes exceeds L0C (" +
                  std::to_string(p.l0c_cap) + ")");
    return true;
  }

  // L1 bytes of `mul` x `stepk` base blocks of A and of B, and the bias row.
  std::int64_t l1_use(const plan& p, std::int64_t stepk, std::int64_t mul) const {
    const std::int64_t bias_bytes = has_bias_ ? p.bn * 4 : 0;
    return p.bytes(p.bm * p.bk) * mul * stepk + p.bytes(p.bn * p.bk) * mul * stepk + bias_bytes;
  }

  // Steps 4-5: L0 double buffering, then the L1 depth (halving stepK until it fits).
  bool plan_buffers(plan& p) const {
    p.db_a = db_a_ && p.bytes(p.bm * p.bk) * 2 <= l0a_ ? 2 : 1;
    p.db_b = db_b_ && p.bytes(p.bn * p.bk) * 2 <= l0b_ ? 2 : 1;
    p.db_c = db_c_ && p.bm * p.bn * plan::l0c_elem * 2 <= p.l0c_cap ? 2 : 1;
    p.step_k = aopt_mm::ceil_div(p.sk, p.bk);
    p.depth_mul = 2;
    while (p.step_k > 1 && l1_use(p, p.step_k, p.depth_mul) > p.l1_cap) p.step_k = aopt_mm::ceil_div(p.step_k, 2);
    if (l1_use(p, p.step_k, p.depth_mul) > p.l1_cap) p.depth_mul = 1;
    if (l1_use(p, p.step_k, p.depth_mul) > p.l1_cap)
      return refuse("one base block of A and of B (" + std::to_string(l1_use(p, 1, 1)) + " bytes) exceeds L1 (" +
                  std::to_string(p.l1_cap) + ")");
    return true;
  }

  // The TCubeTiling of a finished plan.
  void fill_tiling(const plan& p, optiling::TCubeTiling& t) const {
    using aopt_mm::ceil_div;
    t = optiling::TCubeTiling{};
    t.usedCoreNum = static_cast<std::int32_t>(ceil_div(m_ > 0 ? m_ : p.M, p.sm) * ceil_div(n_ > 0 ? n_ : p.N, p.sn));
    t.M = static_cast<std::int32_t>(p.M);
    t.N = static_cast<std::int32_t>(p.N);
    t.Ka = static_cast<std::int32_t>(p.Ka);
    t.Kb = static_cast<std::int32_t>(p.Kb);
    t.singleCoreM = static_cast<std::int32_t>(p.sm);
    t.singleCoreN = static_cast<std::int32_t>(p.sn);
    t.singleCoreK = static_cast<std::int32_t>(p.sk);
    t.baseM = static_cast<std::int32_t>(p.bm);
    t.baseN = static_cast<std::int32_t>(p.bn);
    t.baseK = static_cast<std::int32_t>(p.bk);
    t.stepM = 1;
    t.stepN = 1;
    t.stepKa = static_cast<std::int32_t>(p.step_k);
    t.stepKb = static_cast<std::int32_t>(p.step_k);
    t.depthA1 = static_cast<std::int32_t>(p.depth_mul * p.step_k);
    t.depthB1 = static_cast<std::int32_t>(p.depth_mul * p.step_k);
    t.isBias = has_bias_ ? 1 : 0;
    const bool ub_a = a_.pos == TPosition::VECCALC || a_.pos == TPosition::VECIN;
    const bool ub_b = b_.pos == TPosition::VECCALC || b_.pos == TPosition::VECIN;
    const bool ub_c = c_.pos == TPosition::VECCALC || c_.pos == TPosition::VECOUT;
    std::int64_t trans = 0;
    if (ub_a) trans = std::max(trans, p.bytes(p.bm * p.bk));
    if (ub_b) trans = std::max(trans, p.bytes(p.bn * p.bk));
    if (ub_c) trans = std::max(trans, p.bm * p.bn * aopt_mm::dtype_bits(c_.dataType) / 8);
    t.transLength = static_cast<std::int32_t>(trans);
    t.iterateOrder = traverse_ == MatrixTraverse::FIRSTN ? 1 : 0;
    t.shareMode = 0;
    t.shareL1Size = static_cast<std::int32_t>(l1_use(p, p.step_k, p.depth_mul));
    t.shareL0CSize = static_cast<std::int32_t>(p.bm * p.bn * plan::l0c_elem * p.db_c);
    t.shareUbSize = 0;
    t.batchM = 1;
    t.batchN = 1;
    t.singleBatchM = 1;
    t.singleBatchN = 1;
    t.dbL0A = static_cast<std::int32_t>(p.db_a);
    t.dbL0B = static_cast<std::int32_t>(p.db_b);
    t.dbL0C = static_cast<std::int32_t>(p.db_c);
    t.BatchNum = 1;
  }

  std::int64_t compute(optiling::TCubeTiling& t, bool multi) {
    plan p;
    if (!resolve_shape(p) || !resolve_single_core(p, multi)) return -1;
    choose_base_mn(p);
    if (!choose_base_k(p) || !plan_buffers(p)) return -1;
    base_m_ = static_cast<std::int32_t>(p.bm);
    base_n_ = static_cast<std::int32_t>(p.bn);
    base_k_ = static_cast<std::int32_t>(p.bk);
    fill_tiling(p, t);
    ::aopt::sim::host::write_through(&t, sizeof(t));  // a TCubeTiling bound by SetDataPtr
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

class MatmulApiTiling : public MatmulApiTilingBase {
 public:
  MatmulApiTiling() = default;
  explicit MatmulApiTiling(const platform_ascendc::PlatformAscendC& ascendcPlatform)
      : MatmulApiTilingBase(ascendcPlatform) {}
  explicit MatmulApiTiling(const PlatformInfo& platform) : MatmulApiTilingBase(platform) {}
  std::int64_t GetTiling(optiling::TCubeTiling& tiling) override { return compute(tiling, false); }
};

class MultiCoreMatmulTiling : public MatmulApiTilingBase {
 public:
  MultiCoreMatmulTiling() = default;
  explicit MultiCoreMatmulTiling(const platform_ascendc::PlatformAscendC& ascendcPlatform)
      : MatmulApiTilingBase(ascendcPlatform) {}
  explicit MultiCoreMatmulTiling(const PlatformInfo& platform) : MatmulApiTilingBase(platform) {}

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
  std::int64_t GetTiling(optiling::TCubeTiling& tiling) override {
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
