/**
 * @file aopt_calib_tiling.h
 * Tiling data of AoptCalib, the calibration probe of `aopt calibrate` (calibration/README.md).
 * Every core takes `blockLength` elements and walks them in tiles of `tileLength` elements;
 * `mode` chooses what one tile costs (calibration/README.md lists the modes).
 */
#ifndef AOPT_CALIB_TILING_H
#define AOPT_CALIB_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(AoptCalibTilingData)
TILING_DATA_FIELD_DEF(uint32_t, mode);         // 0 add, 1 copy, 2 adds, 3 add rounds, 4 exp, 5 scalar loop
TILING_DATA_FIELD_DEF(uint32_t, blockLength);  // elements per core
TILING_DATA_FIELD_DEF(uint32_t, tileLength);   // elements per tile (a multiple of 32 bytes)
TILING_DATA_FIELD_DEF(uint32_t, bufferNum);    // 1 or 2 slots per queue
TILING_DATA_FIELD_DEF(uint32_t, rounds);       // vector instructions per tile (modes 2-4)
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(AoptCalib, AoptCalibTilingData)
}  // namespace optiling
#endif  // AOPT_CALIB_TILING_H
