// Tiling data of Conv2dIm2col (a fixture of our own, issue 38): y = conv2d(x, w), stride 1,
// "same" zero padding (KH / 2, KW / 2), on the Cube unit through im2col (LoadData 3D v2).
#pragma once
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(Conv2dIm2colTilingData)
TILING_DATA_FIELD_DEF(uint32_t, n);       // images
TILING_DATA_FIELD_DEF(uint32_t, c1);      // input channel blocks of 16
TILING_DATA_FIELD_DEF(uint32_t, h);
TILING_DATA_FIELD_DEF(uint32_t, w);
TILING_DATA_FIELD_DEF(uint32_t, kh);
TILING_DATA_FIELD_DEF(uint32_t, kw);
TILING_DATA_FIELD_DEF(uint32_t, cout);    // output channels (a multiple of 16)
TILING_DATA_FIELD_DEF(uint32_t, baseM);   // output positions per Mmad (a multiple of 16)
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(Conv2dIm2col, Conv2dIm2colTilingData)
}  // namespace optiling
