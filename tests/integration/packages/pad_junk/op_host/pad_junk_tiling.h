// Fixture PadJunk (tests/integration): its OpDef class, then the shared corpus-fixture tiling.
#define FIXTURE_OP PadJunk
#include "fixture_tiling_data.h"
