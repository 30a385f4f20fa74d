/**
 * @file mul_v3_tiling_data.h
 * Tiling data of MulV3 (y = x1 * x2, same shapes): a plain struct shared by host and kernel.
 */
#ifndef MUL_V3_TILING_DATA_H
#define MUL_V3_TILING_DATA_H
#include <cstdint>

struct MulV3TilingData {
    int64_t totalNum = 0;      // elements in x1
    int64_t perCoreNum = 0;    // elements per core except the last (multiple of 32 bytes)
    int64_t lastCoreNum = 0;   // elements of the last core
    int64_t tileNum = 0;       // elements per UB tile (multiple of 32 bytes)
};
#endif  // MUL_V3_TILING_DATA_H
