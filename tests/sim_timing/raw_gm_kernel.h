// Raw __gm__ pointer kernels of raw_gm_kernel.cpp (built with the raw-access hooks).
#pragma once

#include <cstdint>

#include "kernel_operator.h"

void raw_gm_sum(GM_ADDR x, std::uint32_t n, std::uint32_t stride);
void api_gm_sum(GM_ADDR x, std::uint32_t n);
