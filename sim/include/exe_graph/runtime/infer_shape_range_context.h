// CANN header name (emulated): gert::InferShapeRangeContext (aopt_sim/host/gert.h).
#pragma once
#include "aopt_sim/host/gert.h"
