// Shared tiling struct of the fixture tree's scale operators (one struct, several op types).
#ifndef FIXTURE_SHARED_SCALE_TILING_DEF_H
#define FIXTURE_SHARED_SCALE_TILING_DEF_H
#include "register/tilingdata_base.h"
#include "fixture_shared/scale_host_only.h"

namespace optiling {
constexpr uint32_t FIXTURE_MAX_CORES = 8;
BEGIN_TILING_DATA_DEF(FixtureScaleTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(float, factor);
TILING_DATA_FIELD_DEF_ARR(uint32_t, FIXTURE_MAX_CORES, coreStart);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(SharedScale, FixtureScaleTilingData)
REGISTER_TILING_DATA_CLASS(SharedScaleOther, FixtureScaleTilingData)
}  // namespace optiling
#endif
