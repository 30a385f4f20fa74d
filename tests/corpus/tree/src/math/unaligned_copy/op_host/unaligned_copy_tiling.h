// Fixture UnalignedCopy (tests/corpus): its OpDef class, then the shared tiling.
#define FIXTURE_OP UnalignedCopy
#include "fixture_tiling_data.h"
