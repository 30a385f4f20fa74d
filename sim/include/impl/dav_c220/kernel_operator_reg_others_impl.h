// CANN internal header name (emulated): kernels of the norm family include it for register-level
// helpers the public kernel API already declares here.
#pragma once
#include "kernel_operator.h"
