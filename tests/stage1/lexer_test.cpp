#include <gtest/gtest.h>

#include "aopt/stage1/lexer.h"

namespace aopt::stage1 {
namespace {

std::vector<std::string> texts(std::string_view src) {
  std::vector<std::string> out;
  for (const auto& t : lex(src)) out.emplace_back(t.text);
  return out;
}

TEST(Stage1Lexer, SkipsCommentsAndKeepsDirectivesWhole) {
  const std::string src =
      "#define A 32 // c\n"
      "int x = 0x20u; /* SetBlockDim(9) */ y->z += 'a'; // tail\n"
      "  #include \"q.h\"\n"
      "s = \"a\\\"b\";";
  const auto t = lex(src);
  EXPECT_EQ(texts(src), (std::vector<std::string>{"#define A 32 // c", "int", "x", "=", "0x20u", ";", "y", "->",
                                                  "z", "+=", "'a'", ";", "#include \"q.h\"", "s", "=", "\"a\\\"b\"",
                                                  ";"}));
  EXPECT_EQ(t[0].kind, token_kind::directive);
  EXPECT_EQ(t[4].kind, token_kind::number);
  EXPECT_EQ(src.substr(t[4].offset, t[4].length), "0x20u");
  EXPECT_EQ(line_of(src, t[12].offset), 3u);
}

TEST(Stage1Lexer, NumbersAndSuffixes) {
  EXPECT_EQ(texts("1.0f 1e-3 0x1Ep+2 4096U 1'024"),
            (std::vector<std::string>{"1.0f", "1e-3", "0x1Ep+2", "4096U", "1'024"}));
  EXPECT_EQ(parse_integer_literal("4096U"), 4096);
  EXPECT_EQ(parse_integer_literal("0xFFFFFFFFULL"), 4294967295LL);
  EXPECT_EQ(parse_integer_literal("1'024"), 1024);
  EXPECT_EQ(parse_integer_literal("010"), 8);
  EXPECT_EQ(parse_integer_literal("0"), 0);
  EXPECT_FALSE(parse_integer_literal("1.0f"));
  EXPECT_FALSE(parse_integer_literal("1e3"));
  EXPECT_FALSE(parse_integer_literal("99999999999999999999"));
  EXPECT_EQ(integer_suffix("0xFFFFFFFFULL"), "ULL");
  EXPECT_EQ(integer_suffix("32"), "");
  EXPECT_EQ(integer_suffix("0x20u"), "u");
}

}  // namespace
}  // namespace aopt::stage1
