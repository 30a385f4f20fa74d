// Host side of fixture tanh: the shared host (tests/corpus/tree/common) with this OpDef class.
#include "tanh_tiling.h"
#include "fixture_host.h"
