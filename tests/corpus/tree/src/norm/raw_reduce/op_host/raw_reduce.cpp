// Host side of fixture raw_reduce: the shared host (tests/corpus/tree/common) with this OpDef class.
#include "raw_reduce_tiling.h"
#include "fixture_host.h"
