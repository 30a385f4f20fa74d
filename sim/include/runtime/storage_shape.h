// CANN puts include/exe_graph on the host include path, so host code may name
// exe_graph/runtime/storage_shape.h as "runtime/storage_shape.h" (cann-ops' conv operators do).
#pragma once

#include "exe_graph/runtime/storage_shape.h"
