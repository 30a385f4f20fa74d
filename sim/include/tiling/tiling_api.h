// CANN header name (emulated): see register/op_def_registry.h; the advanced APIs' host helpers
// are in aopt_sim/host/adv_tiling.h (temporary-space sizes) and aopt_sim/host/softmax_tiling.h;
// the Matmul tiling API in aopt_sim/host/matmul_tiling.h.
#pragma once
#include "aopt_sim/cube_constants.h"
#include "aopt_sim/host/adv_tiling.h"
#include "aopt_sim/host/matmul_tiling.h"
#include "aopt_sim/host/softmax_tiling.h"
#include "register/op_def_registry.h"
