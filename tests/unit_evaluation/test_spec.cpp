// aopt.json validation: one test per malformed field, each asserting file, line and field.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "aopt/common/error.h"
#include "aopt/evaluation/spec.h"

#include <nlohmann/json.hpp>

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

// An input's exact data ("value", as msOpST's case files): a flat list, one number per element,
// or one number for all (index inputs the draft cannot guess). Before: an unknown key, ignored.
TEST(Spec, ValueGivesAnInputsData) {
  const auto s = ev::parse_op_spec(spec_text(R"({"shape": [2, 2], "dtype": "int32", "value": [0, 3, 1, 2]})"), "pkg/aopt.json");
  EXPECT_EQ(s.cases[0].inputs[0].tensors[0].values, (std::vector<double>{0, 3, 1, 2}));
  EXPECT_TRUE(s.warnings.empty());
  const auto b = ev::parse_op_spec(spec_text(R"({"shape": [3], "dtype": "float32", "value": 7})"), "pkg/aopt.json");
  EXPECT_EQ(b.cases[0].inputs[0].tensors[0].values, (std::vector<double>{7, 7, 7}));
}

TEST(Spec, ValueOfTheWrongSize) {
  expect_error(spec_text(R"({"shape": [4], "dtype": "int32", "value": [0, 1, 2]})"), 5, "cases[0].inputs.x.value",
               "the list has 3 numbers but the shape has 4 elements");
}

TEST(Spec, ValueNotNumbers) {
  expect_error(spec_text(R"({"shape": [2], "dtype": "int32", "value": [[0], [1]]})"), 5, "cases[0].inputs.x.value", "element 0 is not a number");
  expect_error(spec_text(R"({"shape": [2], "dtype": "int32", "value": "0 1"})"), 5, "cases[0].inputs.x.value", "expected a number or a flat list");
}

// "sorted": generated non-decreasing (sorted indices, offsets of bags). Before: an unknown key, ignored.
TEST(Spec, SortedMarksAnInputGeneratedInOrder) {
  const auto s = ev::parse_op_spec(spec_text(R"({"shape": [64], "dtype": "int32", "range": [0, 9], "sorted": true})"), "pkg/aopt.json");
  EXPECT_TRUE(s.cases[0].inputs[0].tensors[0].sorted);
  EXPECT_TRUE(s.warnings.empty());
  expect_error(spec_text(R"({"shape": [4], "dtype": "int32", "sorted": "yes"})"), 5, "cases[0].inputs.x.sorted", "expected true or false");
  expect_error(spec_text(R"({"shape": [2], "dtype": "int32", "value": [1, 0], "sorted": true})"), 5, "cases[0].inputs.x.sorted",
               "applies to generated values");
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

// --timed-shape / "timed_shape": the timed case's main-shape tensors take the new shape,
// broadcast operands keep their 1s, other tensors (a scalar) keep theirs; other cases untouched.
TEST(Spec, TimedShapeScalesTheTimedCaseOnly) {
  const std::string text = R"({"kernel": "k", "cases": [
    {"name": "perf", "timed": true, "inputs": {
       "x": {"shape": [8, 64], "dtype": "float16"}, "bias": {"shape": [1, 64], "dtype": "float16"},
       "s": {"shape": [1], "dtype": "float16"}, "idx": {"shape": [5, 3], "dtype": "int32"}},
     "outputs": {"y": {"shape": [8, 64]}}},
    {"name": "tail", "inputs": {"x": {"shape": [3, 7], "dtype": "float16"}, "bias": {"shape": [1, 7], "dtype": "float16"},
       "s": {"shape": [1], "dtype": "float16"}, "idx": {"shape": [5, 3], "dtype": "int32"}}}]})";
  auto s = ev::parse_op_spec(text, "pkg/aopt.json");
  const auto before = s.to_json();
  ev::set_timed_shape(s, {64, 32768}, "--timed-shape");
  const auto& perf = s.cases[0];
  EXPECT_EQ(perf.inputs[0].tensors[0].shape, (std::vector<std::int64_t>{64, 32768}));
  EXPECT_EQ(perf.inputs[1].tensors[0].shape, (std::vector<std::int64_t>{1, 32768}));
  EXPECT_EQ(perf.inputs[2].tensors[0].shape, (std::vector<std::int64_t>{1}));
  EXPECT_EQ(perf.inputs[3].tensors[0].shape, (std::vector<std::int64_t>{5, 3}));
  ASSERT_TRUE(perf.outputs.at(0).shape.has_value());
  EXPECT_EQ(*perf.outputs[0].shape, (std::vector<std::int64_t>{64, 32768}));
  EXPECT_EQ(s.cases[1].inputs[0].tensors[0].shape, (std::vector<std::int64_t>{3, 7}));
  EXPECT_EQ(s.timed_shape, (std::vector<std::int64_t>{64, 32768}));
  EXPECT_NE(s.to_json(), before);  // the candidate key sees the new shape
  ASSERT_FALSE(s.warnings.empty());
  EXPECT_NE(s.warnings.back().find("[8,64]"), std::string::npos) << s.warnings.back();

  // The same through the file's key, with its line in errors.
  const std::string keyed = R"({"kernel": "k", "timed_shape": [4, 1024],
    "cases": [{"name": "perf", "timed": true, "inputs": {"x": {"shape": [8, 64], "dtype": "float16"}}}]})";
  EXPECT_EQ(ev::parse_op_spec(keyed, "pkg/aopt.json").cases[0].inputs[0].tensors[0].shape,
            (std::vector<std::int64_t>{4, 1024}));
  const std::string bad = R"({"kernel": "k",
    "timed_shape": [4, 0],
    "cases": [{"name": "perf", "timed": true, "inputs": {"x": {"shape": [8, 64], "dtype": "float16"}}}]})";
  expect_error(bad, 2, "timed_shape", "not a positive integer");
}

TEST(Spec, TimedShapeRefusesGivenValuesAndHugeShapes) {
  const std::string text = R"({"kernel": "k", "cases": [{"name": "perf", "timed": true,
    "inputs": {"x": {"shape": [2], "dtype": "float16"}}}]})";
  auto s = ev::parse_op_spec(text, "pkg/aopt.json");
  s.cases[0].inputs[0].tensors[0].values = {1.0, 2.0};  // msOpST "value"
  EXPECT_THROW(ev::set_timed_shape(s, {4}, "--timed-shape"), aopt::error);
  s.cases[0].inputs[0].tensors[0].values.clear();
  try {
    ev::set_timed_shape(s, {1 << 21, 1 << 21}, "--timed-shape");
    FAIL() << "a shape over 2^40 elements must be refused";
  } catch (const aopt::error& e) {
    EXPECT_NE(std::string(e.what()).find("--timed-shape"), std::string::npos) << e.what();
  }
}

TEST(Spec, ShapeTextForms) {
  EXPECT_EQ(ev::parse_shape_text("64x32768", "--timed-shape"), (std::vector<std::int64_t>{64, 32768}));
  EXPECT_EQ(ev::parse_shape_text("64,32768", "--timed-shape"), (std::vector<std::int64_t>{64, 32768}));
  EXPECT_EQ(ev::parse_shape_text("[2, 3, 4]", "--timed-shape"), (std::vector<std::int64_t>{2, 3, 4}));
  EXPECT_EQ(ev::parse_shape_text("1048576", "--timed-shape"), (std::vector<std::int64_t>{1048576}));
  for (const char* bad : {"", "x", "64x", "64xx2", "-4x2", "0x8", "64*8", "99999999999999999999"}) {
    try {
      ev::parse_shape_text(bad, "--timed-shape");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const aopt::error& e) {
      EXPECT_NE(std::string(e.what()).find("--timed-shape"), std::string::npos) << e.what();
    }
  }
}

// The real-operator bench's data (examples/real-ops): every spec is valid, has a timed case of
// at least 64k elements in its largest input or given output (worth optimizing) and an entry in
// sources.json, and every entry a spec.
TEST(Spec, RealOperatorSuiteDataIsComplete) {
  const fs::path dir = fs::path(AOPT_TEST_SOURCE_DIR) / "examples" / "real-ops";
  std::ifstream in(dir / "sources.json");
  const auto sources = nlohmann::json::parse(in).at("operators");
  std::size_t specs = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (!e.is_directory()) continue;
    const std::string op = e.path().filename().string();
    SCOPED_TRACE(op);
    const auto s = ev::load_op_spec(e.path() / "aopt.json");
    EXPECT_TRUE(s.warnings.empty()) << s.warnings.front();
    const auto* timed = &s.cases.front();
    for (const auto& c : s.cases) if (c.timed) timed = &c;
    std::int64_t largest = 0;
    for (const auto& i : timed->inputs) largest = std::max(largest, i.tensors.at(0).numel());
    // A generator's work is its output (fill: the four values of dims in, 2 M elements out): an
    // output shape the case gives counts too.
    for (const auto& o : timed->outputs) {
      if (!o.shape) continue;
      ev::tensor_spec given;
      given.shape = *o.shape;
      largest = std::max(largest, given.numel());
    }
    EXPECT_GE(largest, 65536);
    EXPECT_TRUE(sources.contains(op)) << "no sources.json entry";
    ++specs;
  }
  EXPECT_EQ(specs, sources.size()) << "a sources.json entry without a spec directory";
  EXPECT_GE(specs, 30u);
}
