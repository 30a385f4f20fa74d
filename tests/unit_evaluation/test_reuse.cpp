// The evaluator's reuse across evaluations, with a fake backend that counts its runs: reference
// outputs computed once per (baseline, case, seed), inputs generated once, timeouts never cached.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <vector>

#include "aopt/common/error.h"
#include "aopt/common/fs.h"
#include "aopt/common/mapped_file.h"
#include "aopt/evaluation/evaluator.h"
#include "aopt/evaluation/package.h"

namespace ev = aopt::evaluation;
namespace fs = std::filesystem;

namespace {

// Copies input x to output z ("identity" operator); or reports a timeout while `timeouts` > 0.
class fake_backend final : public ev::backend {
 public:
  int builds = 0, runs = 0, timeouts = 0;
  std::string name() const override { return "fake"; }
  std::string profile_name() const override { return "p"; }
  std::string fingerprint() const override { return "f1"; }
  ev::build_result build(const ev::candidate&, const fs::path& dir, const std::vector<const ev::case_spec*>&) override {
    ++builds;
    ev::build_result b;
    b.ok = true;
    b.dir = dir;
    b.signature = {{"op_type", "AddCustom"},
                   {"kernel", "add_custom"},
                   {"inputs", {{{"name", "x"}, {"dtypes", {"float16"}}}, {{"name", "y"}, {"dtypes", {"float16"}}}}},
                   {"outputs", {{{"name", "z"}, {"dtypes", {"float16"}}}}}};
    b.kernels[0] = dir / "kernel_0.so";
    return b;
  }
  ev::run_result run(const ev::build_result&, const ev::run_spec& spec, const fs::path& run_dir,
                     const aopt::common::sandbox_limits&) override {
    ++runs;
    ev::run_result r;
    if (timeouts > 0) {
      --timeouts;
      r.status = "timeout";
      r.diagnostic = "fake timeout";
      return r;
    }
    r.status = "ok";
    const auto& x = spec.inputs.at(0).tensors.at(0);
    const aopt::common::mapped_file in(x.file);
    ev::tensor_file z{"z", ev::dtype::float16, x.shape, run_dir / "out_z.bin"};
    aopt::common::write_file_bytes(z.file, in.data(), in.size());
    r.outputs.push_back(z);
    return r;
  }
  std::optional<ev::roofline_estimate> roofline(double, double, double) const override { return std::nullopt; }
};

class Reuse : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("aopt-reuse-test-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    pkg_ = std::make_shared<const ev::op_package>(
        ev::load_package(fs::path(AOPT_TEST_SOURCE_DIR) / "tests/integration/packages/alloc_forever"));
  }
  void TearDown() override { fs::remove_all(root_); }
  ev::evaluator make(fake_backend*& fb) {
    ev::eval_options o;
    o.backend = "fake";
    o.cache_dir = root_ / "cache";
    o.work_root = root_ / "work";
    auto be = std::make_unique<fake_backend>();
    fb = be.get();
    return ev::evaluator(o, std::move(be));
  }
  fs::path root_;
  std::shared_ptr<const ev::op_package> pkg_;
};

ev::candidate variant(const std::shared_ptr<const ev::op_package>& pkg, int i) {
  ev::candidate c(pkg);
  const std::string k = pkg->kernel_source;
  c.replace(k, aopt::common::read_text_file(pkg->dir / k) + "\n// variant " + std::to_string(i) + "\n");
  return c;
}

}  // namespace

TEST_F(Reuse, ReferenceOutputsAreComputedOncePerBaselineCaseAndSeed) {
  fake_backend* fb = nullptr;
  {
    auto e = make(fb);
    const auto r = e.evaluate(variant(pkg_, 1));
    ASSERT_EQ(r.status, "ok") << r.to_json().dump(2);
    EXPECT_EQ(fb->runs, 2);    // the candidate and the baseline
    EXPECT_EQ(fb->builds, 2);
  }
  {
    // A new process (new evaluator), a new candidate: only the candidate runs and builds.
    auto e = make(fb);
    const auto r = e.evaluate(variant(pkg_, 2));
    ASSERT_EQ(r.status, "ok") << r.to_json().dump(2);
    EXPECT_FALSE(r.cached);
    EXPECT_EQ(fb->runs, 1);
    EXPECT_EQ(fb->builds, 1);
    EXPECT_EQ(r.cases.at(0).mismatch_ratio, 0.0);
  }
  EXPECT_TRUE(fs::is_directory(root_ / "cache" / "inputs"));
  EXPECT_TRUE(fs::is_directory(root_ / "cache" / "references"));
}

// The stores of inputs and references are pruned least recently used first
// (prune_least_recently_used): taking a stored input or reference marks it as used.
TEST_F(Reuse, ATakenInputOrReferenceIsMarkedRecentlyUsed) {
  fake_backend* fb = nullptr;
  {
    auto e = make(fb);
    ASSERT_EQ(e.evaluate(variant(pkg_, 1)).status, "ok");
  }
  const auto long_ago = fs::file_time_type::clock::now() - std::chrono::hours(48);
  std::vector<fs::path> entries;
  for (const char* store : {"inputs", "references"}) {
    for (const auto& shard : fs::directory_iterator(root_ / "cache" / store)) {
      for (const auto& entry : fs::directory_iterator(shard.path())) {
        fs::last_write_time(entry.path(), long_ago);
        entries.push_back(entry.path());
      }
    }
  }
  ASSERT_GE(entries.size(), 2u);
  {
    auto e = make(fb);
    ASSERT_EQ(e.evaluate(variant(pkg_, 2)).status, "ok");
    EXPECT_EQ(fb->runs, 1) << "the reference was taken, not computed";
  }
  const auto recent = fs::file_time_type::clock::now() - std::chrono::hours(1);
  for (const auto& p : entries) EXPECT_GT(fs::last_write_time(p), recent) << p << " was taken but not marked";
}

TEST_F(Reuse, EvaluatingTheBaselineStoresItsOutputsAsTheReference) {
  fake_backend* fb = nullptr;
  {
    auto e = make(fb);
    const auto r = e.evaluate(ev::candidate(pkg_));
    ASSERT_EQ(r.status, "ok") << r.to_json().dump(2);
    EXPECT_EQ(fb->runs, 1);
  }
  auto e = make(fb);
  const auto r = e.evaluate(variant(pkg_, 3));
  ASSERT_EQ(r.status, "ok") << r.to_json().dump(2);
  EXPECT_EQ(fb->runs, 1);
}

TEST_F(Reuse, WithoutArtifactReuseTheBaselineRunsEveryTime) {
  fake_backend* fb = nullptr;
  ev::eval_options o;
  o.backend = "fake";
  o.cache_dir = root_ / "cache";
  o.work_root = root_ / "work";
  o.reuse_artifacts = false;
  for (int i = 0; i < 2; ++i) {
    auto be = std::make_unique<fake_backend>();
    fb = be.get();
    ev::evaluator e(o, std::move(be));
    const auto r = e.evaluate(variant(pkg_, 10 + i));
    ASSERT_EQ(r.status, "ok") << r.to_json().dump(2);
    EXPECT_EQ(fb->runs, 2);
  }
  EXPECT_FALSE(fs::exists(root_ / "cache" / "inputs"));
}

TEST_F(Reuse, TimeoutsAreNotCached) {
  fake_backend* fb = nullptr;
  auto e = make(fb);
  fb->timeouts = 1;
  const auto cand = variant(pkg_, 4);
  const auto first = e.evaluate(cand);
  EXPECT_EQ(first.status, "timeout");
  EXPECT_FALSE(first.cached);
  const auto second = e.evaluate(cand);  // machine load gone: evaluated again, now ok
  EXPECT_FALSE(second.cached);
  EXPECT_EQ(second.status, "ok") << second.to_json().dump(2);
  const auto third = e.evaluate(cand);   // ok results are cached as before
  EXPECT_TRUE(third.cached);
  EXPECT_EQ(third.status, "ok");
}

TEST_F(Reuse, AKernelChangingItsInputIsCaughtNeverCachedAndTheInputRegenerated) {
  // A backend whose "kernel" appends to the input file it was given.
  class writer final : public ev::backend {
   public:
    fake_backend inner;
    std::string name() const override { return "fake"; }
    std::string profile_name() const override { return "p"; }
    std::string fingerprint() const override { return "f1"; }
    ev::build_result build(const ev::candidate& c, const fs::path& d, const std::vector<const ev::case_spec*>& cs) override {
      return inner.build(c, d, cs);
    }
    ev::run_result run(const ev::build_result& b, const ev::run_spec& s, const fs::path& d,
                       const aopt::common::sandbox_limits& l) override {
      auto r = inner.run(b, s, d, l);
      if (inner.runs == 1) {
        ::chmod(s.inputs.at(1).tensors.at(0).file.c_str(), 0644);
        std::ofstream(s.inputs.at(1).tensors.at(0).file, std::ios::app) << "x";
      }
      return r;
    }
    std::optional<ev::roofline_estimate> roofline(double, double, double) const override { return std::nullopt; }
  };
  ev::eval_options o;
  o.backend = "fake";
  o.cache_dir = root_ / "cache";
  o.work_root = root_ / "work";
  ev::evaluator e(o, std::make_unique<writer>());
  const auto r = e.evaluate(variant(pkg_, 5));
  EXPECT_EQ(r.status, "precision_error") << r.to_json().dump(2);
  EXPECT_NE(r.diagnostic.find("changed during the run"), std::string::npos) << r.diagnostic;
  // The next evaluation finds the shared input changed (its size) and writes a clean one.
  fake_backend* fb = nullptr;
  auto e2 = make(fb);
  const auto r2 = e2.evaluate(variant(pkg_, 6));
  EXPECT_EQ(r2.status, "ok") << r2.to_json().dump(2);
  // The tamper verdict was not cached: the same candidate is evaluated again (and passes here).
  const auto again = e2.evaluate(variant(pkg_, 5));
  EXPECT_FALSE(again.cached);
  EXPECT_EQ(again.status, "ok") << again.to_json().dump(2);
}

// A run the sandbox could not start because a shared input file was gone at that moment (seen in
// CI: three evaluator nodes on one cache, "sandbox setup failed (bind mount of .../inputs/..):
// No such file or directory") is the evaluator's fault: the case runs once more with its inputs
// provided again, and the candidate is judged on that run.
TEST_F(Reuse, ARunWhoseInputVanishedBeforeItStartedRunsOnceMoreWithItsInputsProvidedAgain) {
  class vanishing final : public ev::backend {
   public:
    fake_backend inner;
    int vanish = 1;
    std::string name() const override { return "fake"; }
    std::string profile_name() const override { return "p"; }
    std::string fingerprint() const override { return "f1"; }
    ev::build_result build(const ev::candidate& c, const fs::path& dir, const std::vector<const ev::case_spec*>& cs) override {
      return inner.build(c, dir, cs);
    }
    ev::run_result run(const ev::build_result& b, const ev::run_spec& spec, const fs::path& run_dir,
                       const aopt::common::sandbox_limits& l) override {
      const auto& x = spec.inputs.at(0).tensors.at(0).file;
      if (vanish > 0) {
        --vanish;
        ++inner.runs;
        fs::remove(x);
        throw aopt::error(aopt::ec::subprocess_error, "cannot start host: sandbox setup failed (bind mount of " +
                                                          x.string() + "): No such file or directory");
      }
      if (!fs::exists(x)) throw aopt::error(aopt::ec::subprocess_error, "input " + x.string() + " missing");
      return inner.run(b, spec, run_dir, l);
    }
    std::optional<ev::roofline_estimate> roofline(double, double, double) const override { return std::nullopt; }
  };
  ev::eval_options o;
  o.backend = "fake";
  o.cache_dir = root_ / "cache";
  o.work_root = root_ / "work";
  auto be = std::make_unique<vanishing>();
  auto* v = be.get();
  ev::evaluator e(o, std::move(be));
  const auto r = e.evaluate(ev::candidate(pkg_));
  ASSERT_EQ(r.status, "ok") << r.to_json().dump(2);
  EXPECT_EQ(v->vanish, 0);
  EXPECT_EQ(v->inner.runs, 2) << "the vanished run and its second start";
}
