// CANN logging/check header name (emulated): see aopt_sim/host/op_log.h.
#pragma once
#include "aopt_sim/host/op_log.h"
