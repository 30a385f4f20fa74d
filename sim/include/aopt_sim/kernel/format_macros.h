// The tensor-format names of a kernel build as preprocessor integers. The build defines
// FORMAT_<NAME> for each parameter as the ge::Format name of its format in the selected OpDef
// column (`-DFORMAT_X1=FORMAT_ND`, like ORIG_DTYPE_<NAME>), and kernels compare them in `#if`
// (`#if defined(FORMAT_X1) && FORMAT_X1 == FORMAT_FRACTAL_NZ`) and pass them as `int` template
// arguments (`Conv3dDw<..., FORMAT_NDC1HWC0, ...>`). These macros give each name the value of its
// ge::Format enumerator (graph/types.h), checked below, so `#if` and code see the same number. The
// sim backend force-includes this header with dtype_macros.h (after the precompiled
// kernel_operator.h and the tiling header, whose host includes spell ge::FORMAT_*), only in kernel
// translation units; code after it spells the names unqualified.
#pragma once

#if defined(__CCE_AICORE__)
#include "graph/types.h"

#define AOPT_SIM_FORMAT_LIST(X)                                                                   \
  X(NCHW, 0) X(NHWC, 1) X(ND, 2) X(NC1HWC0, 3) X(FRACTAL_Z, 4) X(NC1C0HWPAD, 5) X(NHWC1C0, 6)   \
  X(FSR_NCHW, 7) X(FRACTAL_DECONV, 8) X(C1HWNC0, 9) X(FRACTAL_DECONV_TRANSPOSE, 10)               \
  X(FRACTAL_DECONV_SP_STRIDE_TRANS, 11) X(NC1HWC0_C04, 12) X(FRACTAL_Z_C04, 13) X(CHWN, 14)       \
  X(FRACTAL_DECONV_SP_STRIDE8_TRANS, 15) X(HWCN, 16) X(NC1KHKWHWC0, 17) X(BN_WEIGHT, 18)          \
  X(FILTER_HWCK, 19) X(C1HWNCoC0, 25) X(MD, 26) X(NDHWC, 27) X(FRACTAL_ZZ, 28) X(FRACTAL_NZ, 29)  \
  X(NCDHW, 30) X(DHWCN, 31) X(NDC1HWC0, 32) X(FRACTAL_Z_3D, 33) X(CN, 34) X(NC, 35) X(DHWNC, 36)  \
  X(FRACTAL_Z_3D_TRANSPOSE, 37) X(FRACTAL_ZN_LSTM, 38) X(FRACTAL_Z_G, 39) X(ND_RNN_BIAS, 43)      \
  X(FRACTAL_ZN_RNN, 44) X(NCL, 47)

// The values, checked against the enumerators before the names become macros.
#define AOPT_SIM_FORMAT_CHECK(name, value) static_assert(ge::FORMAT_##name == (value));
AOPT_SIM_FORMAT_LIST(AOPT_SIM_FORMAT_CHECK)
#undef AOPT_SIM_FORMAT_CHECK
#undef AOPT_SIM_FORMAT_LIST

#define FORMAT_NCHW 0
#define FORMAT_NHWC 1
#define FORMAT_ND 2
#define FORMAT_NC1HWC0 3
#define FORMAT_FRACTAL_Z 4
#define FORMAT_NC1C0HWPAD 5
#define FORMAT_NHWC1C0 6
#define FORMAT_FSR_NCHW 7
#define FORMAT_FRACTAL_DECONV 8
#define FORMAT_C1HWNC0 9
#define FORMAT_FRACTAL_DECONV_TRANSPOSE 10
#define FORMAT_FRACTAL_DECONV_SP_STRIDE_TRANS 11
#define FORMAT_NC1HWC0_C04 12
#define FORMAT_FRACTAL_Z_C04 13
#define FORMAT_CHWN 14
#define FORMAT_FRACTAL_DECONV_SP_STRIDE8_TRANS 15
#define FORMAT_HWCN 16
#define FORMAT_NC1KHKWHWC0 17
#define FORMAT_BN_WEIGHT 18
#define FORMAT_FILTER_HWCK 19
#define FORMAT_C1HWNCoC0 25
#define FORMAT_MD 26
#define FORMAT_NDHWC 27
#define FORMAT_FRACTAL_ZZ 28
#define FORMAT_FRACTAL_NZ 29
#define FORMAT_NCDHW 30
#define FORMAT_DHWCN 31
#define FORMAT_NDC1HWC0 32
#define FORMAT_FRACTAL_Z_3D 33
#define FORMAT_CN 34
#define FORMAT_NC 35
#define FORMAT_DHWNC 36
#define FORMAT_FRACTAL_Z_3D_TRANSPOSE 37
#define FORMAT_FRACTAL_ZN_LSTM 38
#define FORMAT_FRACTAL_Z_G 39
#define FORMAT_ND_RNN_BIAS 43
#define FORMAT_FRACTAL_ZN_RNN 44
#define FORMAT_NCL 47
#endif
