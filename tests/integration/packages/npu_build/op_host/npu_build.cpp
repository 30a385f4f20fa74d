// Host side of fixture npu_build: the shared corpus-fixture host with this OpDef class.
#include "npu_build_tiling.h"
#include "fixture_host.h"
