// Fixture AssertTail (tests/corpus): its OpDef class, then the shared tiling.
#define FIXTURE_OP AssertTail
#include "fixture_tiling_data.h"
