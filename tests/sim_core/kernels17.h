// Kernels compiled as C++17 (kernels17.cpp), run by the tests through aopt::sim::launch.
#pragma once

#include <cstdint>

namespace aopt::sim::test {

// z = x + y over `total` fp16 elements split evenly over the blocks, `tile` elements per tile,
// `buffers` buffers per queue (1 or 2). The "vector add" is a plain loop plus one vector record.
void k17_add_fp16(std::uint8_t* x, std::uint8_t* y, std::uint8_t* z, std::uint32_t total,
                  std::uint32_t tile, std::uint32_t buffers);

// Copies `rows` rows of `cols` fp32 (cols need not be a multiple of 8) through UB with
// DataCopyPad, adding 1 to every element with GetValue/SetValue.
void k17_pad_rows_fp32(std::uint8_t* x, std::uint8_t* z, std::uint32_t rows, std::uint32_t cols);

}  // namespace aopt::sim::test
