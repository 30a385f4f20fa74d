// Fixture Tanh (tests/corpus): its OpDef class, then the shared tiling.
#define FIXTURE_OP Tanh
#include "fixture_tiling_data.h"
