// Host side of fixture pad_overread: the shared host (tests/corpus/tree/common) with this OpDef class.
#include "pad_overread_tiling.h"
#include "fixture_host.h"
