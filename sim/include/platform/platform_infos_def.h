// CANN header name (emulated): platform/platform_infos_def.h, where the real toolkit declares
// fe::PlatFormInfos (cann-ops common/op_host/op_tiling/cube_tiling_runtime.h includes it by this
// name; matmul/quant_batch_matmul_v3 stopped at init on it). sim declares the class in
// platform/platform_info.h.
#pragma once

#include "platform/platform_info.h"
