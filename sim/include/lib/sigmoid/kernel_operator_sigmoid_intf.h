// CANN advanced API header name (emulated): lib/sigmoid/kernel_operator_sigmoid_intf.h.
#pragma once
#include "aopt_sim/kernel/advanced.h"
