// CANN header name (emulated): the Matmul high-level API. The Cube unit is not emulated; vector
// kernels that include this header without using Matmul compile as before.
#pragma once
#include "kernel_operator.h"
