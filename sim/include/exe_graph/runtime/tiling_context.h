// CANN exe_graph header name (emulated): see aopt_sim/host/gert.h.
#pragma once
#include "aopt_sim/host/gert.h"
// The real tiling_context.h includes external/ge_common/api_error_codes.h (which brings <set>, <map>,
// <vector>, <functional>, <memory>): see ge_common/api_error_codes.h.
#include "ge_common/api_error_codes.h"
