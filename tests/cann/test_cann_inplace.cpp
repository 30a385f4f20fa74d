// In-place operators on the `cann` backend (issue 34's cann remainder): an operator that
// declares no output and writes its input x (tests/integration/packages/inplace_axpy, x += 2 y)
// is installed (its ops-info has no output0), the runner finds x changed on the device and
// reports it under written_inputs, and the evaluator compares it with the reference's final x,
// as on sim; a kernel that writes nothing (inplace_axpy_noop) is a precision_error, never ok.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <iostream>

#include <nlohmann/json.hpp>

#include "aopt/common/fs.h"
#include "aopt/evaluation/evaluator.h"
#include "aopt/evaluation/package.h"
#include "standin_evaluator.h"

namespace fs = std::filesystem;
namespace ev = aopt::evaluation;

namespace {

constexpr std::uint64_t k_seed = 34034;

class CannInPlace : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("aopt-cann-inplace-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    std::cout << "stand-in seed " << k_seed << "\n";
  }
  void TearDown() override { fs::remove_all(root_); }

  ev::evaluator evaluator() const {
    return ev::evaluator(aopt::testing::standin_eval_options(root_, aopt::testing::write_standin_eval_profile(root_, k_seed)));
  }
  static fs::path packages() { return fs::path(AOPT_TEST_SOURCE_DIR) / "tests/integration/packages"; }
  static const ev::output_check* check_of(const ev::case_result& c, const std::string& name) {
    for (const auto& o : c.outputs) {
      if (o.name == name) return &o;
    }
    return nullptr;
  }

  fs::path root_;
};

TEST_F(CannInPlace, TheInputTheKernelWritesIsComparedAndADoNothingKernelFails) {
  auto e = evaluator();
  auto pkg = std::make_shared<const ev::op_package>(ev::load_package(packages() / "inplace_axpy"));
  const auto r = e.evaluate(ev::candidate(pkg));
  ASSERT_EQ(r.status, "ok") << r.diagnostic << r.build.dump(2);
  for (const auto& c : r.cases) {
    const auto* x = check_of(c, "x");
    ASSERT_NE(x, nullptr) << "case " << c.name << ": x was not compared";
    EXPECT_TRUE(x->passed) << x->message;
  }
  ev::candidate noop(pkg);
  noop.replace("op_kernel/inplace_axpy.cpp", aopt::common::read_text_file(packages() / "inplace_axpy_noop/op_kernel/inplace_axpy.cpp"));
  const auto n = e.evaluate(noop);
  EXPECT_EQ(n.status, "precision_error") << n.diagnostic;
  EXPECT_NE(n.diagnostic.find("input 'x', compared as written in place"), std::string::npos) << n.diagnostic;
}

}  // namespace
