// Fixture (tiling motifs): tiling data of AxpbyCustom, modelled on
// examples/ops/add.
#ifndef AXPBY_CUSTOM_TILING_H
#define AXPBY_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(AxpbyCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, numel);
TILING_DATA_FIELD_DEF(uint32_t, blockElems);
TILING_DATA_FIELD_DEF(uint32_t, perCore);
TILING_DATA_FIELD_DEF(uint32_t, restBlocks);
TILING_DATA_FIELD_DEF(uint32_t, chunk);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(AxpbyCustom, AxpbyCustomTilingData)
} // namespace optiling
#endif // AXPBY_CUSTOM_TILING_H
