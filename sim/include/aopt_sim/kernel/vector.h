// The AscendC vector compute API (basic API, tiers 3 and 4) emulated on the CPU. Included by
// kernel_operator.h. Every vector instruction computes its values exactly as the chip's data
// types do (half = _Float16 rounding per operation, bfloat16 through float, wrapping integers)
// and appends one rec_kind::vector record with the call site for the timing model.
#pragma once

#include "aopt_sim/kernel/banks.h"
#include "aopt_sim/kernel/vec_base.h"
#include "aopt_sim/kernel/vec_cast.h"
#include "aopt_sim/kernel/vec_cmpsel.h"
#include "aopt_sim/kernel/vec_elementwise.h"
#include "aopt_sim/kernel/vec_gather.h"
#include "aopt_sim/kernel/vec_misc.h"
#include "aopt_sim/kernel/vec_reduce.h"
#include "aopt_sim/kernel/vec_sort.h"
#include "aopt_sim/kernel/vec_operators.h"
#include "aopt_sim/kernel/vec_transdata.h"
#include "aopt_sim/kernel/cce_intrinsics.h"
