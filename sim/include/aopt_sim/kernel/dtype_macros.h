// The data-type names of a kernel build as preprocessor integers: a kernel compares its dtype
// macros in `#if` (`#if ORIG_DTYPE_X == DT_BF16`, `#if defined(DT_FLOAT16) && ...`) and in code
// (`if (ORIG_DTYPE_Y == DT_INT4)`), unqualified. The build defines ORIG_DTYPE_<NAME> as the
// ge::DataType name of the parameter's dtype (`-DORIG_DTYPE_X=DT_BF16`); these macros give each
// name the value of its ge::DataType enumerator (graph/types.h), so both uses see the same
// number. The sim backend's kernel build force-includes this header after the precompiled
// kernel_operator.h and the operator's tiling header (whose host includes spell ge::DT_*), before
// the kernel source; only in kernel translation units (they define __CCE_AICORE__). Code after it
// spells the names unqualified (`ge::DT_BF16` would read `ge::27`).
#pragma once

#if defined(__CCE_AICORE__)
#include "graph/types.h"

// The values, checked against the enumerators before the names become macros.
static_assert(ge::DT_FLOAT == 0);
static_assert(ge::DT_FLOAT16 == 1);
static_assert(ge::DT_INT8 == 2);
static_assert(ge::DT_INT32 == 3);
static_assert(ge::DT_UINT8 == 4);
static_assert(ge::DT_INT16 == 6);
static_assert(ge::DT_UINT16 == 7);
static_assert(ge::DT_UINT32 == 8);
static_assert(ge::DT_INT64 == 9);
static_assert(ge::DT_UINT64 == 10);
static_assert(ge::DT_DOUBLE == 11);
static_assert(ge::DT_BOOL == 12);
static_assert(ge::DT_COMPLEX64 == 16);
static_assert(ge::DT_COMPLEX128 == 17);
static_assert(ge::DT_BF16 == 27);
static_assert(ge::DT_INT4 == 29);
static_assert(ge::DT_COMPLEX32 == 33);
static_assert(ge::DT_HIFLOAT8 == 34);
static_assert(ge::DT_FLOAT8_E5M2 == 35);
static_assert(ge::DT_FLOAT8_E4M3FN == 36);
static_assert(ge::DT_FLOAT8_E8M0 == 37);
static_assert(ge::DT_FLOAT6_E3M2 == 38);
static_assert(ge::DT_FLOAT6_E2M3 == 39);
static_assert(ge::DT_FLOAT4_E2M1 == 40);
static_assert(ge::DT_FLOAT4_E1M2 == 41);

#define DT_FLOAT 0
#define DT_FLOAT16 1
#define DT_INT8 2
#define DT_INT32 3
#define DT_UINT8 4
#define DT_INT16 6
#define DT_UINT16 7
#define DT_UINT32 8
#define DT_INT64 9
#define DT_UINT64 10
#define DT_DOUBLE 11
#define DT_BOOL 12
#define DT_COMPLEX64 16
#define DT_COMPLEX128 17
#define DT_BF16 27
#define DT_INT4 29
#define DT_COMPLEX32 33
#define DT_HIFLOAT8 34
#define DT_FLOAT8_E5M2 35
#define DT_FLOAT8_E4M3FN 36
#define DT_FLOAT8_E8M0 37
#define DT_FLOAT6_E3M2 38
#define DT_FLOAT6_E2M3 39
#define DT_FLOAT4_E2M1 40
#define DT_FLOAT4_E1M2 41
#endif
