// Fixture (sigmoid_gate_direct): tiling data of GateCustom.
#ifndef GATE_CUSTOM_TILING_H
#define GATE_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(GateCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, coreLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(GateCustom, GateCustomTilingData)
}  // namespace optiling
#endif  // GATE_CUSTOM_TILING_H
