// CANN header name (emulated): tiling type declarations; the registration and tiling-data
// headers hold what host sources use from it.
#pragma once
#include "register/tilingdata_base.h"
