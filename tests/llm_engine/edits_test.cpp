// Edits in model answers: SEARCH/REPLACE and whole-file parsing, application, and every failure
// kind (each must end as an edit_failure with a reason, never an exception).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include "aopt/llm/edits.h"

namespace aopt::llm {
namespace {

const search::file_map files = {
    {"op_kernel/k.cpp", "int f() {\n    int a = 1;\n    return a;\n}\nint g() {\n    int a = 1;\n    return a + 1;\n}\n"},
    {"op_host/h.cpp", "constexpr int TILE = 64;\nint tile() { return TILE; }\n"},
};

applied_edits run(const std::string& answer, const search::file_map& f = files, edit_options opt = {}) {
  auto p = parse_edits(answer, f, opt);
  if (p.error) {
    applied_edits a;
    a.error = p.error;
    return a;
  }
  return apply_blocks(f, p.blocks, opt);
}

TEST(Edits, SearchReplaceAcrossFiles) {
  const auto a = run(
      "Here is the change.\n\nop_host/h.cpp\n```cpp\n<<<<<<< SEARCH\nconstexpr int TILE = 64;\n=======\nconstexpr int TILE = 128;\n"
      ">>>>>>> REPLACE\n```\n\n`op_kernel/k.cpp`\n<<<<<<< SEARCH\n    return a + 1;\n=======\n    return a + 2;\n>>>>>>> REPLACE\n");
  ASSERT_FALSE(a.error) << a.error->reason;
  EXPECT_EQ(a.changed.size(), 2u);
  EXPECT_NE(a.files.at("op_host/h.cpp").find("TILE = 128"), std::string::npos);
  EXPECT_NE(a.files.at("op_kernel/k.cpp").find("return a + 2;"), std::string::npos);
}

TEST(Edits, WhitespaceTolerantMatch) {
  const auto a = run("op_kernel/k.cpp\n<<<<<<< SEARCH\nint g() {\nint a = 1;\n=======\nint g() {\n    int a = 5;\n>>>>>>> REPLACE\n");
  ASSERT_FALSE(a.error) << a.error->reason;
  EXPECT_NE(a.files.at("op_kernel/k.cpp").find("int a = 5;\n    return a + 1;"), std::string::npos);
  edit_options strict;
  strict.whitespace_tolerant = false;
  const auto b = run("op_kernel/k.cpp\n<<<<<<< SEARCH\nint g() {\nint a = 1;\n=======\nx\n>>>>>>> REPLACE\n", files, strict);
  ASSERT_TRUE(b.error);
  EXPECT_EQ(b.error->kind, edit_error::not_found);
}

TEST(Edits, NotFound) {
  const auto a = run("op_kernel/k.cpp\n<<<<<<< SEARCH\n    int b = 7;\n=======\n    int b = 8;\n>>>>>>> REPLACE\n");
  ASSERT_TRUE(a.error);
  EXPECT_EQ(a.error->kind, edit_error::not_found);
  EXPECT_NE(a.error->reason.find("int b = 7;"), std::string::npos) << a.error->reason;
  EXPECT_NE(a.error->reason.find("op_kernel/k.cpp"), std::string::npos);
}

TEST(Edits, Ambiguous) {
  const auto a = run("op_kernel/k.cpp\n<<<<<<< SEARCH\n    int a = 1;\n=======\n    int a = 2;\n>>>>>>> REPLACE\n");
  ASSERT_TRUE(a.error);
  EXPECT_EQ(a.error->kind, edit_error::ambiguous);
  EXPECT_NE(a.error->reason.find("2 times"), std::string::npos) << a.error->reason;
  EXPECT_NE(a.error->reason.find("lines 2, 6"), std::string::npos) << a.error->reason;
}

TEST(Edits, UnknownFile) {
  const auto a = run("op_kernel/other.cpp\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n");
  ASSERT_TRUE(a.error);
  EXPECT_EQ(a.error->kind, edit_error::unknown_file);
  EXPECT_NE(a.error->reason.find("op_kernel/other.cpp"), std::string::npos);
}

TEST(Edits, NoPathWithSeveralFiles) {
  const auto a = run("<<<<<<< SEARCH\nint f() {\n=======\nint f2() {\n>>>>>>> REPLACE\n");
  ASSERT_TRUE(a.error);
  EXPECT_EQ(a.error->kind, edit_error::no_path);
  // With one file the path may be left out.
  const search::file_map one = {{"op_kernel/k.cpp", files.at("op_kernel/k.cpp")}};
  const auto b = run("<<<<<<< SEARCH\nint f() {\n=======\nint f2() {\n>>>>>>> REPLACE\n", one);
  EXPECT_FALSE(b.error);
}

TEST(Edits, TruncatedBlocks) {
  const auto a = run("op_kernel/k.cpp\n<<<<<<< SEARCH\n    return a;\n=======\n    return a * 2;\n");
  ASSERT_TRUE(a.error);
  EXPECT_EQ(a.error->kind, edit_error::truncated);
  EXPECT_NE(a.error->reason.find("REPLACE"), std::string::npos);
  const auto b = run("op_kernel/k.cpp\n<<<<<<< SEARCH\n    return a;\n");
  ASSERT_TRUE(b.error);
  EXPECT_EQ(b.error->kind, edit_error::truncated);
  const auto c = run("op_host/h.cpp\n```cpp\nconstexpr int TILE = 32;\nint tile() {");
  ASSERT_TRUE(c.error);
  EXPECT_EQ(c.error->kind, edit_error::truncated);
  EXPECT_NE(c.error->reason.find("never closed"), std::string::npos);
}

TEST(Edits, NoEditAndEmptySearch) {
  auto a = run("I think the kernel is fine as it is.\n```cpp\nint x;\n```\n");
  ASSERT_TRUE(a.error);
  EXPECT_EQ(a.error->kind, edit_error::no_edit);
  EXPECT_NE(a.error->reason.find("1 code block"), std::string::npos) << a.error->reason;
  a = run("op_kernel/k.cpp\n<<<<<<< SEARCH\n\n=======\nint z;\n>>>>>>> REPLACE\n");
  ASSERT_TRUE(a.error);
  EXPECT_EQ(a.error->kind, edit_error::empty_search);
  a = run("op_kernel/k.cpp\n<<<<<<< SEARCH\n    return a;\n=======\n    return a;\n>>>>>>> REPLACE\n");
  ASSERT_TRUE(a.error);
  EXPECT_EQ(a.error->kind, edit_error::no_change);
}

TEST(Edits, WholeFileRewriteUnderTheLimit) {
  auto a = run("op_host/h.cpp\n```cpp\nconstexpr int TILE = 256;\nint tile() { return TILE; }\n```\n");
  ASSERT_FALSE(a.error) << a.error->reason;
  EXPECT_EQ(a.files.at("op_host/h.cpp"), "constexpr int TILE = 256;\nint tile() { return TILE; }\n");
  edit_options small;
  small.whole_file_limit = 16;
  a = run("op_host/h.cpp\n```cpp\nconstexpr int TILE = 256;\nint tile() { return TILE; }\n```\n", files, small);
  ASSERT_TRUE(a.error);
  EXPECT_EQ(a.error->kind, edit_error::too_large);
  EXPECT_NE(a.error->reason.find("SEARCH/REPLACE"), std::string::npos);
}

TEST(Edits, BracketProblems) {
  EXPECT_FALSE(bracket_problem("int f() { return g(\"}\", '{'); } // )\n/* { */"));
  EXPECT_FALSE(bracket_problem("auto s = R\"x(})x\"; int n = 1'000;"));
  auto p = bracket_problem("int f() {\n  if (x) {\n}\n");
  ASSERT_TRUE(p);
  EXPECT_NE(p->find("never closed"), std::string::npos) << *p;
  p = bracket_problem("int f() {\n  g(1];\n}\n");
  ASSERT_TRUE(p);
  EXPECT_NE(p->find("line 2"), std::string::npos) << *p;
}

TEST(Edits, ParseCheckBracketsAndLibclang) {
  parse_checker quick(false);
  search::file_map after = files;
  after["op_kernel/k.cpp"] += "int h() {\n";
  auto bad = quick.check(files, after, {"op_kernel/k.cpp"});
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->kind, edit_error::does_not_parse);
  EXPECT_NE(bad->reason.find("unbalanced"), std::string::npos);

  // A balanced but wrong edit is caught by libclang (an undeclared identifier).
  parse_checker full(true);
  search::file_map wrong = files;
  wrong["op_kernel/k.cpp"] = "int f() {\n    int a = 1;\n    return a + undeclared_thing;\n}\n";
  const auto t0 = std::chrono::steady_clock::now();
  bad = full.check(files, wrong, {"op_kernel/k.cpp"});
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::printf("libclang check of a small file: %.1f ms\n", ms);
  ASSERT_TRUE(bad);
  EXPECT_NE(bad->reason.find("undeclared_thing"), std::string::npos) << bad->reason;
  EXPECT_FALSE(full.check(files, files, {"op_kernel/k.cpp"}));
  // Warm (precompiled headers built): the cost of one more check.
  wrong["op_kernel/k.cpp"] = "int f() {\n    int a = 1;\n    return a + other_undeclared;\n}\n";
  const auto t1 = std::chrono::steady_clock::now();
  EXPECT_TRUE(full.check(files, wrong, {"op_kernel/k.cpp"}));
  std::printf("libclang check, warm: %.1f ms\n",
              std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t1).count());
}

TEST(Edits, SectionsWithFields) {
  const auto secs = split_sections(
      "Some intro.\n### Proposal 1: Single buffer\nBottleneck: serialized_pipes\nDescription: one slot per queue.\n"
      "op_kernel/k.cpp\n<<<<<<< SEARCH\n# not a heading\n=======\nx\n>>>>>>> REPLACE\n## Proposal 2 - Barrier\n**Uses:** T1, T2\nSome prose.\n");
  ASSERT_EQ(secs.size(), 2u);
  EXPECT_EQ(secs[0].title, "Single buffer");
  EXPECT_EQ(secs[0].fields.at("bottleneck"), "serialized_pipes");
  EXPECT_EQ(secs[0].fields.at("description"), "one slot per queue.");
  EXPECT_NE(secs[0].body.find("<<<<<<< SEARCH"), std::string::npos);
  EXPECT_EQ(secs[1].title, "Barrier");
  EXPECT_EQ(secs[1].fields.at("uses"), "T1, T2");
  EXPECT_EQ(secs[1].prose, "Some prose.\n");
  EXPECT_EQ(split_sections("no headings at all\n").size(), 1u);
}

}  // namespace
}  // namespace aopt::llm
