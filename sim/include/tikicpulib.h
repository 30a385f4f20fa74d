// CANN's CPU-debug header (tikicpulib.h) as emulated on `sim`: what a kernel-direct sample's
// main.cpp includes under ASCENDC_CPU_DEBUG (or __CCE_KT_TEST__) to run its kernel on the CPU.
// It brings the kernel API (GM_ADDR, __global__, __aicore__, half, namespace AscendC) and the
// CPU-debug calls: AscendC::GmAlloc / GmFree, AscendC::SetKernelMode(KernelMode::...),
// ICPU_SET_TILING_KEY(key), ICPU_RUN_KF(kernel, blockDim, args...).
// Implementation and environment variables: aopt_sim/host/cpu_debug.h.
#pragma once

#include "kernel_operator.h"
#include "aopt_sim/host/cpu_debug.h"
