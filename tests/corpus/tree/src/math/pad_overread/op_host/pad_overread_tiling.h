// Fixture PadOverread (tests/corpus): its OpDef class, then the shared tiling.
#define FIXTURE_OP PadOverread
#include "fixture_tiling_data.h"
