// CANN header name (emulated): the HCCL high-level API of the kernel side, for a world of one
// rank (aopt_sim/kernel/hccl.h), with the kernel operator API it builds on.
#pragma once
#include "kernel_operator.h"
#include "aopt_sim/kernel/hccl.h"
