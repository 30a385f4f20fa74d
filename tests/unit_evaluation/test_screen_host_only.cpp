// A tiling screen (evaluator::screen) builds the candidate's host only: it asks the backend for
// a build with no cases, so no kernel column is compiled (issue 35: a Stage I variant that
// changes a kernel constant screens on the host build it shares; a screened-out one never
// builds its kernel). A fake backend named "sim" (screen answers only that backend) records the
// cases of each build and answers the screen run with a tiling.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "aopt/evaluation/evaluator.h"
#include "aopt/evaluation/package.h"

namespace ev = aopt::evaluation;
namespace fs = std::filesystem;

namespace {

class host_only_backend final : public ev::backend {
 public:
  std::vector<std::size_t> build_cases;  // the number of cases each build was asked to cover
  int runs = 0;
  std::string name() const override { return "sim"; }
  std::string profile_name() const override { return "p"; }
  std::string fingerprint() const override { return "screen-host-only"; }
  ev::build_result build(const ev::candidate&, const fs::path& dir, const std::vector<const ev::case_spec*>& cases) override {
    build_cases.push_back(cases.size());
    ev::build_result b;
    b.ok = true;
    b.dir = dir;
    // The fixture's OpDef (alloc_forever: x, y -> z, float16).
    b.signature = nlohmann::json::parse(R"({"op_type": "AddCustom", "kernel": "add_custom",
      "inputs": [{"name": "x", "dtypes": ["float16"]}, {"name": "y", "dtypes": ["float16"]}],
      "outputs": [{"name": "z", "dtypes": ["float16"]}]})");
    // Kernels only for the columns of the cases asked for, as the sim backend builds them.
    if (!cases.empty()) b.kernels[0] = dir / "kernel_0.so";
    return b;
  }
  ev::run_result run(const ev::build_result& built, const ev::run_spec& spec, const fs::path&,
                     const aopt::common::sandbox_limits&) override {
    ++runs;
    ev::run_result r;
    if (!spec.screen && built.kernels.empty()) {
      r.status = "runtime_error";
      r.diagnostic = "no kernel built";
      return r;
    }
    r.status = "ok";
    r.harness = {{"tiling", {{"block_dim", 8}, {"tiling_key", 1}, {"words", {64, 2}}, {"core_count", 40},
                             {"ub_capacity", 196608}, {"ub_usable", 196352}}},
                 {"tunables", {{"given", 3}}}};
    return r;
  }
  std::optional<ev::roofline_estimate> roofline(double, double, double) const override { return std::nullopt; }
};

TEST(ScreenHostOnly, AScreenBuildsNoKernel) {
  const fs::path root = fs::temp_directory_path() / ("aopt-screen-host-only-" + std::to_string(::getpid()));
  fs::remove_all(root);
  const auto pkg = std::make_shared<const ev::op_package>(
      ev::load_package(fs::path(AOPT_TEST_SOURCE_DIR) / "tests/integration/packages/alloc_forever"));
  ev::eval_options o;
  o.backend = "sim";
  o.cache_dir = root / "cache";
  o.work_root = root / "work";
  auto be = std::make_unique<host_only_backend>();
  auto* fb = be.get();
  ev::evaluator e(o, std::move(be));
  const auto s = e.screen(ev::candidate(pkg));
  ASSERT_EQ(s.status, aopt::vocab::eval_status::ok) << s.diagnostic;
  EXPECT_TRUE(s.ok);
  ASSERT_EQ(fb->build_cases.size(), 1u);
  EXPECT_EQ(fb->build_cases.front(), 0u) << "a screen asked for kernels of its cases";
  ASSERT_FALSE(s.cases.empty());
  EXPECT_GE(fb->runs, 1);
  // The tiling facts reach the search typed (Stage I's feasibility screen reads them).
  for (const auto& c : s.cases) {
    EXPECT_EQ(c.block_dim, 8u) << c.name;
    EXPECT_EQ(c.tiling_key, 1) << c.name;
    EXPECT_EQ(c.words, (std::vector<std::int64_t>{64, 2})) << c.name;
    EXPECT_EQ(c.core_count, 40u) << c.name;
    EXPECT_EQ(c.ub_capacity, 196608u) << c.name;
    EXPECT_EQ(c.ub_usable, 196352u) << c.name;
    EXPECT_EQ(c.tunables_given, 3u) << c.name;
    EXPECT_GT(c.elements, 0u) << c.name;
    EXPECT_EQ(c.elem_bytes, 2u) << c.name << ": float16";
  }
  fs::remove_all(root);
}

}  // namespace
