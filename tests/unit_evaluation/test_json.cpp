#include <gtest/gtest.h>

#include "aopt/common/error.h"
#include "aopt/common/json.h"

using namespace aopt::common;

TEST(Json, ParseErrorNamesFileLineColumn) {
  try {
    parse_json_doc("{\n  \"a\": 1,\n  \"b\": ]\n}", "x/aopt.json");
    FAIL() << "expected a parse error";
  } catch (const aopt::error& e) {
    EXPECT_EQ(e.code(), aopt::ec::parse_error);
    EXPECT_NE(std::string(e.what()).find("x/aopt.json:3:8:"), std::string::npos) << e.what();
  }
}

TEST(Json, PositionsOfNestedValues) {
  const auto doc = parse_json_doc("{\"a\": [1,\n {\"b\": \"s\\\"x\"},\n 3], \"c\": {}}", "f.json");
  EXPECT_EQ(doc.pos("/a").line, 1);
  EXPECT_EQ(doc.pos("/a/1/b").line, 2);
  EXPECT_EQ(doc.pos("/a/1/b").col, 8);
  EXPECT_EQ(doc.pos("/a/2").line, 3);
  EXPECT_EQ(doc.pos("/c").line, 3);
  EXPECT_EQ(doc.where("/a/1/b/zz"), "f.json:2:8");  // unknown: closest ancestor
}
