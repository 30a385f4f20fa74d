// SoftmaxGradRows tiling data: rows split over the cores, tiles of rowsPerTile rows, and the
// SoftmaxGrad tiling of one tile (the idiom of math/inplace_fused_matmul_softmax_grad).
#pragma once
#include "register/tilingdata_base.h"
#include "tiling/tiling_api.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(SoftmaxGradRowsTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rowLength);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerCore);
TILING_DATA_FIELD_DEF(uint32_t, bigCoreNum);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerTile);
TILING_DATA_FIELD_DEF(uint32_t, tmpBytes);
TILING_DATA_FIELD_DEF_STRUCT(SoftMaxTiling, gradTiling);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(SoftmaxGradRows, SoftmaxGradRowsTilingData)
}  // namespace optiling
