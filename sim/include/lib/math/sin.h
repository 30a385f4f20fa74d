// CANN advanced API include path lib/math/sin.h: forwards to the emulator's tier-5 API.
#pragma once
#include "aopt_sim/kernel/advanced.h"
