// aopt.json validation: one test per malformed field, each asserting file, line and field.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "aopt/common/error.h"
#include "aopt/evaluation/spec.h"

namespace ev = aopt::evaluation;
namespace fs = std::filesystem;

namespace {

// Line numbers matter: the tests below point at them.
std::string spec_text(const std::string& perf_x = R"({"shape": [8, 64], "dtype": "float16", "range": [-1, 1]})",
                      const std::string& extra_top = "", const std::string& tolerance =
                          R"({"float16": {"rtol": 1e-3, "atol": 1e-3}, "max_mismatch_ratio": 0.001})",
                      const std::string& perf_timed = "true") {
  return std::string("{\n") +                                                   // 1
         "  \"kernel\": \"add_custom\",\n" +                                   // 2
         "  \"cases\": [\n" +                                                  // 3
         "    {\"name\": \"perf\", \"timed\": " + perf_timed + ",\n" +          // 4
         "     \"inputs\": {\"x\": " + perf_x + ",\n" +                         // 5
         "                \"y\": {\"shape\": [8, 64], \"dtype\": \"float16\"}}},\n" +  // 6
         "    {\"name\": \"tail\", \"inputs\": {\"x\": {\"shape\": [3], \"dtype\": \"float32\"}}}\n" +  // 7
         "  ],\n" +                                                            // 8
         "  \"tolerance\": " + tolerance + ",\n" +                             // 9
         extra_top +                                                           // 10 when given
         "  \"reference\": \"baseline\"\n" +
         "}\n";
}

void expect_error(const std::string& text, int line, const std::string& field, const std::string& problem) {
  try {
    ev::parse_op_spec(text, "pkg/aopt.json");
    FAIL() << "expected an error for field " << field;
  } catch (const aopt::error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("pkg/aopt.json:" + std::to_string(line) + ":"), std::string::npos) << msg;
    EXPECT_NE(msg.find("'" + field + "'"), std::string::npos) << msg;
    EXPECT_NE(msg.find(problem), std::string::npos) << msg;
    EXPECT_NE(msg.find(";"), std::string::npos) << "no advice in: " << msg;
  }
}

}  // namespace

TEST(Spec, ValidFileParses) {
  const auto s = ev::parse_op_spec(spec_text(), "pkg/aopt.json");
  EXPECT_EQ(s.kernel, "add_custom");
  ASSERT_EQ(s.cases.size(), 2u);
  EXPECT_TRUE(s.cases[0].timed);
  EXPECT_FALSE(s.cases[1].timed);
  ASSERT_EQ(s.cases[0].inputs.size(), 2u);
  EXPECT_EQ(s.cases[0].inputs[0].name, "x");  // file order kept
  EXPECT_EQ(s.cases[0].inputs[1].name, "y");
  EXPECT_EQ(s.cases[0].inputs[0].tensors[0].shape, (std::vector<std::int64_t>{8, 64}));
  EXPECT_EQ(s.cases[1].inputs[0].tensors[0].type, ev::dtype::float32);
  EXPECT_TRUE(s.reference_is_baseline());
  EXPECT_DOUBLE_EQ(s.tolerance.for_dtype(ev::dtype::float16).rtol, 1e-3);
  EXPECT_TRUE(s.warnings.empty());
}

TEST(Spec, UnknownDtype) {
  expect_error(spec_text(R"({"shape": [8, 64], "dtype": "float17"})"), 5, "cases[0].inputs.x.dtype", "unknown dtype \"float17\"");
}

TEST(Spec, ShapeNotAList) {
  expect_error(spec_text(R"({"shape": 8, "dtype": "float16"})"), 5, "cases[0].inputs.x.shape", "not a list of positive integers");
}

TEST(Spec, ShapeWithZero) {
  expect_error(spec_text(R"({"shape": [8, 0], "dtype": "float16"})"), 5, "cases[0].inputs.x.shape", "not a list of positive integers");
}

TEST(Spec, ShapeWithNegativeOrFraction) {
  expect_error(spec_text(R"({"shape": [-1, 4], "dtype": "float16"})"), 5, "cases[0].inputs.x.shape", "dimension 0");
  expect_error(spec_text(R"({"shape": [2.5], "dtype": "float16"})"), 5, "cases[0].inputs.x.shape", "dimension 0");
}

TEST(Spec, MissingShape) {
  expect_error(spec_text(R"({"dtype": "float16"})"), 5, "cases[0].inputs.x.shape", "missing");
}

TEST(Spec, RangeReversed) {
  expect_error(spec_text(R"({"shape": [4], "dtype": "float16", "range": [1, -1]})"), 5, "cases[0].inputs.x.range", "range reversed");
}

TEST(Spec, RangeNotAPair) {
  expect_error(spec_text(R"({"shape": [4], "dtype": "float16", "range": [1]})"), 5, "cases[0].inputs.x.range", "two numbers");
}

TEST(Spec, MissingTimedCase) {
  expect_error(spec_text(R"({"shape": [4], "dtype": "float16"})", "", R"({"max_mismatch_ratio": 0})", "false"), 3, "cases",
               "missing timed case");
}

TEST(Spec, TimedNotBool) {
  expect_error(spec_text(R"({"shape": [4], "dtype": "float16"})", "", R"({"max_mismatch_ratio": 0})", "\"yes\""), 4,
               "cases[0].timed", "expected true or false");
}

TEST(Spec, ToleranceNegative) {
  expect_error(spec_text(R"({"shape": [4], "dtype": "float16"})", "", R"({"float16": {"rtol": -1e-3}})"), 9,
               "tolerance.float16.rtol", "tolerance negative");
}

TEST(Spec, ToleranceUnknownDtype) {
  expect_error(spec_text(R"({"shape": [4], "dtype": "float16"})", "", R"({"fp16": {"rtol": 1e-3}})"), 9, "tolerance.fp16",
               "unknown dtype \"fp16\"");
}

TEST(Spec, MismatchRatioOutOfRange) {
  expect_error(spec_text(R"({"shape": [4], "dtype": "float16"})", "", R"({"max_mismatch_ratio": 2})"), 9,
               "tolerance.max_mismatch_ratio", "must be in [0, 1]");
}

TEST(Spec, UnknownKeysAreWarnedWithLine) {
  const auto s = ev::parse_op_spec(spec_text(R"({"shape": [4], "dtype": "float16", "rnage": [0, 1]})", "  \"colour\": 3,\n"),
                                   "pkg/aopt.json");
  ASSERT_EQ(s.warnings.size(), 2u);
  EXPECT_NE(s.warnings[0].find("pkg/aopt.json:10:"), std::string::npos) << s.warnings[0];
  EXPECT_NE(s.warnings[0].find("'colour'"), std::string::npos) << s.warnings[0];
  EXPECT_NE(s.warnings[1].find("pkg/aopt.json:5:"), std::string::npos) << s.warnings[1];
  EXPECT_NE(s.warnings[1].find("'rnage'"), std::string::npos) << s.warnings[1];
  EXPECT_NE(s.warnings[1].find("'cases[0].inputs.x'"), std::string::npos) << s.warnings[1];
}

TEST(Spec, MissingKernel) {
  try {
    ev::parse_op_spec("{\n \"cases\": []\n}", "pkg/aopt.json");
    FAIL();
  } catch (const aopt::error& e) {
    EXPECT_NE(std::string(e.what()).find("pkg/aopt.json:1:1: field 'kernel': missing"), std::string::npos) << e.what();
  }
}

TEST(Spec, EmptyCases) {
  expect_error("{\n \"kernel\": \"k\",\n \"cases\": []\n}", 3, "cases", "non-empty list");
}

TEST(Spec, DuplicateCaseName) {
  const std::string t =
      "{\"kernel\": \"k\", \"cases\": [\n"
      "{\"name\": \"a\", \"timed\": true, \"inputs\": {\"x\": {\"shape\": [1], \"dtype\": \"int32\"}}},\n"
      "{\"name\": \"a\", \"inputs\": {\"x\": {\"shape\": [1], \"dtype\": \"int32\"}}}]}";
  expect_error(t, 3, "cases[1].name", "duplicate case name");
}

TEST(Spec, ListInput) {
  const std::string t =
      "{\"kernel\": \"k\", \"cases\": [\n"
      "{\"name\": \"a\", \"timed\": true, \"inputs\": {\"x\": {\"list\": [\n"
      "   {\"shape\": [2], \"dtype\": \"float32\"},\n"
      "   {\"shape\": [3, 0], \"dtype\": \"float32\"}]}}}]}";
  expect_error(t, 4, "cases[0].inputs.x.list[1].shape", "positive");
  std::string ok = t;
  ok.replace(ok.find("[3, 0]"), 6, "[3, 1]");
  const auto s = ev::parse_op_spec(ok, "pkg/aopt.json");
  ASSERT_TRUE(s.cases[0].inputs[0].is_list);
  EXPECT_EQ(s.cases[0].inputs[0].tensors.size(), 2u);
}

TEST(Spec, ReferenceFile) {
  const fs::path dir = fs::temp_directory_path() / ("aopt-spec-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string base = "{\"kernel\": \"k\", \"cases\": [{\"name\": \"a\", \"timed\": true, \"inputs\": "
                           "{\"x\": {\"shape\": [1], \"dtype\": \"int32\"}}}],\n \"reference\": ";
  expect_error(base + "\"ref.py\"}", 2, "reference", "neither");
  try {
    ev::parse_op_spec(base + "\"missing.cpp\"}", dir / "aopt.json");
    FAIL();
  } catch (const aopt::error& e) {
    EXPECT_NE(std::string(e.what()).find("does not exist"), std::string::npos);
  }
  std::ofstream(dir / "ref.cpp") << "// reference\n";
  const auto s = ev::parse_op_spec(base + "\"ref.cpp\"}", dir / "aopt.json");
  EXPECT_EQ(fs::path(s.reference), fs::absolute(dir / "ref.cpp"));
  fs::remove_all(dir);
}

TEST(Spec, CanonicalJsonIgnoresFormatting) {
  const auto a = ev::parse_op_spec(spec_text(), "a.json");
  std::string t = spec_text();
  for (std::size_t p; (p = t.find("\n")) != std::string::npos;) t.replace(p, 1, " ");
  const auto b = ev::parse_op_spec(t, "b.json");
  EXPECT_EQ(a.to_json().dump(), b.to_json().dump());
}
