// Fixture Sort32Topk (tests/corpus): its OpDef class, then the shared tiling.
#define FIXTURE_OP Sort32Topk
#include "fixture_tiling_data.h"
