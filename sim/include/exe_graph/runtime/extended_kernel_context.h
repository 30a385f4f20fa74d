// CANN exe_graph header name (emulated): see aopt_sim/host/gert.h.
#pragma once
#include "aopt_sim/host/gert.h"
