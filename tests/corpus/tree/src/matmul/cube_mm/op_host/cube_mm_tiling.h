// Fixture CubeMm (tests/corpus): its OpDef class, then the shared tiling.
#define FIXTURE_OP CubeMm
#include "fixture_tiling_data.h"
