// CANN internal header name (emulated): kernels of the norm family include it for register-level
// helpers the public kernel API already declares here.
#pragma once

#include "kernel_operator.h"

// It declares nothing at global scope, as the real header (whose declarations are all in
// namespace AscendC): no `is_same`, which kernels that include it define themselves in their own
// namespaces (cann-ops max_pool3d_grad_with_argmax, brought in beside AscendC by using-directives).
