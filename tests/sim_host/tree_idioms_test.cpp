// Host idioms of the wider cann-ops tree (issue 34), each as the real headers allow it:
// - the tiling-data macros in both forms: `END_TILING_DATA_DEF;` and a bare `END_TILING_DATA_DEF`
//   before the registration (the real macro closes the class with its own `;`);
// - a shared tiling base class that includes only "log/ops_log.h" and asks the log level
//   (`AlogCheckDebugLevel(OP, DLOG_DEBUG)`) or reports (`REPORT_INNER_ERR_MSG`): the real header
//   brings the slog query and the error-message report;
// - `const ge::char_t*` node names from graph/types.h;
// - `platformInfo->GetLocalMemSize(fe::LocalMemType::UB, ub)` on the tiling context's platform.
// This file does not compile when an emulated header lacks one of them.
#include <gtest/gtest.h>

#include "graph/types.h"
#include "log/ops_log.h"
#include "platform/platform_info.h"
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

// As a shared tiling base's dump hook: log at debug level only when it is enabled.
inline bool DumpEnabled() { return AlogCheckDebugLevel(static_cast<int32_t>(OP), DLOG_DEBUG) == 1; }
inline bool ErrorsEnabled() { return AlogCheckDebugLevel(static_cast<int32_t>(OP), DLOG_ERROR) == 1; }
inline int CheckRows(int rows) {
  if (rows <= 0) {
    REPORT_INNER_ERR_MSG("EZ9999", "op[%s], rows %d is not positive", "BareEndOp", rows);
    return -1;
  }
  return 0;
}
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

TEST(OpsLog, TheLogLevelQueryComesWithOpsLog) {
  EXPECT_TRUE(optiling::ErrorsEnabled()) << "errors are logged at every level";
  EXPECT_EQ(optiling::CheckRows(0), -1);
  EXPECT_EQ(optiling::CheckRows(2), 0);
  const ge::char_t* name = "node";
  EXPECT_STREQ(name, "node");
}

TEST(PlatFormInfos, LocalMemSizeAnswersEachMemoryOfTheProfile) {
  fe::PlatFormInfos p;
  p.ub_bytes = 192 * 1024;
  p.l1_bytes = 512 * 1024;
  uint64_t ub = 0, l1 = 0, l0c = 0, reserved = 7;
  p.GetLocalMemSize(fe::LocalMemType::UB, ub);
  p.GetLocalMemSize(fe::LocalMemType::L1, l1);
  p.GetLocalMemSize(fe::LocalMemType::L0_C, l0c);
  p.GetLocalMemSize(fe::LocalMemType::RESERVED, reserved);
  EXPECT_EQ(ub, 192u * 1024u);
  EXPECT_EQ(l1, 512u * 1024u);
  EXPECT_EQ(l0c, p.l0c_bytes);
  EXPECT_EQ(reserved, 0u);
}

}  // namespace
