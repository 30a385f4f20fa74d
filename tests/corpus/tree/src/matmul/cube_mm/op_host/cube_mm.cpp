// Host side of fixture cube_mm: the shared host (tests/corpus/tree/common) with this OpDef class.
#include "cube_mm_tiling.h"
#include "fixture_host.h"
