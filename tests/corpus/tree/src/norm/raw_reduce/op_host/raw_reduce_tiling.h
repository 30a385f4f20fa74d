// Fixture RawReduce (tests/corpus): its OpDef class, then the shared tiling.
#define FIXTURE_OP RawReduce
#include "fixture_tiling_data.h"
