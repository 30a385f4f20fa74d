// CANN header name (emulated): the Matmul high-level API (aopt_sim/kernel/matmul.h) and, as in
// CANN, the kernel operator API with it.
#pragma once
#include "kernel_operator.h"
#include "aopt_sim/kernel/matmul.h"
