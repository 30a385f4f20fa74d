// The AscendC kernel API as emulated on the CPU (sim backend): the one header kernels include.
#pragma once

// Kernels call assert() (the device toolchain provides it); on the CPU it is <cassert>'s.
#include <cassert>

#include "aopt_sim/kernel/types.h"
#include "aopt_sim/kernel/core.h"
#include "aopt_sim/kernel/tensor.h"
#include "aopt_sim/kernel/global_tensor.h"
#include "aopt_sim/kernel/sync.h"
#include "aopt_sim/kernel/pipe.h"
#include "aopt_sim/kernel/data_copy.h"
#include "aopt_sim/kernel/sys.h"
#include "aopt_sim/kernel/cube.h"
#include "aopt_sim/kernel/load3d.h"

#if __has_include("aopt_sim/kernel/vector.h")
#include "aopt_sim/kernel/vector.h"
#endif
#if __has_include("aopt_sim/kernel/advanced.h")
#include "aopt_sim/kernel/advanced.h"
#endif
#include "aopt_sim/kernel/quant.h"
#include "aopt_sim/kernel/shape_info.h"
#include "aopt_sim/kernel/internal_impl.h"
// Kernel-side tiling macros, ListTensorDesc and ge::DT_* (the real kernel_operator.h reaches
// them too; layout-3 kernels rely on it for REGISTER_TILING_DEFAULT / GET_TILING_DATA*).
#include "kernel_tiling/kernel_tiling.h"
