// Builds that reuse what did not change (issue 35 item 2): a host-only candidate compiles only
// the host sources that changed (the others' objects are stored by content and linked again),
// a kernel-only one no host source. Seen from outside: `aopt eval` with a compiler that logs the
// translation unit of each compile it runs (AOPT_CXX, no ccache, no sandbox, so that the log can
// be written), on examples/ops/mul_v3 (three host sources); and two evaluators of one process
// (two slots) that need the same build at once: one compiles, the other takes its artifact.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "aopt/common/subprocess.h"
#include "aopt/evaluation/evaluator.h"
#include "aopt/evaluation/package.h"

namespace fs = std::filesystem;

namespace {

class BuildReuse : public ::testing::Test {
 protected:
  void SetUp() override {
    tmp_ = fs::temp_directory_path() / ("aopt-build-reuse-" + std::to_string(::getpid()));
    fs::remove_all(tmp_);
    fs::create_directories(tmp_);
    pkg_ = tmp_ / "mul_v3";
    fs::copy(fs::path(AOPT_TEST_SOURCE_DIR) / "examples/ops/mul_v3", pkg_, fs::copy_options::recursive);
    log_ = tmp_ / "compiles.log";
    wrapper_ = tmp_ / "cxx";
    // Logs the file after -c (a link has none), then runs the compiler the build was made with.
    std::ofstream(wrapper_) << "#!/bin/sh\nprev=\nfor a in \"$@\"; do [ \"$prev\" = -c ] && echo \"$a\" >> '" << log_.string()
                            << "'; prev=\"$a\"; done\nexec '" << AOPT_TEST_CXX << "' \"$@\"\n";
    fs::permissions(wrapper_, fs::perms::owner_all);
  }
  void TearDown() override { fs::remove_all(tmp_); }

  // One evaluation; returns the translation units it compiled (file names).
  std::vector<std::string> eval() {
    fs::remove(log_);
    aopt::common::process_request r;
    r.env = {{"AOPT_CXX", wrapper_.string()}, {"AOPT_CCACHE", "0"}, {"AOPT_ARTIFACT_CACHE", (tmp_ / "artifacts").string()}};
    r.argv = {AOPT_BINARY, "eval", pkg_.string(), "--json", "--no-cache", "--no-sandbox"};
    r.limits.wall_timeout = std::chrono::seconds(240);
    r.limits.max_output_bytes = 4 << 20;
    const auto o = aopt::common::run_process(r);
    EXPECT_EQ(o.exit_code, 0) << o.describe() << "\n" << o.err;
    const auto j = nlohmann::json::parse(o.out, nullptr, false);
    EXPECT_EQ(j.is_object() ? j.value("status", "") : "", "ok") << o.out;
    return logged();
  }
  std::vector<std::string> logged() const {
    std::vector<std::string> units;
    std::ifstream in(log_);
    for (std::string l; std::getline(in, l);) units.push_back(fs::path(l).filename().string());
    std::sort(units.begin(), units.end());
    return units;
  }
  void append(const std::string& rel, const std::string& text) { std::ofstream(pkg_ / rel, std::ios::app) << text; }

  fs::path tmp_, pkg_, log_, wrapper_;
};

std::string joined(const std::vector<std::string>& v) {
  std::ostringstream s;
  for (const auto& x : v) s << x << " ";
  return s.str();
}

}  // namespace

TEST_F(BuildReuse, AHostChangeCompilesOnlyTheHostSourceThatChanged) {
  const auto first = eval();
  for (const char* tu : {"op_def.cpp", "op_infershape.cpp", "op_tiling.cpp"}) {
    EXPECT_EQ(std::count(first.begin(), first.end(), tu), 1) << tu << " in " << joined(first);
  }
  EXPECT_EQ(eval(), std::vector<std::string>{}) << "the same sources compile nothing";
  append("op_host/op_tiling.cpp", "\n// a tiling-side change\n");
  EXPECT_EQ(eval(), std::vector<std::string>{"op_tiling.cpp"}) << "only the changed host source compiles; the kernel is reused";
  // A header every side sees changes every object's key: each host source compiles again.
  append("op_host/op_tiling.cpp", "\n// another\n");
  std::ofstream(pkg_ / "op_host" / "aopt_unused_header.h") << "// a new header\n";
  const auto header = eval();
  for (const char* tu : {"op_def.cpp", "op_infershape.cpp", "op_tiling.cpp"}) {
    EXPECT_EQ(std::count(header.begin(), header.end(), tu), 1) << tu << " in " << joined(header);
  }
}

TEST_F(BuildReuse, AKernelChangeCompilesNoHostSource) {
  eval();
  std::string kernel;
  for (const auto& f : fs::directory_iterator(pkg_ / "op_kernel")) {
    if (f.path().extension() == ".cpp") kernel = f.path().filename().string();
  }
  ASSERT_FALSE(kernel.empty());
  append("op_kernel/" + kernel, "\n// a kernel-side change\n");
  const auto units = eval();
  EXPECT_FALSE(units.empty());
  for (const auto& u : units) EXPECT_EQ(u.find("op_"), std::string::npos) << "a host source compiled: " << joined(units);
}

// Two slots of one process (two evaluators, as `aopt optimize -j 2` has) evaluating the same
// candidate at the same time: each translation unit is compiled once, not once per slot.
TEST_F(BuildReuse, TwoSlotsNeedingTheSameBuildAtOnceCompileItOnce) {
  // This process's toolchain and artifact store (read once, at the first evaluation).
  ::setenv("AOPT_CXX", wrapper_.c_str(), 1);
  ::setenv("AOPT_CCACHE", "0", 1);
  ::setenv("AOPT_ARTIFACT_CACHE", (tmp_ / "artifacts").c_str(), 1);
  namespace ev = aopt::evaluation;
  ev::eval_options eo;
  eo.use_cache = false;
  eo.sandbox.isolate = false;
  eo.cache_dir = tmp_ / "cache";
  eo.work_root = tmp_ / "work";
  const auto pkg = std::make_shared<const ev::op_package>(ev::load_package(pkg_.string()));
  ev::evaluator a(eo), b(eo);
  ev::eval_result ra, rb;
  std::thread ta([&] { ra = a.evaluate(ev::candidate(pkg)); });
  std::thread tb([&] { rb = b.evaluate(ev::candidate(pkg)); });
  ta.join();
  tb.join();
  EXPECT_EQ(ra.status, "ok") << ra.diagnostic;
  EXPECT_EQ(rb.status, "ok") << rb.diagnostic;
  const auto units = logged();
  for (const char* tu : {"op_def.cpp", "op_infershape.cpp", "op_tiling.cpp"}) {
    EXPECT_EQ(std::count(units.begin(), units.end(), tu), 1) << tu << " in " << joined(units);
  }
  // The kernel once per dtype column the cases need (float16, float32); mul_v3's kernel is
  // templated on its tiling key, so its translation unit is the generated kernel_entry.cpp.
  EXPECT_EQ(std::count(units.begin(), units.end(), "kernel_entry.cpp"), 2) << joined(units);
  EXPECT_EQ(units.size(), 5u) << joined(units);
}

// Compilers at once are bounded (AOPT_BUILD_JOBS): an operator's host sources and its kernel
// do not each start a compiler at the same moment. The wrapper logs "+" when a compile starts
// and "-" when it ends; with a bound of 1 no two overlap (mul_v3 has three host sources and a
// kernel: unbounded, they start together).
TEST_F(BuildReuse, CompilersAtOnceAreBoundedByBuildJobs) {
  const fs::path marks = tmp_ / "marks.log";
  std::ofstream(wrapper_) << "#!/bin/sh\necho + >> '" << marks.string() << "'\nsleep 0.3\n'" << AOPT_TEST_CXX
                          << "' \"$@\"\nrc=$?\necho - >> '" << marks.string() << "'\nexit $rc\n";
  aopt::common::process_request r;
  r.env = {{"AOPT_CXX", wrapper_.string()}, {"AOPT_CCACHE", "0"}, {"AOPT_ARTIFACT_CACHE", "0"}, {"AOPT_BUILD_JOBS", "1"}};
  r.argv = {AOPT_BINARY, "eval", pkg_.string(), "--json", "--no-cache", "--no-sandbox"};
  r.limits.wall_timeout = std::chrono::seconds(300);
  r.limits.max_output_bytes = 4 << 20;
  const auto o = aopt::common::run_process(r);
  ASSERT_EQ(o.exit_code, 0) << o.describe() << "\n" << o.err;
  int running = 0, most = 0, compiles = 0;
  std::ifstream in(marks);
  for (std::string l; std::getline(in, l);) {
    running += l == "+" ? 1 : -1;
    compiles += l == "+" ? 1 : 0;
    most = std::max(most, running);
  }
  EXPECT_GE(compiles, 4) << "three host sources, a kernel and the links";
  EXPECT_EQ(most, 1) << "compilers overlapped with AOPT_BUILD_JOBS=1";
}
