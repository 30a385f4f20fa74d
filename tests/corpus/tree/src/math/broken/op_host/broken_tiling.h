// Fixture Broken (tests/corpus): its OpDef class, then the shared tiling.
#define FIXTURE_OP Broken
#include "fixture_tiling_data.h"
