// The shared tiling function of the fixture tree's scale operators.
#ifndef FIXTURE_SHARED_SCALE_TILING_FUNC_H
#define FIXTURE_SHARED_SCALE_TILING_FUNC_H
#include "register/op_def_registry.h"
#include "fixture_shared/scale_tiling_def.h"

namespace optiling {
ge::graphStatus FixtureScaleTiling(gert::TilingContext *context, float factor);
}  // namespace optiling
#endif
