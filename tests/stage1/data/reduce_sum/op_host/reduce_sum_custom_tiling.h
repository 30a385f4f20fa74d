// Tiling data of ReduceSumCustom: x viewed as [outer, reduce, inner], reduced over the middle axis.
#ifndef REDUCE_SUM_CUSTOM_TILING_H
#define REDUCE_SUM_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ReduceSumCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, outerLength);   // product of the dims before the axis
TILING_DATA_FIELD_DEF(uint32_t, reduceLength);  // the reduced dim
TILING_DATA_FIELD_DEF(uint32_t, innerLength);   // product of the dims after the axis
TILING_DATA_FIELD_DEF(uint32_t, unitsPerCore);  // work units (rows, or row x inner-chunk) of the small cores
TILING_DATA_FIELD_DEF(uint32_t, bigCoreNum);    // the first bigCoreNum cores take one unit more
TILING_DATA_FIELD_DEF(uint32_t, tileLength);    // key 1: elements of one row per chunk; key 2: inner elements per chunk
TILING_DATA_FIELD_DEF(uint32_t, rowsPerTile);   // key 1: rows per copy (expert); key 2: reduce rows per copy
TILING_DATA_FIELD_DEF(uint32_t, outBatch);      // key 1: results gathered before one copy out
TILING_DATA_FIELD_DEF(float, scale);            // 1 / reduceLength for a mean, else 1
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(ReduceSumCustom, ReduceSumCustomTilingData)
}  // namespace optiling
#endif  // REDUCE_SUM_CUSTOM_TILING_H
