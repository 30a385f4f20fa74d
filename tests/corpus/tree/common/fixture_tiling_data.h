// Tiling of the corpus fixtures (tests/corpus): the element count; FIXTURE_OP (the OpDef class)
// comes from the operator's own <kernel>_tiling.h, which includes this file.
#ifndef FIXTURE_TILING_DATA_H
#define FIXTURE_TILING_DATA_H
#include "register/tilingdata_base.h"

#define FIXTURE_REGISTER_TILING(op, data) REGISTER_TILING_DATA_CLASS(op, data)
namespace optiling {
BEGIN_TILING_DATA_DEF(FixtureTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
END_TILING_DATA_DEF;
FIXTURE_REGISTER_TILING(FIXTURE_OP, FixtureTilingData)
}  // namespace optiling
#endif
