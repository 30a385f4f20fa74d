// CANN header name (emulated): one of the basic API's interface headers, which
// kernel_operator.h gathers (cann-ops' conv and stft kernels include it by name); here the
// same declarations.
#pragma once
#include "kernel_operator.h"
