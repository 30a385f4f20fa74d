// CANN puts include/exe_graph on the host include path, so host code may name
// exe_graph/runtime/infer_shape_context.h as "runtime/infer_shape_context.h" (cann-ops' conv operators do).
#pragma once

#include "exe_graph/runtime/infer_shape_context.h"
