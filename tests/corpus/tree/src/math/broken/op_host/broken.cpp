// Host side of fixture broken: the shared host (tests/corpus/tree/common) with this OpDef class.
#include "broken_tiling.h"
#include "fixture_host.h"
