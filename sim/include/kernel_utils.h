// CANN kernel utility header (emulated subset): compile-time helpers kernels take from it,
// plus the kernel-side tiling macros.
#pragma once

#include <type_traits>

#include "kernel_tiling/kernel_tiling.h"

#ifndef AOPT_KERNEL_UTILS_TYPES_
#define AOPT_KERNEL_UTILS_TYPES_
struct TrueType : std::true_type {};
struct FalseType : std::false_type {};
#endif
