// CANN internal header name (emulated): kernels of the norm family include it for register-level
// helpers the public kernel API already declares here.
#pragma once
#include <type_traits>

#include "kernel_operator.h"

// [ASSUMED] The one kernel that includes this internal header (cann-ops add_layer_norm_quant) names
// `is_same` unqualified, which the public AscendC headers do not declare (namespace AscendC has
// only Std::is_same); the device toolchain's internal header must bring it in. Declared here, and
// not in kernel_operator.h, so that a kernel defining its own global `is_same` under
// `using namespace AscendC` (cann-ops scatter_elements_v2, masked_select_v3) stays unambiguous.
using std::is_same;
