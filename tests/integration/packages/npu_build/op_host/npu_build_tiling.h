// Fixture NpuBuild (tests/integration): its OpDef class, then the shared corpus-fixture tiling.
#define FIXTURE_OP NpuBuild
#include "fixture_tiling_data.h"
