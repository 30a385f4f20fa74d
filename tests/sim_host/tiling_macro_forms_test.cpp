// The tiling-data macros in both forms the real headers accept (issue 34, the cann-ops tree):
// `END_TILING_DATA_DEF;` and a bare `END_TILING_DATA_DEF` before the registration (the real macro
// closes the class with its own `;`). This file does not compile when the emulated macro leaves
// the `;` to its user.
#include <gtest/gtest.h>

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(BareEndTiling)
TILING_DATA_FIELD_DEF(uint32_t, rows);
TILING_DATA_FIELD_DEF(int64_t, cols);
END_TILING_DATA_DEF

REGISTER_TILING_DATA_CLASS(BareEndOp, BareEndTiling)

BEGIN_TILING_DATA_DEF(SemicolonEndTiling)
TILING_DATA_FIELD_DEF(uint16_t, n);
END_TILING_DATA_DEF;
}  // namespace optiling

namespace {

TEST(TilingMacros, BareAndSemicolonEndFormsDeclareTheSameKindOfStruct) {
  optiling::BareEndTiling t;
  t.set_rows(3);
  t.set_cols(-5);
  EXPECT_EQ(t.get_rows(), 3u);
  EXPECT_EQ(t.get_cols(), -5);
  EXPECT_EQ(t.GetDataSize(), sizeof(optiling::BareEndTiling));
  optiling::SemicolonEndTiling s;
  s.set_n(7);
  EXPECT_EQ(s.get_n(), 7);
}

}  // namespace
