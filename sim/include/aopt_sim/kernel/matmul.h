// The high-level Matmul API of the kernel (CANN: lib/matmul_intf.h): MatmulType, MatmulConfig
// with CFG_NORM / CFG_MDL, Matmul<A, B, C, Bias, CFG> and REGIST_MATMUL_OBJ. Names and signatures
// follow the public "Matmul Kernel侧接口" reference; the code is our own.
//
// What one Matmul object computes (per core, on the shapes of its TCubeTiling):
//   C[singleCoreM x singleCoreN] (+)= A[singleCoreM x singleCoreK] x B[singleCoreK x singleCoreN] + bias
// with A read from the tensor given to SetTensorA (ND, row-major: row stride Ka, or, transposed,
// the K x M matrix with row stride M), B likewise (row stride N, or transposed the N x K matrix
// with row stride Kb), C written with row stride N (SetOrgShape changes M, N, Ka, Kb); SetTail
// shrinks this core's single shape (the last core's tail). Iterate() computes the next
// baseM x baseN block of C over the whole singleCoreK (baseK at a time, accumulated in float, or
// int32 for int8 inputs, as L0C does), in the order of tiling.iterateOrder (0: along M first,
// then N; 1: along N first); GetTensorC() converts it to C's dtype (float -> half / bf16 round to
// nearest even; int32 -> half with SetQuantScalar's scale) and writes it to GM at the block's
// place (enAtomic 1 / 2 / 3: add / max / min into GM) or to a local tensor as a dense
// baseM x baseN block. IterateAll() does both for every block.
//
// The data path is the one of aopt_sim/kernel/matmul_impl.h (see there for what is timed).
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "aopt_sim/host/matmul_tiling_data.h"
#include "aopt_sim/kernel/core.h"
#include "aopt_sim/kernel/global_tensor.h"
#include "aopt_sim/kernel/mix.h"
#include "aopt_sim/kernel/pipe.h"
#include "aopt_sim/kernel/tensor.h"
#include "aopt_sim/kernel/types.h"

namespace AscendC {

enum class CubeFormat : std::uint8_t { ND = 0, NZ, ZN, ZZ, NN, ND_ALIGN, SCALAR, VECTOR };
enum class LayoutMode : std::uint8_t { NONE = 0, BSNGD, SBNGD, BNGS1S2, NORMAL };
enum class IterateOrder : std::uint8_t { ORDER_M = 0, ORDER_N, UNDEF };
enum class ScheduleType : std::uint8_t { INNER_PRODUCT = 0, OUTER_PRODUCT };
enum class BatchMode : std::uint8_t { NONE = 0, BATCH_LESS_THAN_L1, BATCH_LARGE_THAN_L1, SINGLE_LARGE_THAN_L1 };
enum IterateMode : std::uint8_t {
  ITERATE_MODE_NORMAL = 0b00000001,
  ITERATE_MODE_ALL = 0b00000010,
  ITERATE_MODE_BATCH = 0b00000100,
  ITERATE_MODE_N_BATCH = 0b00001000,
  ITERATE_MODE_DEFAULT = 0b11111111,
};

template <TPosition POSITION, CubeFormat FORMAT, typename TYPE, bool ISTRANS = false, LayoutMode LAYOUT = LayoutMode::NONE,
          bool IBSHARE = false>
struct MatmulType {
  constexpr static TPosition pos = POSITION;
  constexpr static CubeFormat format = FORMAT;
  using T = TYPE;
  constexpr static bool isTrans = ISTRANS;
  constexpr static LayoutMode layout = LAYOUT;
  constexpr static bool ibShare = IBSHARE;
};

struct MatmulConfig {
  bool doNorm = false;
  bool doBasicBlock = false;
  bool doMultiDataLoad = false;
  std::uint32_t basicM = 0;
  std::uint32_t basicN = 0;
  std::uint32_t basicK = 0;
  bool intrinsicsCheck = false;
  bool isNBatch = false;
  bool enVecND2NZ = false;
  bool doSpecialBasicBlock = false;
  std::uint32_t doMTE2Preload = 0;
  std::uint32_t singleCoreM = 0;
  std::uint32_t singleCoreN = 0;
  std::uint32_t singleCoreK = 0;
  std::uint32_t stepM = 0;
  std::uint32_t stepN = 0;
  std::uint32_t baseMN = 0;
  std::uint32_t singleCoreMN = 0;
  bool enUnitFlag = true;
  bool isPerTensor = false;
  bool hasAntiQuantOffset = false;
  bool doIBShareNorm = false;
  bool doSpecialMDL = false;
  bool enableInit = true;
  BatchMode batchMode = BatchMode::NONE;
  bool enableEnd = true;
  bool enableGetTensorC = true;
  bool enableSetOrgShape = true;
  bool enableSetBias = true;
  bool enableSetTail = true;
  bool enableQuantVector = true;
  bool enableSetDefineData = true;
  std::uint8_t iterateMode = ITERATE_MODE_DEFAULT;
  bool enableReuse = true;
  bool enableUBReuse = false;
  bool enableL1CacheUB = false;
  bool intraBlockPartSum = false;
  IterateOrder iterateOrder = IterateOrder::UNDEF;
  ScheduleType scheduleType = ScheduleType::INNER_PRODUCT;
  bool enableDoubleCache = false;
  bool isBiasBatch = true;
  bool enableStaticPadZeros = false;
  bool isPartialOutput = false;
  bool enableMixDualMaster = false;
  bool isA2B2Shared = false;
  bool isEnableChannelSplit = false;
  bool enableKdimReorderLoad = false;
};

constexpr MatmulConfig GetNormalConfig(bool intrinsicsLimit = false, bool batchLoop = false, bool isVecND2NZ = false,
                                       BatchMode bmmMode = BatchMode::BATCH_LESS_THAN_L1, bool isMsgReuse = true,
                                       IterateOrder iterateOrder = IterateOrder::UNDEF,
                                       ScheduleType scheduleType = ScheduleType::INNER_PRODUCT, bool enUnitFlag = true,
                                       bool enableMixDualMaster = false) {
  MatmulConfig c{};
  c.doNorm = true;
  c.intrinsicsCheck = intrinsicsLimit;
  c.isNBatch = batchLoop;
  c.enVecND2NZ = isVecND2NZ;
  c.batchMode = bmmMode;
  c.enableReuse = isMsgReuse;
  c.iterateOrder = iterateOrder;
  c.scheduleType = scheduleType;
  c.enUnitFlag = enUnitFlag;
  c.enableMixDualMaster = enableMixDualMaster;
  return c;
}
constexpr MatmulConfig GetMDLConfig(bool intrinsicsLimit = false, bool batchLoop = false, std::uint32_t doMTE2Preload = 0,
                                    bool isVecND2NZ = false, bool isPerTensor = false, bool hasAntiQuantOffset = false,
                                    bool enUnitFlag = false, bool isMsgReuse = true, bool enableUBReuse = true,
                                    bool enableL1CacheUB = false, bool enableMixDualMaster = false,
                                    bool enableKdimReorderLoad = false) {
  MatmulConfig c{};
  c.doMultiDataLoad = true;
  c.intrinsicsCheck = intrinsicsLimit;
  c.isNBatch = batchLoop;
  c.doMTE2Preload = doMTE2Preload;
  c.enVecND2NZ = isVecND2NZ;
  c.isPerTensor = isPerTensor;
  c.hasAntiQuantOffset = hasAntiQuantOffset;
  c.enUnitFlag = enUnitFlag;
  c.enableReuse = isMsgReuse;
  c.enableUBReuse = enableUBReuse;
  c.enableL1CacheUB = enableL1CacheUB;
  c.enableMixDualMaster = enableMixDualMaster;
  c.enableKdimReorderLoad = enableKdimReorderLoad;
  return c;
}
constexpr MatmulConfig GetSpecialMDLConfig(bool intrinsicsLimit = false, bool batchLoop = false,
                                           std::uint32_t doMTE2Preload = 0, bool isVecND2NZ = false,
                                           bool isPerTensor = false, bool hasAntiQuantOffset = false) {
  MatmulConfig c = GetMDLConfig(intrinsicsLimit, batchLoop, doMTE2Preload, isVecND2NZ, isPerTensor, hasAntiQuantOffset);
  c.doMultiDataLoad = false;
  c.doSpecialMDL = true;
  return c;
}
constexpr MatmulConfig GetBasicConfig(std::uint32_t basicM, std::uint32_t basicN, std::uint32_t basicK,
                                      bool intrinsicsLimit = false, bool batchLoop = false,
                                      BatchMode bmmMode = BatchMode::BATCH_LESS_THAN_L1) {
  MatmulConfig c{};
  c.doBasicBlock = true;
  c.basicM = basicM;
  c.basicN = basicN;
  c.basicK = basicK;
  c.intrinsicsCheck = intrinsicsLimit;
  c.isNBatch = batchLoop;
  c.batchMode = bmmMode;
  return c;
}
constexpr MatmulConfig GetIBShareNormConfig(bool intrinsicsLimit = false, bool batchLoop = false,
                                            bool isVecND2NZ = false,
                                            BatchMode bmmMode = BatchMode::BATCH_LESS_THAN_L1) {
  MatmulConfig c = GetNormalConfig(intrinsicsLimit, batchLoop, isVecND2NZ, bmmMode);
  c.doNorm = false;
  c.doIBShareNorm = true;
  return c;
}

}  // namespace AscendC

// The ready-made configurations live at global scope, as in CANN: kernels name them unqualified
// outside namespace AscendC (weight_quant_batch_matmul_v2's `MatmulImpl<..., CFG_MDL>`), and a kernel
// may define its own AscendC::CFG_MDL (matmul_all_reduce), which then shadows this one there.
inline constexpr AscendC::MatmulConfig CFG_NORM = AscendC::GetNormalConfig();
inline constexpr AscendC::MatmulConfig CFG_MDL = AscendC::GetMDLConfig();
inline constexpr AscendC::MatmulConfig MM_CFG_BB = AscendC::GetBasicConfig(128, 128, 128);
inline constexpr AscendC::MatmulConfig CFG_IBSHARE_NORM = AscendC::GetIBShareNormConfig();

namespace AscendC {

// Constant tilings: the shapes a kernel fixes at compile time (GetMMConfig with MatmulShapeParams,
// then GetMatmulApiTiling), passed to Matmul as its CFG. sim takes the config part; the kernel
// still registers the runtime tiling (REGIST_MATMUL_OBJ with nullptr for a fully constant tiling
// is not emulated: the object then has no tiling).
struct MatmulShapeParams {
  std::uint32_t singleCoreM = 0;
  std::uint32_t singleCoreN = 0;
  std::uint32_t singleCoreK = 0;
  std::uint32_t basicM = 0;
  std::uint32_t basicN = 0;
  std::uint32_t basicK = 0;
};
// The other parameter groups GetMMConfig takes, fields in the documented order (GetMMConfig,
// tables 5-7), so that positional initialisers (`MatmulFuncParams{false, false, ..., 2, ...}`)
// land where a CANN kernel means them.
struct MatmulQuantParams {
  bool isPerTensor = false;
  bool hasAntiQuantOffset = false;
};
// Reserved in the docs; SINGLE_BATCH, its default, is the one value they name.
enum class BatchOutMode : std::uint8_t { SINGLE_BATCH = 0 };
struct MatmulBatchParams {
  bool isNBatch = false;
  BatchMode batchMode = BatchMode::BATCH_LESS_THAN_L1;
  bool isBiasBatch = true;
  BatchOutMode bmmOutMode = BatchOutMode::SINGLE_BATCH;
};
struct MatmulFuncParams {
  bool intrinsicsLimit = false;
  bool enVecND2NZ = false;
  bool enableDoubleCache = false;
  bool enableL1CacheUB = false;
  std::uint32_t doMTE2Preload = 0;
  IterateOrder iterateOrder = IterateOrder::UNDEF;
  ScheduleType scheduleType = ScheduleType::INNER_PRODUCT;
  bool enableReuse = true;
  bool enableUBReuse = false;
  bool isPartialOutput = false;
  bool isA2B2Shared = false;
  bool isEnableChannelSplit = false;
  bool enableKdimReorderLoad = false;
  bool enableL1BankConflictOptimise = false;
};
enum class MatmulConfigMode { CONFIG_NORM, CONFIG_MDL, CONFIG_SPECIALMDL, CONFIG_IBSHARE };
constexpr void aopt_apply_mm_params(MatmulConfig& c, const MatmulShapeParams& p) {
  c.singleCoreM = p.singleCoreM;
  c.singleCoreN = p.singleCoreN;
  c.singleCoreK = p.singleCoreK;
  c.basicM = p.basicM;
  c.basicN = p.basicN;
  c.basicK = p.basicK;
}
constexpr void aopt_apply_mm_params(MatmulConfig& c, const MatmulQuantParams& p) {
  c.isPerTensor = p.isPerTensor;
  c.hasAntiQuantOffset = p.hasAntiQuantOffset;
}
constexpr void aopt_apply_mm_params(MatmulConfig& c, const MatmulBatchParams& p) {
  c.isNBatch = p.isNBatch;
  c.batchMode = p.batchMode;
  c.isBiasBatch = p.isBiasBatch;
}
constexpr void aopt_apply_mm_params(MatmulConfig& c, const MatmulFuncParams& p) {
  c.intrinsicsCheck = p.intrinsicsLimit;
  c.enVecND2NZ = p.enVecND2NZ;
  c.enableDoubleCache = p.enableDoubleCache;
  c.enableL1CacheUB = p.enableL1CacheUB;
  c.doMTE2Preload = p.doMTE2Preload;
  c.iterateOrder = p.iterateOrder;
  c.scheduleType = p.scheduleType;
  c.enableReuse = p.enableReuse;
  c.enableUBReuse = p.enableUBReuse;
  c.isPartialOutput = p.isPartialOutput;
  c.isA2B2Shared = p.isA2B2Shared;
  c.isEnableChannelSplit = p.isEnableChannelSplit;
  c.enableKdimReorderLoad = p.enableKdimReorderLoad;
}
template <MatmulConfigMode mode, class... Params>
constexpr MatmulConfig GetMMConfig(const Params&... params) {
  MatmulConfig c = mode == MatmulConfigMode::CONFIG_MDL          ? GetMDLConfig()
                   : mode == MatmulConfigMode::CONFIG_SPECIALMDL ? GetSpecialMDLConfig()
                   : mode == MatmulConfigMode::CONFIG_IBSHARE    ? GetIBShareNormConfig()
                                                                 : GetNormalConfig();
  (aopt_apply_mm_params(c, params), ...);
  return c;
}
// The constant tiling: the single-core and base shapes of its config, -1 where not constant.
struct MatmulApiStaticTiling {
  std::int32_t usedCoreNum = -1, M = -1, N = -1, Ka = -1, Kb = -1;
  std::int32_t singleCoreM = -1, singleCoreN = -1, singleCoreK = -1;
  std::int32_t baseM = -1, baseN = -1, baseK = -1;
  std::int32_t depthA1 = -1, depthB1 = -1, stepM = -1, stepN = -1, isBias = -1, transLength = -1, iterateOrder = -1;
  std::int32_t shareMode = -1, shareL1Size = -1, shareL0CSize = -1, shareUbSize = -1, stepKa = -1, stepKb = -1;
  std::int32_t depthAL1CacheUB = -1, depthBL1CacheUB = -1, dbL0A = -1, dbL0B = -1, dbL0C = -1;
  MatmulConfig cfg{};
};
template <class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE>
constexpr MatmulApiStaticTiling GetMatmulApiTiling(const MatmulConfig& mmCFG, std::int32_t l1Size = 512 * 1024) {
  static_cast<void>(l1Size);
  MatmulApiStaticTiling t{};
  auto known = [](std::uint32_t v) { return v == 0 ? -1 : static_cast<std::int32_t>(v); };
  t.singleCoreM = known(mmCFG.singleCoreM);
  t.singleCoreN = known(mmCFG.singleCoreN);
  t.singleCoreK = known(mmCFG.singleCoreK);
  t.baseM = known(mmCFG.basicM);
  t.baseN = known(mmCFG.basicN);
  t.baseK = known(mmCFG.basicK);
  t.cfg = mmCFG;
  return t;
}
namespace aopt_mm_cfg {
constexpr MatmulConfig config_of(const MatmulConfig& c) { return c; }
constexpr MatmulConfig config_of(const MatmulApiStaticTiling& t) { return t.cfg; }
// The MatmulConfig of Matmul's CFG argument (a MatmulConfig or a constant tiling).
template <const auto& CFG>
struct config {
  static constexpr MatmulConfig value = config_of(CFG);
};
}  // namespace aopt_mm_cfg

// Callbacks a Matmul may be given (user data copies); sim takes them and calls none.
template <auto DataCopyOut = nullptr, auto CopyA1 = nullptr, auto CopyB1 = nullptr>
struct MatmulCallBackFunc {};

}  // namespace AscendC

#include "aopt_sim/kernel/matmul_impl.h"

namespace AscendC {

template <class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE = C_TYPE, const auto& MM_CFG = CFG_NORM,
          class MM_CB = MatmulCallBackFunc<>, class... POLICY>
class Matmul : public aopt::sim::matmul_detail::engine<A_TYPE, B_TYPE, C_TYPE, BIAS_TYPE, aopt_mm_cfg::config<MM_CFG>::value> {
  using base = aopt::sim::matmul_detail::engine<A_TYPE, B_TYPE, C_TYPE, BIAS_TYPE, aopt_mm_cfg::config<MM_CFG>::value>;

 public:
  using SrcAT = typename A_TYPE::T;
  using SrcBT = typename B_TYPE::T;
  using DstT = typename C_TYPE::T;
  using BiasT = typename BIAS_TYPE::T;

  // Instantiating the API marks the kernel mixed (aopt_sim/kernel/mix.h, matmul_use_mark).
  Matmul() { static_cast<void>(aopt::sim::kernel_detail::matmul_use_mark<0>::registered); }

  void Init(const TCubeTiling* cubeTiling, TPipe* tpipe = nullptr) { base::init(cubeTiling, tpipe); }
  void SetOrgShape(int orgM, int orgN, int orgK) { base::org_shape(orgM, orgN, orgK, orgK); }
  // orgKc: C's N in GM when it differs from B's (SetOrgShape.md; 0 keeps B's N).
  void SetOrgShape(int orgM, int orgN, int orgKa, int orgKb, int orgKc = 0) {
    base::org_shape(orgM, orgN, orgKa, orgKb, orgKc);
  }
  void SetSingleShape(int singleM, int singleN, int singleK) { base::single_shape(singleM, singleN, singleK); }
  void SetTail(int tailM = -1, int tailN = -1, int tailK = -1) { base::tail(tailM, tailN, tailK); }
  void SetTensorA(const GlobalTensor<SrcAT>& gm, bool isTransposeA = false) {
    base::set_a(gm.GetPhyAddr(), true, isTransposeA);
  }
  void SetTensorA(const LocalTensor<SrcAT>& leftMatrix, bool isTransposeA = false) {
    base::set_a(leftMatrix.aopt_ptr(), false, isTransposeA);
  }
  void SetTensorB(const GlobalTensor<SrcBT>& gm, bool isTransposeB = false) {
    base::set_b(gm.GetPhyAddr(), true, isTransposeB);
  }
  void SetTensorB(const LocalTensor<SrcBT>& rightMatrix, bool isTransposeB = false) {
    base::set_b(rightMatrix.aopt_ptr(), false, isTransposeB);
  }
  void SetBias(const GlobalTensor<BiasT>& biasGlobal) { base::set_bias(biasGlobal.GetPhyAddr(), true); }
  void SetBias(const LocalTensor<BiasT>& inputBias) { base::set_bias(inputBias.aopt_ptr(), false); }
  void DisableBias() { base::disable_bias(); }
  void ClearBias() { base::disable_bias(); }
  void SetQuantScalar(const std::uint64_t quantScalar) { base::quant_scalar(quantScalar); }
  void SetHF32(bool enableHF32 = false, int32_t transMode = 0) {
    static_cast<void>(enableHF32);
    static_cast<void>(transMode);
  }

  // Iterate<false> is the asynchronous mode: one call computes every block of the single shape
  // into the workspace (SetWorkspace) and returns false (all computed); each GetTensorC then takes
  // the next block (aopt_sim/kernel/matmul_impl.h, iterate_async).
  template <bool sync = true>
  bool Iterate(bool enPartialSum = false, aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
    if constexpr (!sync) {
      base::iterate_async(loc);
      return false;
    } else {
      return base::iterate(enPartialSum);
    }
  }
  template <class T>
  void SetWorkspace(GlobalTensor<T>& addr) {
    base::set_workspace(reinterpret_cast<std::uint8_t*>(addr.GetPhyAddr()), addr.GetSize() * sizeof(T));
  }
  template <class T>
  void SetWorkspace(__gm__ const T* addr, int size) {
    base::set_workspace(reinterpret_cast<std::uint8_t*>(const_cast<T*>(addr)),
                        static_cast<std::uint64_t>(size < 0 ? 0 : size) * sizeof(T));
  }
  template <bool sync = true>
  void GetTensorC(const GlobalTensor<DstT>& gm, std::uint8_t enAtomic = 0, bool enSequentialWrite = false,
                  aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
    if (base::async_pending()) return base::async_to(gm.GetPhyAddr(), false, enAtomic, enSequentialWrite, loc);
    base::get_c_gm(gm.GetPhyAddr(), enAtomic, enSequentialWrite);
  }
  template <bool sync = true>
  void GetTensorC(const LocalTensor<DstT>& co2Local, std::uint8_t enAtomic = 0, bool enSequentialWrite = false,
                  aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
    static_cast<void>(enSequentialWrite);
    if (base::async_pending()) return base::async_to(co2Local.aopt_ptr(), true, enAtomic, false, loc);
    base::get_c_local(co2Local.aopt_ptr(), enAtomic);
  }
  template <bool sync = true>
  void GetTensorC(const GlobalTensor<DstT>& gm, const LocalTensor<DstT>& co2Local, std::uint8_t enAtomic = 0,
                  bool enSequentialWrite = false) {
    base::get_c_gm(gm.GetPhyAddr(), enAtomic, enSequentialWrite);
    base::get_c_local(co2Local.aopt_ptr(), 0);
  }
  // The next async block where Iterate<false> left it in the workspace, rows x cols packed (the
  // caller copies it out with the block's width).
  template <bool sync = false>
  GlobalTensor<DstT> GetTensorC(std::uint8_t enAtomic = 0, bool enSequentialWrite = false,
                                aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
    static_cast<void>(enAtomic);
    static_cast<void>(enSequentialWrite);
    const auto& b = base::next_async(loc);
    GlobalTensor<DstT> t;
    t.SetGlobalBuffer(b.data, static_cast<std::uint64_t>(b.rows) * b.cols);
    return t;
  }
  template <bool sync = true>
  void IterateAll(const GlobalTensor<DstT>& gm, std::uint8_t enAtomic = 0, bool enSequentialWrite = false,
                  bool waitIterateAll = false, bool fakeMsg = false) {
    static_cast<void>(waitIterateAll);
    static_cast<void>(fakeMsg);
    while (base::iterate(false)) base::get_c_gm(gm.GetPhyAddr(), enAtomic, enSequentialWrite);
  }
  template <bool sync = true>
  void IterateAll(const LocalTensor<DstT>& ubCmatrix, std::uint8_t enAtomic = 0) {
    while (base::iterate(false)) base::get_c_whole_local(ubCmatrix.aopt_ptr(), enAtomic);
  }
  void WaitIterateAll() {}
  // Batch matmul (LayoutMode NORMAL, BMNK): SetBatchNum sets the A and B matrices of the next
  // IterateBatch without a new tiling; IterateBatch computes max(batchA, batchB) whole products
  // into GM (aopt_sim/kernel/matmul_impl.h, iterate_batch_gm, for strides and broadcast).
  // enSequentialWrite must be false for GM (the reference); the UB form is not emulated.
  void SetBatchNum(std::int32_t batchA, std::int32_t batchB) { base::batch_num(batchA, batchB); }
  template <bool sync = true, bool waitIterateBatch = false>
  void IterateBatch(const GlobalTensor<DstT>& gm, std::uint32_t batchA, std::uint32_t batchB, bool enSequentialWrite,
                    const std::uint32_t matrixStrideA = 0, const std::uint32_t matrixStrideB = 0,
                    const std::uint32_t matrixStrideC = 0, const bool enPartialSum = false, const std::uint8_t enAtomic = 0,
                    aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
    static_cast<void>(enSequentialWrite);
    static_cast<void>(matrixStrideC);
    base::batch_num(static_cast<int>(batchA), static_cast<int>(batchB));
    base::iterate_batch_gm(gm.GetPhyAddr(), enPartialSum, enAtomic, matrixStrideA, matrixStrideB, loc);
  }
  void IterateBatch(const GlobalTensor<DstT>& gm, bool enPartialSum, std::uint8_t enAtomic, bool enSequentialWrite,
                    const std::uint32_t matrixStrideA = 0, const std::uint32_t matrixStrideB = 0,
                    const std::uint32_t matrixStrideC = 0, aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
    static_cast<void>(enSequentialWrite);
    static_cast<void>(matrixStrideC);
    base::iterate_batch_gm(gm.GetPhyAddr(), enPartialSum, enAtomic, matrixStrideA, matrixStrideB, loc);
  }
  void WaitIterateBatch() {}
  void End() { base::end(); }
  // Which AIV of its AI Core a mixed kernel's object serves (mat_mul_base_kernel.h: 0). Sim runs
  // the product on the calling core itself, so the index is kept and changes nothing.
  void SetSubBlockIdx(std::uint8_t subBlockIdx) { sub_block_idx_ = subBlockIdx; }
  std::uint8_t GetSubBlockIdx() const { return sub_block_idx_; }
  // The UB space the real API takes for its own staging (the ND <-> Nz conversions of a GetTensorC
  // into UB; matmul_leakyrelu passes baseM * baseN * sizeof(C) bytes). Sim's product needs no
  // staging: the buffer is accepted and left untouched.
  void SetLocalWorkspace(const LocalTensor<std::uint8_t>& tmpBuffer) { static_cast<void>(tmpBuffer); }
  // The user data the real API hands to the MM_CB copy callbacks (batch_mat_mul_v3: its tiling
  // data's address). Sim calls no callback (MatmulCallBackFunc): the value is kept, nothing reads it.
  void SetUserDefInfo(const std::uint64_t tilingPtr) { user_def_info_ = tilingPtr; }

 private:
  std::uint8_t sub_block_idx_ = 0;
  std::uint64_t user_def_info_ = 0;
};

// MatmulImpl: the class Matmul names, as kernels that hold the object by it spell it
// (mat_mul_v3 / gemm_v2's mat_mul_base_kernel.h: `MatmulImpl<A, B, C, BIAS, MM_CFG, MM_CB> mm_`).
template <class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE = C_TYPE, const auto& MM_CFG = CFG_NORM,
          class MM_CB = MatmulCallBackFunc<>, class... POLICY>
using MatmulImpl = Matmul<A_TYPE, B_TYPE, C_TYPE, BIAS_TYPE, MM_CFG, MM_CB, POLICY...>;

// REGIST_MATMUL_OBJ(pipe, workspace, mm1, &tiling1 [, mm2, &tiling2 ...]): Init of each object
// with its tiling (the workspace carries the AIV->AIC messages of mixed kernels; sim runs the
// Matmul on the calling core and needs none). In a mixed kernel the AIC serves its AIVs' objects
// and returns from the kernel when they are done (aopt_sim/kernel/mix.h): here it returns at
// once and each AIV computes its objects' products itself (docs/sim.md, "Mixed kernels").
namespace aopt_mm_reg {
inline void regist(TPipe*) {}
template <class MM, class... Rest>
inline void regist(TPipe* pipe, MM& mm, const TCubeTiling* tiling, Rest&&... rest) {
  if (tiling != nullptr) mm.Init(tiling, pipe);
  regist(pipe, rest...);
}
template <class MM, class... Rest>
inline void regist(TPipe* pipe, MM& mm, std::nullptr_t, Rest&&... rest) {
  regist(pipe, rest...);
}
}  // namespace aopt_mm_reg

}  // namespace AscendC

#define REGIST_MATMUL_OBJ(tpipe, workspace, ...)              \
  if (::aopt::sim::kernel_detail::aic_serves_matmul()) return; \
  do {                                                        \
    static_cast<void>(workspace);                             \
    ::AscendC::aopt_mm_reg::regist(tpipe, __VA_ARGS__);       \
  } while (0)

// Older kernels name the API through namespace matmul: as in CANN, an alias of AscendC, so
// `using namespace matmul;` brings in the whole kernel API (matmul_leakyrelu's unqualified
// DataCopyParams / DataCopy).
namespace AscendC {
// The rounding-up division matmul kernels call unqualified under `using namespace matmul`
// (batch_mat_mul_v3: `CeilDiv(params_.mCnt, params_.mTileCnt)`); a zero divisor answers 0 rather
// than trapping (the kernels guard against it themselves).
// Two template parameters, so that a kernel's own `template <typename T> T CeilDiv(T, T)` beside
// `using namespace AscendC;` (norm/rms_norm) stays the more specialised one, not ambiguous.
template <typename T, typename U>
inline T CeilDiv(T num, U divisor) {
  return divisor == 0 ? T{} : static_cast<T>((num + divisor - 1) / divisor);
}
}  // namespace AscendC
namespace matmul = AscendC;
