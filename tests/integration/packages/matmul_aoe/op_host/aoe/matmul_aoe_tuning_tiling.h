// The AOE tuning tiling of MatmulAoeCustom, declared as cann-ops' cube tilings declare theirs
// (common/op_host/op_tiling/aoe/op_tuning_tiling/*.h): a packed bank key of the problem and a
// tuning-tiling class of the Matmul tiling's choices, with its schema.
#pragma once
#include <cstdint>

#include "graph/types.h"
#include "register/tuning_bank_key_registry.h"
#include "register/tuning_tiling_registry.h"

namespace tuningtiling {
#pragma pack(push)
#pragma pack(1)
struct MatmulAoeInputArgs {
  int64_t m;
  int64_t k;
  int64_t n;
  ge::DataType a_dtype;
  ge::DataType b_dtype;
  bool trans_a_flag;
  bool trans_b_flag;
  uint64_t reserved_params1;
};
#pragma pack(pop)

BEGIN_TUNING_TILING_DEF(MatmulAoeTunnerTiling)
  TUNING_TILING_DATA_FIELD_DEF(uint32_t, usedCoreNum);
  TUNING_TILING_DATA_FIELD_DEF(uint32_t, baseM);
  TUNING_TILING_DATA_FIELD_DEF(uint32_t, baseN);
  TUNING_TILING_DATA_FIELD_DEF(uint32_t, baseK);
  TUNING_TILING_DATA_FIELD_DEF(uint8_t, tilingEnable);
END_TUNING_TILING_DEF

DECLARE_SCHEMA(MatmulAoeTunnerTiling,
  FIELD(MatmulAoeTunnerTiling, usedCoreNum),
  FIELD(MatmulAoeTunnerTiling, baseM),
  FIELD(MatmulAoeTunnerTiling, baseN),
  FIELD(MatmulAoeTunnerTiling, baseK),
  FIELD(MatmulAoeTunnerTiling, tilingEnable));
}  // namespace tuningtiling
