// CANN op_api header name (emulated): OP_LOGD/OP_LOGE and the check macros of host code.
#pragma once
#include "aopt_sim/host/op_log.h"
