// Everything an operator writes is checked (issue 34), with a fake backend whose "kernels" update
// their input x in place (x += 2 y, reported as a written input, as the sim harness reports an
// input whose GM bytes changed), do nothing, or also scribble on y. And the per-element shapes
// of a tensor-list output in aopt.json.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "aopt/common/error.h"
#include "aopt/common/fs.h"
#include "aopt/common/mapped_file.h"
#include "aopt/evaluation/evaluator.h"
#include "aopt/evaluation/package.h"

namespace ev = aopt::evaluation;
namespace fs = std::filesystem;

namespace {

enum class mode { axpy, noop, axpy_and_scribble_y };

class inplace_backend final : public ev::backend {
 public:
  mode base = mode::axpy, variant = mode::axpy;
  std::string name() const override { return "fake"; }
  std::string profile_name() const override { return "p"; }
  std::string fingerprint() const override { return "inplace-v1"; }
  ev::build_result build(const ev::candidate& c, const fs::path& dir, const std::vector<const ev::case_spec*>&) override {
    ev::build_result b;
    b.ok = true;
    b.dir = dir;
    b.signature = {{"op_type", "InplaceAxpy"},
                   {"kernel", "inplace_axpy"},
                   {"inputs", {{{"name", "x"}, {"dtypes", {"float32"}}}, {{"name", "y"}, {"dtypes", {"float32"}}}}},
                   {"outputs", nlohmann::json::array()},
                   {"fake_mode", static_cast<int>(c.is_baseline() ? base : variant)}};
    b.kernels[0] = dir / "kernel_0.so";
    return b;
  }
  ev::run_result run(const ev::build_result& b, const ev::run_spec& spec, const fs::path& run_dir,
                     const aopt::common::sandbox_limits&) override {
    ev::run_result r;
    r.status = "ok";
    const auto m = static_cast<mode>(b.signature["fake_mode"].get<int>());
    if (m == mode::noop) return r;
    const auto& x = spec.inputs.at(0).tensors.at(0);
    const auto& y = spec.inputs.at(1).tensors.at(0);
    const aopt::common::mapped_file xf(x.file), yf(y.file);
    std::vector<float> xs(xf.size() / 4), ys(yf.size() / 4);
    std::memcpy(xs.data(), xf.data(), xf.size());
    std::memcpy(ys.data(), yf.data(), yf.size());
    for (std::size_t i = 0; i < xs.size(); ++i) xs[i] += 2.0f * ys[i];
    ev::tensor_file out{"x", ev::dtype::float32, x.shape, run_dir / "out_written_x.bin", true};
    aopt::common::write_file_bytes(out.file, xs.data(), xs.size() * 4);
    r.outputs.push_back(out);
    if (m == mode::axpy_and_scribble_y) {
      for (auto& v : ys) v = 42.0f;
      ev::tensor_file yo{"y", ev::dtype::float32, y.shape, run_dir / "out_written_y.bin", true};
      aopt::common::write_file_bytes(yo.file, ys.data(), ys.size() * 4);
      r.outputs.push_back(yo);
    }
    return r;
  }
  std::optional<ev::roofline_estimate> roofline(double, double, double) const override { return std::nullopt; }
};

class InPlace : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("aopt-inplace-test-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
    // The fixture operator, checked against its own baseline (not its reference.cpp).
    const fs::path spec = root_ / "aopt.json";
    std::ofstream(spec) << R"({"kernel": "inplace_axpy", "reference": "baseline", "cases": [
      {"name": "c", "timed": true, "inputs": {"x": {"shape": [64], "dtype": "float32"}, "y": {"shape": [64], "dtype": "float32"}}}]})";
    ev::package_options po;
    po.spec_file = spec;
    pkg_ = std::make_shared<const ev::op_package>(
        ev::load_package(fs::path(AOPT_TEST_SOURCE_DIR) / "tests/integration/packages/inplace_axpy", po));
  }
  void TearDown() override { fs::remove_all(root_); }
  ev::eval_result evaluate(mode base, mode variant, bool as_variant) {
    ev::eval_options o;
    o.backend = "fake";
    o.cache_dir = root_ / "cache";
    o.work_root = root_ / "work";
    o.use_cache = false;
    auto be = std::make_unique<inplace_backend>();
    be->base = base;
    be->variant = variant;
    ev::evaluator e(o, std::move(be));
    ev::candidate c(pkg_);
    if (as_variant) c.replace(pkg_->kernel_source, "// variant " + std::to_string(static_cast<int>(variant)) + "\n");
    return e.evaluate(c);
  }
  const ev::output_check* check_of(const ev::eval_result& r, const std::string& name) {
    for (const auto& o : r.cases.at(0).outputs) {
      if (o.name == name) return &o;
    }
    return nullptr;
  }
  fs::path root_;
  std::shared_ptr<const ev::op_package> pkg_;
};

}  // namespace

TEST_F(InPlace, AKernelThatDoesNothingFailsAgainstTheBaselinesUpdatedInput) {
  const auto r = evaluate(mode::axpy, mode::noop, true);
  EXPECT_EQ(r.status, "precision_error") << r.to_json().dump(2);
  const auto* x = check_of(r, "x");
  ASSERT_NE(x, nullptr) << r.to_json().dump(2);
  EXPECT_FALSE(x->passed);
  EXPECT_GT(x->mismatches, 0u);
  EXPECT_NE(r.diagnostic.find("input 'x'"), std::string::npos) << r.diagnostic;
}

TEST_F(InPlace, TheSameUpdateInPlaceIsOkAndCompared) {
  const auto r = evaluate(mode::axpy, mode::axpy, true);
  EXPECT_EQ(r.status, "ok") << r.to_json().dump(2);
  const auto* x = check_of(r, "x");
  ASSERT_NE(x, nullptr) << r.to_json().dump(2);
  EXPECT_EQ(x->elements, 64u);
}

TEST_F(InPlace, AnInputTheBaselineLeavesAloneMustStayAsGiven) {
  const auto r = evaluate(mode::axpy, mode::axpy_and_scribble_y, true);
  EXPECT_EQ(r.status, "precision_error") << r.to_json().dump(2);
  const auto* y = check_of(r, "y");
  ASSERT_NE(y, nullptr) << r.to_json().dump(2);
  EXPECT_FALSE(y->passed);
}

TEST_F(InPlace, AnEvaluationThatComparesNothingIsNeverOk) {
  const auto r = evaluate(mode::noop, mode::noop, false);  // the do-nothing operator is its own baseline
  EXPECT_EQ(r.status, "precision_error") << r.to_json().dump(2);
  EXPECT_NE(r.diagnostic.find("nothing was compared"), std::string::npos) << r.diagnostic;
}

TEST(ListOutputShapes, AoptJsonGivesEachElementsShape) {
  const auto spec = ev::parse_op_spec(R"({"kernel": "k", "cases": [{"name": "c", "timed": true,
      "inputs": {"x": {"list": [{"shape": [4], "dtype": "float16"}, {"shape": [8], "dtype": "float16"}]}},
      "outputs": {"y": {"list": [{"shape": [2, 3]}, {"shape": [5]}, {"shape": [7]}]}}}]})",
                                      "aopt.json");
  ASSERT_EQ(spec.cases.at(0).outputs.size(), 1u);
  const auto& y = spec.cases[0].outputs[0];
  ASSERT_EQ(y.list_shapes.size(), 3u);
  EXPECT_EQ(y.list_shapes[0], (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(y.list_shapes[2], (std::vector<std::int64_t>{7}));
  const nlohmann::json sig = {{"inputs", {{{"name", "x"}, {"param_type", "dynamic"}, {"dtypes", {"float16"}}}}},
                              {"outputs", {{{"name", "y"}, {"param_type", "dynamic"}, {"dtypes", {"float16"}}}}}};
  const auto decls = ev::output_decls(sig, 0, spec.cases[0]);
  ASSERT_EQ(decls.size(), 1u);
  EXPECT_EQ(decls[0].list_count, 3u);  // the spec's, not the input list's 2
  EXPECT_EQ(decls[0].list_shapes[1], (std::vector<std::int64_t>{5}));
  // Without shapes: as many as the first list input's elements, shapes left to InferShape.
  auto plain = spec.cases[0];
  plain.outputs.clear();
  const auto d2 = ev::output_decls(sig, 0, plain);
  EXPECT_EQ(d2.at(0).list_count, 2u);
  EXPECT_TRUE(d2.at(0).list_shapes.empty());
}

TEST(ListOutputShapes, AMalformedListNamesTheField) {
  try {
    ev::parse_op_spec(R"({"kernel": "k", "cases": [{"name": "c", "timed": true,
        "inputs": {"x": {"shape": [4], "dtype": "float16"}},
        "outputs": {"y": {"list": [{"shape": [0]}]}}}]})",
                      "aopt.json");
    FAIL() << "accepted a zero dimension";
  } catch (const aopt::error& e) {
    EXPECT_NE(std::string(e.what()).find("outputs.y.list[0].shape"), std::string::npos) << e.what();
  }
}
