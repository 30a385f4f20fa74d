// Tiling data of ComplexMatDotCustom: complex elements (interleaved fp32 re, im pairs) split over
// the vector cores.
#ifndef COMPLEX_MAT_DOT_CUSTOM_TILING_H
#define COMPLEX_MAT_DOT_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ComplexMatDotCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, complexLength);  // complex elements (m * n)
TILING_DATA_FIELD_DEF(uint32_t, unitsPerCore);   // granules of 4 complex elements (32 B) of the small cores
TILING_DATA_FIELD_DEF(uint32_t, bigCoreNum);     // the first bigCoreNum cores take one granule more
TILING_DATA_FIELD_DEF(uint32_t, tileLength);     // complex elements per UB tile
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(ComplexMatDotCustom, ComplexMatDotCustomTilingData)
}  // namespace optiling
#endif  // COMPLEX_MAT_DOT_CUSTOM_TILING_H
