// MatmulAllReduceWindow tiling data: the HCCL structs first ("HCCL Tiling使用说明": Mc2InitTiling
// must be the first field), then the Matmul API's TCubeTiling.
#pragma once
#include "register/tilingdata_base.h"
#include "tiling/tiling_api.h"
#include "tiling/hccl/hccl_tiling.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(MatmulAllReduceWindowTilingData)
TILING_DATA_FIELD_DEF_STRUCT(Mc2InitTiling, mc2InitTiling);
TILING_DATA_FIELD_DEF_STRUCT(Mc2CcTiling, mc2CcTiling);
TILING_DATA_FIELD_DEF_STRUCT(TCubeTiling, cubeTilingData);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(MatmulAllReduceWindow, MatmulAllReduceWindowTilingData)
}  // namespace optiling
