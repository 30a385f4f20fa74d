// CANN header name (emulated): platform/platform_infos_def.h, the declaration of fe::PlatFormInfos
// (cann-ops' common/op_host/op_tiling/cube_tiling_runtime.h and op_tiling.h include it by this
// name). sim declares that class in platform/platform_info.h.
#pragma once

#include "platform/platform_info.h"
