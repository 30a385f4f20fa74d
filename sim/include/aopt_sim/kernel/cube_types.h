// Parameter structs of the Cube unit's basic API (matrix compute, ISASI), with the member names,
// order, defaults and constructors of the public AscendC documentation (asc-devkit docs/zh/api/
// SIMD-API/基础API/矩阵计算（ISASI）: LoadData_2D, LoadDataWithTranspose, LoadData_3D, Mmad,
// DataCopy（GMToL1随路转换-ND2NZ搬运）, Fixpipe（L0C到GM数据搬运）, DataCopy（L0C到GM数据搬运）).
// Written from the documentation's tables; the semantics live in cube.h.
#pragma once

#include <cstdint>

// addrMode's values as the CCE compiler declares them, in the global namespace (kernels write
// `LoadData2dParams{..., inc}`): the source index grows (inc) or shrinks (dec) by srcStride.
enum addr_cal_mode_t : std::uint8_t { inc = 0, dec = 1 };

namespace AscendC {

// GM -> L1 with the ND -> NZ conversion (DataCopy(LocalTensor, GlobalTensor, Nd2NzParams)).
// ndNum matrices of nValue rows x dValue elements; the source rows srcDValue elements apart, the
// matrices srcNdMatrixStride elements apart; in L1 each row's 32-byte blocks land
// dstNzC0Stride blocks apart, consecutive rows dstNzNStride blocks apart, the matrices
// dstNzMatrixStride elements apart.
struct Nd2NzParams {
  Nd2NzParams() = default;
  Nd2NzParams(std::uint16_t ndNumIn, std::uint16_t nValueIn, std::uint16_t dValueIn, std::uint16_t srcNdMatrixStrideIn,
              std::uint16_t srcDValueIn, std::uint16_t dstNzC0StrideIn, std::uint16_t dstNzNStrideIn,
              std::uint16_t dstNzMatrixStrideIn)
      : ndNum(ndNumIn), nValue(nValueIn), dValue(dValueIn), srcNdMatrixStride(srcNdMatrixStrideIn),
        srcDValue(srcDValueIn), dstNzC0Stride(dstNzC0StrideIn), dstNzNStride(dstNzNStrideIn),
        dstNzMatrixStride(dstNzMatrixStrideIn) {}
  std::uint16_t ndNum = 0;
  std::uint16_t nValue = 0;
  std::uint16_t dValue = 0;
  std::uint16_t srcNdMatrixStride = 0;
  std::uint16_t srcDValue = 0;
  std::uint16_t dstNzC0Stride = 0;
  std::uint16_t dstNzNStride = 0;
  std::uint16_t dstNzMatrixStride = 0;
};

// LoadData 2D: repeatTimes fractals of 512 bytes, the source fractal index startIndex + i *
// srcStride (addrMode 1: minus), the destination fractals dstGap fractals apart (gap between the
// end of one and the start of the next); ifTranspose transposes each 16 x 16 b16 fractal.
struct LoadData2DParams {
  LoadData2DParams() = default;
  LoadData2DParams(std::uint16_t startIndexIn, std::uint8_t repeatTimesIn, std::uint16_t srcStrideIn,
                   std::uint8_t sidIn, std::uint16_t dstGapIn, bool ifTransposeIn, std::uint8_t addrModeIn)
      : startIndex(startIndexIn), repeatTimes(repeatTimesIn), srcStride(srcStrideIn), sid(sidIn), dstGap(dstGapIn),
        ifTranspose(ifTransposeIn), addrMode(addrModeIn) {}
  std::uint16_t startIndex = 0;
  std::uint8_t repeatTimes = 0;
  std::uint16_t srcStride = 0;
  std::uint8_t sid = 0;
  std::uint16_t dstGap = 0;
  bool ifTranspose = false;
  std::uint8_t addrMode = 0;
};
// The older spelling kernels still use (cann-ops' stft, bidirection_lstm).
using LoadData2dParams = LoadData2DParams;

// LoadDataWithTranspose: square blocks transposed (b16: one 16 x 16 fractal; b8: two 16 x 32
// fractals as one 32 x 32 block; b32: two 16 x 8 fractals as one 16 x 16 block), split again into
// fractals dstFracGap fractals apart.
struct LoadData2dTransposeParams {
  LoadData2dTransposeParams() = default;
  LoadData2dTransposeParams(std::uint16_t startIndexIn, std::uint8_t repeatTimesIn, std::uint16_t srcStrideIn,
                            std::uint16_t dstGapIn, std::uint16_t dstFracGapIn, std::uint8_t addrModeIn = 0)
      : startIndex(startIndexIn), repeatTimes(repeatTimesIn), srcStride(srcStrideIn), dstGap(dstGapIn),
        dstFracGap(dstFracGapIn), addrMode(addrModeIn) {}
  std::uint16_t startIndex = 0;
  std::uint8_t repeatTimes = 0;
  std::uint16_t srcStride = 0;
  std::uint16_t dstGap = 0;
  std::uint16_t dstFracGap = 0;
  std::uint8_t addrMode = 0;
};

// LoadData 3D v2 (im2col from an L1 feature map [C1][H][W][C0] to A2/B2).
template <typename T>
struct LoadData3DParamsV2 {
  LoadData3DParamsV2() = default;
  std::uint8_t padList[4] = {0, 0, 0, 0};  // left, right, top, bottom
  std::uint16_t l1H = 0;
  std::uint16_t l1W = 0;
  std::uint16_t channelSize = 0;
  std::uint16_t kExtension = 0;
  std::uint16_t mExtension = 0;
  std::uint16_t kStartPt = 0;
  std::uint16_t mStartPt = 0;
  std::uint8_t strideW = 1;
  std::uint8_t strideH = 1;
  std::uint8_t filterW = 1;
  std::uint8_t filterH = 1;
  std::uint8_t dilationFilterW = 1;
  std::uint8_t dilationFilterH = 1;
  bool enTranspose = false;
  bool enSmallK = false;
  T padValue = T{};
  bool filterSizeW = false;
  bool filterSizeH = false;
  bool fMatrixCtrl = false;
};

struct LoadDataRepeatParam {
  LoadDataRepeatParam() = default;
  LoadDataRepeatParam(std::uint16_t repeatStrideIn, std::uint8_t repeatTimeIn, std::uint8_t repeatModeIn)
      : repeatStride(repeatStrideIn), repeatTime(repeatTimeIn), repeatMode(repeatModeIn) {}
  std::uint16_t repeatStride = 0;
  std::uint8_t repeatTime = 1;
  std::uint8_t repeatMode = 0;
};

// Fill / InitConstValue of L1 (32-byte blocks) or L0A/L0B (512-byte blocks): repeatTimes rounds of
// blockNum blocks set to initValue, dstGap blocks between the end of a round and the next.
template <typename T>
struct InitConstValueParams {
  InitConstValueParams() = default;
  InitConstValueParams(std::uint16_t repeatTimesIn, std::uint16_t blockNumIn, std::uint16_t dstGapIn, T initValueIn)
      : repeatTimes(repeatTimesIn), blockNum(blockNumIn), dstGap(dstGapIn), initValue(initValueIn) {}
  std::uint16_t repeatTimes = 0;
  std::uint16_t blockNum = 0;
  std::uint16_t dstGap = 0;
  T initValue = T{};
};

// Mmad: C (L0C, m x n) = A (L0A, m x k) x B (L0B, k x n) + C's initial value.
struct MmadParams {
  MmadParams() = default;
  MmadParams(std::uint16_t mIn, std::uint16_t nIn, std::uint16_t kIn, bool isBiasIn, std::int32_t fmOffsetIn,
             bool enSsparseIn, bool enWinogradAIn, bool enWinogradBIn)
      : m(mIn), n(nIn), k(kIn), isBias(isBiasIn), fmOffset(fmOffsetIn), enSsparse(enSsparseIn),
        enWinogradA(enWinogradAIn), enWinogradB(enWinogradBIn) {}
  MmadParams(std::uint16_t mIn, std::uint16_t nIn, std::uint16_t kIn, std::uint8_t unitFlagIn, bool cmatrixSourceIn,
             bool cmatrixInitValIn)
      : m(mIn), n(nIn), k(kIn), unitFlag(unitFlagIn), cmatrixSource(cmatrixSourceIn), cmatrixInitVal(cmatrixInitValIn) {}
  std::uint16_t m = 0;
  std::uint16_t n = 0;
  std::uint16_t k = 0;
  bool isBias = false;
  std::int32_t fmOffset = 0;
  bool enSsparse = false;
  bool enWinogradA = false;
  bool enWinogradB = false;
  std::uint8_t unitFlag = 0;
  bool kDirectionAlign = false;
  bool cmatrixSource = false;
  bool cmatrixInitVal = true;
  bool disableGemv = false;
};

// Fixpipe's quantisation modes (QuantMode_t): NoQuant; F322F16 / F322BF16 (float -> half /
// bfloat16, round to nearest even); DEQF16 / VDEQF16 (int32 -> half, scalar / per-column scale);
// QF322B8_PRE / VQF322B8_PRE (float -> int8/uint8); REQ8 / VREQ8 (int32 -> int8/uint8).
enum QuantMode_t : std::uint8_t {
  NoQuant = 0,
  F322F16,
  F322BF16,
  DEQF16,
  VDEQF16,
  QF322B8_PRE,
  VQF322B8_PRE,
  REQ8,
  VREQ8,
};

enum class CO2Layout : std::uint8_t { NZ = 0, ROW_MAJOR, COLUMN_MAJOR };
struct FixpipeConfig {
  CO2Layout format;
  bool isToUB = false;
};
constexpr FixpipeConfig CFG_NZ = {CO2Layout::NZ};
constexpr FixpipeConfig CFG_ROW_MAJOR = {CO2Layout::ROW_MAJOR};

// Fixpipe L0C -> GM / L1 / UB (architecture 2201's parameters).
struct FixpipeParamsV220 {
  FixpipeParamsV220() = default;
  FixpipeParamsV220(std::uint16_t nSizeIn, std::uint16_t mSizeIn, std::uint16_t srcStrideIn, std::uint32_t dstStrideIn,
                    bool reluEnIn)
      : nSize(nSizeIn), mSize(mSizeIn), srcStride(srcStrideIn), dstStride(dstStrideIn), reluEn(reluEnIn) {}
  FixpipeParamsV220(std::uint16_t nSizeIn, std::uint16_t mSizeIn, std::uint16_t srcStrideIn, std::uint32_t dstStrideIn,
                    bool reluEnIn, QuantMode_t quantPreIn, std::uint64_t deqScalarIn, std::uint16_t ndNumIn,
                    std::uint16_t srcNdStrideIn, std::uint16_t dstNdStrideIn, std::uint8_t unitFlagIn,
                    bool isChannelSplitIn)
      : nSize(nSizeIn), mSize(mSizeIn), srcStride(srcStrideIn), dstStride(dstStrideIn), quantPre(quantPreIn),
        deqScalar(deqScalarIn), ndNum(ndNumIn), srcNdStride(srcNdStrideIn), dstNdStride(dstNdStrideIn),
        reluEn(reluEnIn), unitFlag(unitFlagIn), isChannelSplit(isChannelSplitIn) {}
  std::uint16_t nSize = 0;
  std::uint16_t mSize = 0;
  std::uint16_t srcStride = 0;
  std::uint32_t dstStride = 0;
  QuantMode_t quantPre = QuantMode_t::NoQuant;
  std::uint64_t deqScalar = 0;
  std::uint16_t ndNum = 1;
  std::uint16_t srcNdStride = 0;
  std::uint16_t dstNdStride = 0;
  bool reluEn = false;
  std::uint8_t unitFlag = 0;
  bool isChannelSplit = false;
};
using FixpipeParams220 = FixpipeParamsV220;

// DataCopy L0C -> GM (the older form of the same path): NZ -> ND when nz2ndEn.
struct DataCopyCO12DstParams {
  DataCopyCO12DstParams() = default;
  DataCopyCO12DstParams(std::uint16_t nSizeIn, std::uint16_t mSizeIn, std::uint32_t dstStrideIn,
                        std::uint16_t srcStrideIn, QuantMode_t quantPreIn, std::uint8_t reluPreIn, bool channelSplitIn,
                        bool nz2ndEnIn)
      : nSize(nSizeIn), mSize(mSizeIn), dstStride(dstStrideIn), srcStride(srcStrideIn), quantPre(quantPreIn),
        reluPre(reluPreIn), channelSplit(channelSplitIn), nz2ndEn(nz2ndEnIn) {}
  std::uint8_t sid = 0;
  std::uint16_t nSize = 0;
  std::uint16_t mSize = 0;
  std::uint32_t dstStride = 0;
  std::uint16_t srcStride = 0;
  std::uint8_t unitFlag = 0;
  std::uint8_t clipReluPre = 0;
  std::uint8_t eltWiseOp = 0;
  QuantMode_t quantPre = QuantMode_t::NoQuant;
  std::uint8_t reluPre = 0;
  bool channelSplit = false;
  bool nz2ndEn = false;
};

// SetFixpipeNz2ndFlag's arguments (ndNum, srcNdStride, dstNdStride) for DataCopyCO12DstParams.
struct Nz2NdParams {
  std::uint16_t ndNum = 1;
  std::uint16_t srcNdStride = 0;
  std::uint16_t dstNdStride = 0;
};

}  // namespace AscendC
