// Partial builds on the `cann` backend (docs/cann.md, "Partial builds"; issue 35, item 3), on the
// stand-in toolchain with the example profile's own command lines: the stand-in records every
// step it runs (AOPT_STANDIN_STEP_LOG: build, install, tiling, kernel, each launch's run) with
// what it compiled and when. A Stage I variant of a built search form runs no step at all (no
// compiler, no install) and reads its tunables at run time; a host change runs only the tiling
// step, a kernel change only the kernel step, which really rebuilds the kernel; a failing step
// is a compile_error naming it; a builder's build overlaps a device's measurement.
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include <nlohmann/json.hpp>

#include "aopt/common/fs.h"
#include "aopt/evaluation/cann.h"
#include "aopt/evaluation/evaluator.h"
#include "aopt/evaluation/package.h"
#include "standin_evaluator.h"

namespace fs = std::filesystem;
namespace ev = aopt::evaluation;

namespace {

constexpr std::uint64_t k_seed = 35035;

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

class CannPartial : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("aopt-cann-partial-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    log_ = root_ / "steps.jsonl";
    std::cout << "stand-in seed " << k_seed << "\n";
    pkg_ = std::make_shared<const ev::op_package>(ev::load_package(std::string(AOPT_TEST_SOURCE_DIR) + "/examples/ops/add_custom"));
    host_ = aopt::common::read_text_file(pkg_->dir / "op_host/add_custom.cpp");
    kernel_ = aopt::common::read_text_file(pkg_->dir / "op_kernel/add_custom.cpp");
  }
  void TearDown() override { fs::remove_all(root_); }

  fs::path profile(const std::set<std::string>& without = {}) {
    return aopt::testing::write_standin_eval_profile(root_, k_seed, {{"AOPT_STANDIN_STEP_LOG", log_.string()}}, without);
  }
  ev::eval_options options(const fs::path& prof) const {
    auto eo = aopt::testing::standin_eval_options(root_, prof);
    eo.only_case = "perf_fp32";
    return eo;
  }

  // The step log's lines from `from` on (the build steps, or with `runs` the launches too).
  std::vector<nlohmann::json> steps(std::size_t from = 0, bool runs = false) const {
    std::vector<nlohmann::json> out;
    std::ifstream in(log_);
    std::size_t n = 0;
    for (std::string line; std::getline(in, line);) {
      if (line.empty() || n++ < from) continue;
      auto j = nlohmann::json::parse(line);
      if (runs || j["step"] != "run") out.push_back(j);
    }
    return out;
  }
  std::size_t lines() const {
    std::ifstream in(log_);
    std::size_t n = 0;
    for (std::string line; std::getline(in, line);) n += !line.empty();
    return n;
  }
  static std::vector<std::string> names(const std::vector<nlohmann::json>& s) {
    std::vector<std::string> v;
    for (const auto& j : s) v.push_back(j["step"].get<std::string>());
    return v;
  }

  // The base's host in Stage I's search form: the core count read at run time (slot 0).
  std::string search_form() const {
    return replaced(host_, "const uint32_t coreNum = ascendcPlatform.GetCoreNumAiv();",
                    "const uint32_t coreNum = AOPT_TUNABLE_OR(0, ascendcPlatform.GetCoreNumAiv());");
  }
  ev::candidate variant(int cores, const std::string& kernel = {}) const {
    ev::candidate c(pkg_);
    c.replace("op_host/add_custom.cpp", search_form());
    if (!kernel.empty()) c.replace("op_kernel/add_custom.cpp", kernel);
    c.set_tunables(R"({"tunables": [[0, )" + std::to_string(cores) + "]]}");
    return c;
  }
  static std::uint32_t block_dim(const ev::eval_result& r) {
    return r.cases.empty() || !r.cases[0].block_dim ? 0u : *r.cases[0].block_dim;
  }

  fs::path root_, log_;
  std::shared_ptr<const ev::op_package> pkg_;
  std::string host_, kernel_;
};

TEST_F(CannPartial, TilingVariantsRunNoStepKernelChangesRunOnlyTheKernelStep) {
  ev::evaluator e(options(profile()));
  // The base: the whole msOpGen build and the package's install.
  const auto base = e.evaluate(ev::candidate(pkg_));
  ASSERT_EQ(base.status, "ok") << base.diagnostic << base.build.dump(2);
  EXPECT_EQ(names(steps()), (std::vector<std::string>{"build", "install"}));
  EXPECT_EQ(block_dim(base), 40u);  // the 910B4's vector cores

  // The first variant of the search form: its host changed, so the tiling library alone is
  // rebuilt (the kernel binaries are the base's, reused); no build.sh, no install.
  std::size_t mark = lines();
  const auto first = e.evaluate(variant(8));
  ASSERT_EQ(first.status, "ok") << first.diagnostic << first.build.dump(2);
  auto s = steps(mark);
  ASSERT_EQ(names(s), (std::vector<std::string>{"tiling"})) << nlohmann::json(s).dump();
  // (The stand-in's tiling step compiles on aopt's emulator, which may compile the kernel too:
  // its kernel build sees op_host/. That kernel is not installed: the step copies the library.)
  EXPECT_TRUE(s[0]["host_compiled"].get<bool>());
  EXPECT_TRUE(first.build["kernel_reused"].get<bool>());
  EXPECT_FALSE(first.build["host_reused"].get<bool>());
  EXPECT_EQ(block_dim(first), 8u);  // the tunable, read by the tiling at run time

  // Every other variant of that search form: no command at all (no compiler, no install), the
  // tiling reads its value at run time.
  for (int cores : {4, 20}) {
    mark = lines();
    const auto r = e.evaluate(variant(cores));
    ASSERT_EQ(r.status, "ok") << r.diagnostic;
    EXPECT_TRUE(steps(mark).empty()) << nlohmann::json(steps(mark)).dump();
    EXPECT_EQ(block_dim(r), static_cast<std::uint32_t>(cores));
    EXPECT_TRUE(r.build["host_reused"].get<bool>() && r.build["kernel_reused"].get<bool>()) << r.build.dump();
    std::cout << "variant " << cores << ": build " << r.build.value("seconds", 0.0) << " s, evaluation " << r.total_seconds << " s\n";
  }

  // A kernel change: the kernel step only, which compiles the kernel (and nothing of the host),
  // and the new kernel is what runs: z = x - y is not the base's z = x + y.
  mark = lines();
  const auto sub = e.evaluate(variant(4, replaced(kernel_, "AscendC::Add(zLocal, xLocal, yLocal, count);",
                                                  "AscendC::Sub(zLocal, xLocal, yLocal, count);")));
  s = steps(mark);
  ASSERT_EQ(names(s), (std::vector<std::string>{"kernel"})) << nlohmann::json(s).dump();
  EXPECT_TRUE(s[0]["kernel_compiled"].get<bool>());
  EXPECT_FALSE(s[0]["host_compiled"].get<bool>());
  EXPECT_EQ(sub.status, "precision_error") << sub.diagnostic;
  EXPECT_EQ(block_dim(sub), 4u);
  std::cout << "build seconds: full " << base.build.value("seconds", 0.0) << ", tiling step " << first.build.value("seconds", 0.0)
            << ", kernel step " << sub.build.value("seconds", 0.0) << "; evaluation seconds: full " << base.total_seconds << ", tiling step "
            << first.total_seconds << ", kernel step " << sub.total_seconds << "\n";

  // A kernel that does not compile: a compile_error naming the kernel step.
  mark = lines();
  const auto broken = e.evaluate(variant(4, replaced(kernel_, "AscendC::Add(zLocal, xLocal, yLocal, count);",
                                                     "AscendC::Add(zLocal, xLocal, yLocal, count) aopt_broken;")));
  EXPECT_EQ(broken.status, "compile_error");
  EXPECT_NE(broken.diagnostic.find("the build_kernel command exited"), std::string::npos) << broken.diagnostic;
  EXPECT_NE(broken.diagnostic.find("error"), std::string::npos) << broken.diagnostic;
  EXPECT_EQ(broken.build.value("stage", ""), "kernel");
  EXPECT_EQ(names(steps(mark)), (std::vector<std::string>{"kernel"}));

  // Back to a variant built before: its package is still there, nothing runs.
  mark = lines();
  const auto again = e.evaluate(variant(16));
  ASSERT_EQ(again.status, "ok") << again.diagnostic;
  EXPECT_TRUE(steps(mark).empty()) << nlohmann::json(steps(mark)).dump();
  EXPECT_EQ(block_dim(again), 16u);
}

// The store of a configured `[cann] build_store` outlives the process (an aoptd or aopt-node
// started again): a candidate built before runs no step, a tiling-only variant of a search form
// built before runs no step, and a kernel change builds partially in an earlier project.
TEST_F(CannPartial, AConfiguredBuildStoreOutlivesTheProcess) {
  const fs::path prof = profile();
  const fs::path store = root_ / "builds";
  aopt::common::write_text_file(prof, replaced(aopt::common::read_text_file(prof), "[cann]\n", "[cann]\nbuild_store = \"" + store.string() + "\"\n"));
  {
    ev::evaluator first(options(prof));
    ASSERT_EQ(first.evaluate(ev::candidate(pkg_)).status, "ok");
    ASSERT_EQ(first.evaluate(variant(8)).status, "ok");  // the search form's tiling step
  }  // the evaluator and its store are gone, as when the process ends
  ev::evaluator again(options(prof));
  std::size_t mark = lines();
  const auto same = again.evaluate(variant(8));
  ASSERT_EQ(same.status, "ok") << same.diagnostic;
  EXPECT_TRUE(steps(mark).empty()) << nlohmann::json(steps(mark)).dump();
  mark = lines();
  const auto other = again.evaluate(variant(20));
  ASSERT_EQ(other.status, "ok") << other.diagnostic;
  EXPECT_TRUE(steps(mark).empty()) << nlohmann::json(steps(mark)).dump();
  EXPECT_EQ(block_dim(other), 20u);
  mark = lines();
  const auto sub = again.evaluate(variant(4, replaced(kernel_, "AscendC::Add(zLocal, xLocal, yLocal, count);",
                                                      "AscendC::Sub(zLocal, xLocal, yLocal, count);")));
  EXPECT_EQ(names(steps(mark)), (std::vector<std::string>{"kernel"})) << nlohmann::json(steps(mark)).dump();
  EXPECT_EQ(sub.status, "precision_error") << sub.diagnostic;
}

TEST_F(CannPartial, WithoutPartialCommandsEveryChangedCandidateIsBuiltInFull) {
  ev::evaluator e(options(profile({"build_tiling", "build_kernel"})));
  ASSERT_EQ(e.evaluate(ev::candidate(pkg_)).status, "ok");
  const std::size_t mark = lines();
  const auto r = e.evaluate(variant(8));
  ASSERT_EQ(r.status, "ok") << r.diagnostic;
  EXPECT_EQ(names(steps(mark)), (std::vector<std::string>{"build", "install"}));
  EXPECT_EQ(block_dim(r), 8u);
  // A variant of a built search form still needs nothing.
  const std::size_t mark2 = lines();
  ASSERT_EQ(e.evaluate(variant(4)).status, "ok");
  EXPECT_TRUE(steps(mark2).empty());
}

// Pipelining: a builder (a backend of the same command profile, as a daemon's) builds the next
// candidate while a device measures the current one; the device then runs it without a step.
TEST_F(CannPartial, ABuilderBuildsWhileTheDeviceMeasures) {
  const fs::path prof = profile();
  ev::evaluator device(options(prof));
  ev::evaluator builder(options(prof));
  ASSERT_EQ(device.evaluate(variant(8)).status, "ok");  // base build + tiling step
  // The same sums; a constant of this process's own, so that the kernel is compiled for real
  // (no compiler cache has it) and its build lasts.
  const auto next = variant(8, replaced(kernel_, "AscendC::Add(zLocal, xLocal, yLocal, count);",
                                        "AscendC::Add(zLocal, yLocal, xLocal, count);") +
                                   "\nstatic const int aopt_partial_test_variant = " + std::to_string(::getpid()) + ";\n");
  const std::size_t mark = lines();
  std::atomic<bool> built{false};
  std::optional<ev::eval_result> prebuilt;
  std::thread b([&] {
    prebuilt = builder.prebuild(next);
    built = true;
  });
  // The device measures the current candidate until the builder is done.
  int measured = 0;
  while (!built.load() || measured == 0) {
    const auto r = device.evaluate(variant(8 + measured % 4));
    ASSERT_EQ(r.status, "ok") << r.diagnostic;
    ++measured;
  }
  b.join();
  EXPECT_FALSE(prebuilt.has_value()) << prebuilt->diagnostic;  // built, to be run
  const auto log = steps(mark, true);
  std::cout << measured << " measurements while the builder built; step log: " << nlohmann::json(log).dump() << "\n";
  // Each of the builder's steps (the kernel's, and the tiling's where its project's last build
  // had another host) against the device's launches.
  int builds = 0, overlapping = 0;
  for (const auto& b : log) {
    if (b["step"] == "run") continue;
    ++builds;
    for (const auto& j : log) {
      if (j["step"] == "run" && j["start"].get<double>() < b["end"].get<double>() && j["end"].get<double>() > b["start"].get<double>()) {
        ++overlapping;
        break;
      }
    }
  }
  EXPECT_GE(builds, 1) << "the builder ran no step";
  EXPECT_GE(overlapping, 1) << "no launch of the device ran during the builder's steps";
  // The device's evaluation of the built candidate runs no step.
  const std::size_t mark2 = lines();
  const auto r = device.evaluate(next);
  ASSERT_EQ(r.status, "ok") << r.diagnostic;
  EXPECT_TRUE(steps(mark2).empty()) << nlohmann::json(steps(mark2)).dump();
}

}  // namespace

namespace {

// The profile's keys of the partial builds: the example's defaults (the msOpGen CMake targets),
// a site's own, the store; a misspelt key names the known ones.
TEST(CannPartialProfile, TheCommandsOfThePartialBuildsAndTheStoreAreRead) {
  const auto example = ev::load_cann_profile(fs::path(AOPT_TEST_SOURCE_DIR) / "config/cann.example.toml");
  EXPECT_NE(example.build_tiling.line.find("--target cust_optiling"), std::string::npos) << example.build_tiling.line;
  EXPECT_NE(example.build_kernel.line.find("--target ascendc_bin_{soc_short}"), std::string::npos) << example.build_kernel.line;
  EXPECT_GT(example.build_kernel.timeout_s, 0);
  EXPECT_TRUE(example.build_store.empty());

  const fs::path dir = fs::temp_directory_path() / ("aopt-cann-partial-profile-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  aopt::common::write_text_file(dir / "site.toml", "[cann]\ntoolkit = \"/opt/cann\"\nproject_template = \"p\"\nbuild_store = \"builds\"\nmax_projects = 2\n"
                                                   "[commands]\nbuild = \"b\"\ninstall = \"i\"\nrun = \"r\"\nbuild_tiling = \"t {project}\"\nbuild_kernel = \"\"\n"
                                                   "[timeouts]\nbuild_tiling = 30\n");
  const auto p = ev::load_cann_profile(dir / "site.toml");
  EXPECT_EQ(p.build_tiling.line, "t {project}");
  EXPECT_DOUBLE_EQ(p.build_tiling.timeout_s, 30);
  EXPECT_TRUE(p.build_kernel.line.empty());  // such candidates are built in full
  EXPECT_EQ(p.build_store, dir / "builds");
  EXPECT_EQ(p.max_projects, 2u);
  aopt::common::write_text_file(dir / "bad.toml", "[cann]\ntoolkit = \"/opt/cann\"\nproject_template = \"p\"\n"
                                                  "[commands]\nbuild = \"b\"\ninstall = \"i\"\nrun = \"r\"\nbuild_kernels = \"x\"\n");
  try {
    ev::load_cann_profile(dir / "bad.toml");
    ADD_FAILURE() << "a misspelt command was accepted";
  } catch (const std::exception& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("bad.toml:8"), std::string::npos) << what;
    EXPECT_NE(what.find("build_kernel"), std::string::npos) << what;
  }
  fs::remove_all(dir);
}

}  // namespace
