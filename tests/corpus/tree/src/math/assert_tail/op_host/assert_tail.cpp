// Host side of fixture assert_tail: the shared host (tests/corpus/tree/common) with this OpDef class.
#include "assert_tail_tiling.h"
#include "fixture_host.h"
