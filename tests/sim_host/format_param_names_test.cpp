// A kernel build defines FORMAT_<PARAMETER> for every OpDef parameter (docs/harness-protocol.md);
// this translation unit is compiled as one whose operator has an input named `max` and one named
// `reserved` (histogram_v2's min/max inputs): -DFORMAT_MAX=FORMAT_ND -DFORMAT_RESERVED=FORMAT_NCHW.
// graph/types.h must still declare its enumerators under their own names (before the fix the
// enumerator FORMAT_MAX became a second FORMAT_ND: "redefinition of 'FORMAT_ND'").
#include <gtest/gtest.h>

#include "graph/types.h"

TEST(FormatParameterNames, AParameterNamedLikeAFormatDoesNotRenameTheEnumerators) {
  // The macros survive the header for the kernel's own #if.
  #define AOPT_STR2(x) #x
#define AOPT_STR(x) AOPT_STR2(x)
  EXPECT_STREQ(AOPT_STR(FORMAT_MAX), "FORMAT_ND");
  // The enumerators keep their values under their own names.
#pragma push_macro("FORMAT_MAX")
#pragma push_macro("FORMAT_RESERVED")
#undef FORMAT_MAX
#undef FORMAT_RESERVED
  EXPECT_EQ(static_cast<int>(ge::FORMAT_MAX), 0xff);
  EXPECT_NE(static_cast<int>(ge::FORMAT_RESERVED), static_cast<int>(ge::FORMAT_NCHW));
#pragma pop_macro("FORMAT_RESERVED")
#pragma pop_macro("FORMAT_MAX")
  EXPECT_EQ(static_cast<int>(ge::FORMAT_ND), 2);
}
