// CANN header name (emulated): the Matmul high-level API (aopt_sim/kernel/matmul.h) and, as in
// CANN, the kernel operator API with it.
#pragma once
#include "kernel_operator.h"
#include "aopt_sim/kernel/matmul.h"

// The configuration type, its builders and CubeFormat are reachable unqualified at global scope,
// as in CANN (rnn/dynamic_rnnv2's kernel calls GetNormalConfig() and names CubeFormat::ND with no
// using-directive). The CFG_* constants are not: kernels define their own (matmul_all_reduce's
// AscendC::CFG_MDL).
using AscendC::CubeFormat;
// LayoutMode likewise: the documentation's examples name LayoutMode::NONE / NORMAL unqualified
// (Matmul-Kernel侧接口/GetIBShareNormConfig.md, IterateBatch.md), as flash_attention_score_with_large_head_dim does.
using AscendC::LayoutMode;
using AscendC::MatmulConfig;
using AscendC::GetNormalConfig;
using AscendC::GetMDLConfig;
using AscendC::GetSpecialMDLConfig;
using AscendC::GetBasicConfig;
using AscendC::GetIBShareNormConfig;
