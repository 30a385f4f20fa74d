/**
 * @file add_custom_tiling.h
 * Tiling of the kernel-direct Add sample: computed by the host (main.cpp), copied to GM and
 * read by the kernel. All lengths are in elements; every length is a multiple of 16 half
 * elements (one 32-byte block), so contiguous DataCopy never truncates.
 */
#ifndef ADD_CUSTOM_TILING_H
#define ADD_CUSTOM_TILING_H

#include <cstdint>

struct AddCustomTilingData {
    uint32_t totalLength;  // elements of x, y and z
    uint32_t blockLength;  // elements per core (the last core may get fewer)
    uint32_t tileLength;   // elements per UB tile
};

#endif  // ADD_CUSTOM_TILING_H
