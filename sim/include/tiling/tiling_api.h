// CANN header name (emulated): see register/op_def_registry.h; the advanced APIs' host helpers
// are in aopt_sim/host/adv_tiling.h (temporary-space sizes) and aopt_sim/host/softmax_tiling.h;
// the Matmul tiling API in aopt_sim/host/matmul_tiling.h.
#pragma once
#include "aopt_sim/cube_constants.h"
#ifndef AOPT_SIM_BLOCK_CUBE_DECLARED
#define AOPT_SIM_BLOCK_CUBE_DECLARED
AOPT_SIM_DECLARE_BLOCK_CUBE(std::uint32_t)  // host side: unsigned (aopt_sim/cube_constants.h)
#endif
// The ACL spelling of float host tilings use unqualified (quant_batch_matmul_v3's
// `sizeof(float32_t)`), global as on the kernel side (aopt_sim/kernel/types.h; the same alias, so
// both may be seen). [ASSUMED] which CANN host header declares it is not documented: the tiling API
// header every cube tiling includes.
using float32_t = float;
#include "aopt_sim/host/adv_tiling.h"
#include "aopt_sim/host/matmul_tiling.h"
#include "aopt_sim/host/softmax_tiling.h"
#include "register/op_def_registry.h"
