// Host side of fixture unaligned_copy: the shared host (tests/corpus/tree/common) with this OpDef class.
#include "unaligned_copy_tiling.h"
#include "fixture_host.h"
