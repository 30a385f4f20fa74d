// CANN advanced API header name (emulated): lib/math/kernel_operator_atan_intf.h, the atan
// interface; the declarations are the emulator's tier-5 API.
#pragma once
#include "aopt_sim/kernel/advanced.h"
