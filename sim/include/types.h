// CANN puts include/graph on the host include path, so host code may name graph/types.h as
// "types.h" (cann-ops' conv2d_transpose_v2 and conv3d_transpose_v2 op_host/cube_util.h do).
#pragma once

#include "graph/types.h"
