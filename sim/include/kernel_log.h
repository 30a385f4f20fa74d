// CANN header name (emulated): the kernel log and check macros. ASSERT_MSG(expr, fmt, args...)
// is declared with the kernel API (aopt_sim/kernel/sys.h); KERNEL_LOG prints nothing on the
// device build, as here.
#pragma once
#include "kernel_operator.h"

#ifndef KERNEL_LOG
#define KERNEL_LOG(level, ...) static_cast<void>(0)
#endif
