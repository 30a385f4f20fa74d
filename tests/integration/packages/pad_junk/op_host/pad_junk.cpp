// Host side of fixture pad_junk: the shared corpus-fixture host with this OpDef class.
#include "pad_junk_tiling.h"
#include "fixture_host.h"
