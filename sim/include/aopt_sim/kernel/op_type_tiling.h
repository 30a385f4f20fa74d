// GET_TILING_DATA's registered struct for the build's op type: with -DAOPT_OP_TYPE=<OpType>,
// the class REGISTER_TILING_DATA_CLASS(<OpType>, ...) declared as optiling::AoptTiling_<OpType>
// (register/tilingdata_base.h), else a fallback that makes GET_TILING_DATA's static_assert say
// what is missing. Included by kernel_tiling/kernel_tiling.h, except in the kernel PCH
// (AOPT_SIM_KERNEL_PCH), after which the evaluator force-includes it (docs/evaluation.md, Build).
#pragma once

#include "kernel_tiling/kernel_tiling.h"

#ifdef AOPT_OP_TYPE
// Fallback found by qualified lookup only when REGISTER_TILING_DATA_CLASS(AOPT_OP_TYPE, ...)
// did not declare optiling::AoptTiling_<AOPT_OP_TYPE> itself.
namespace optiling {
namespace aopt_fallback_ {
using AOPT_TILING_CAT_(AoptTiling_, AOPT_OP_TYPE) = ::aopt::sim::no_registered_tiling;
}  // namespace aopt_fallback_
using namespace aopt_fallback_;  // NOLINT
}  // namespace optiling
#undef AOPT_REGISTERED_TILING_T_
#define AOPT_REGISTERED_TILING_T_ ::optiling::AOPT_TILING_CAT_(AoptTiling_, AOPT_OP_TYPE)
#endif
