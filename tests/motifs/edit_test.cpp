#include <gtest/gtest.h>

#include "aopt/common/error.h"
#include "aopt/motifs/edit.h"

namespace aopt::motifs {
namespace {

TEST(MotifEdits, AppliesInAnyOrderAndKeepsTheRest) {
  const std::string s = "abcdefgh";
  std::vector<text_edit> e{{"f", {6, 7}, "G"}, {"f", {1, 3}, "XY Z"}, {"f", {4, 4}, "+"}};
  EXPECT_EQ(apply_edits(s, e, "f"), "aXY Zd+efGh");
}

TEST(MotifEdits, RejectsOverlapAndOutOfRange) {
  EXPECT_THROW(apply_edits("abcdef", {{"f", {1, 4}, ""}, {"f", {3, 5}, ""}}, "f"), aopt::error);
  EXPECT_THROW(apply_edits("abcdef", {{"f", {2, 2}, "x"}, {"f", {2, 2}, "y"}}, "f"), aopt::error);
  EXPECT_THROW(apply_edits("abc", {{"f", {2, 9}, ""}}, "f"), aopt::error);
  EXPECT_NO_THROW(apply_edits("abcdef", {{"f", {1, 3}, ""}, {"f", {3, 5}, ""}}, "f"));
  file_set fs{{"a.cpp", "x"}};
  EXPECT_THROW(apply_edits(fs, {{"b.cpp", {0, 0}, "y"}}), aopt::error);
}

TEST(MotifEdits, UnifiedDiffHasHunksWithContext) {
  std::string a, b;
  for (int i = 0; i < 20; ++i) {
    a += "line " + std::to_string(i) + "\n";
    b += (i == 10 ? std::string("changed\n") : "line " + std::to_string(i) + "\n");
  }
  const std::string d = unified_diff("k.cpp", a, b);
  EXPECT_NE(d.find("--- a/k.cpp\n+++ b/k.cpp\n@@ -8,7 +8,7 @@\n line 7\n"), std::string::npos) << d;
  EXPECT_NE(d.find("-line 10\n+changed\n"), std::string::npos) << d;
  EXPECT_EQ(unified_diff("k.cpp", a, a), "");
  EXPECT_TRUE(equal_modulo_whitespace("a b\n c", "ab c"));
  EXPECT_FALSE(equal_modulo_whitespace("a b", "a c"));
}

}  // namespace
}  // namespace aopt::motifs
