// Runs the real `aopt eval` on the example operator and on misbehaving fixture packages: each
// failure must come back as a result with the right status while the evaluator stays healthy.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>

#include <nlohmann/json.hpp>

#include "aopt/common/subprocess.h"

namespace fs = std::filesystem;
using aopt::common::process_outcome;

namespace {

class AoptEval : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    cache_ = fs::temp_directory_path() / ("aopt-it-cache-" + std::to_string(::getpid()));
    fs::remove_all(cache_);
  }
  static void TearDownTestSuite() { fs::remove_all(cache_); }

  static process_outcome aopt(std::vector<std::string> args,
                              std::vector<std::pair<std::string, std::string>> env = {}) {
    aopt::common::process_request r;
    r.env = std::move(env);
    r.argv = {AOPT_BINARY, "eval"};
    r.argv.insert(r.argv.end(), args.begin(), args.end());
    r.limits.wall_timeout = std::chrono::seconds(240);
    r.limits.max_output_bytes = 4 << 20;
    return aopt::common::run_process(r);
  }
  static nlohmann::json eval_json(const std::string& pkg, std::vector<std::string> extra = {}, int want_exit = -1) {
    std::vector<std::string> args = {std::string(AOPT_TEST_SOURCE_DIR) + "/" + pkg, "--json", "--cache-dir", cache_.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto o = aopt(args);
    EXPECT_EQ(o.end, aopt::common::process_end::exited) << o.describe() << "\n" << o.err;
    if (want_exit >= 0) {
      EXPECT_EQ(o.exit_code, want_exit) << o.err;
    }
    try {
      return nlohmann::json::parse(o.out);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "aopt printed no JSON (" << e.what() << "): " << o.out << "\n" << o.err;
      return nlohmann::json::object();
    }
  }
  static fs::path cache_;
};
fs::path AoptEval::cache_;

}  // namespace

TEST_F(AoptEval, AddCustomIsCorrectAndTimed) {
  const auto r = eval_json("examples/ops/add_custom", {}, 0);
  ASSERT_EQ(r.value("status", ""), "ok") << r.dump(2);
  EXPECT_EQ(r["backend"], "sim");
  EXPECT_EQ(r["profile"], "910b4");
  EXPECT_TRUE(r["simulated"].get<bool>());
  EXPECT_GT(r["latency_us"].get<double>(), 0.0);
  EXPECT_NE(r["latency_label"].get<std::string>().find("simulated"), std::string::npos);
  ASSERT_FALSE(r["cases"].empty());
  for (const auto& c : r["cases"]) {
    EXPECT_EQ(c["status"], "ok") << c.dump(2);
    EXPECT_EQ(c["mismatch_ratio"].get<double>(), 0.0);
  }
  const auto& timed = r["cases"][0];
  EXPECT_TRUE(timed["timed"].get<bool>());
  EXPECT_GT(timed["block_dim"].get<int>(), 0);
  EXPECT_TRUE(timed["profile"].contains("aiv_vec_ratio")) << timed["profile"].dump();
  ASSERT_TRUE(r["bound"].is_object()) << r.dump(2);
  EXPECT_GT(r["bound"]["bound_us"].get<double>(), 0.0);
  EXPECT_GT(r["bound"]["headroom"].get<double>(), 0.0);
}

TEST_F(AoptEval, SameCandidateIsNeverEvaluatedTwice) {
  const auto first = eval_json("tests/integration/packages/cpp_reference", {}, 0);
  ASSERT_EQ(first.value("status", ""), "ok") << first.dump(2);
  const auto second = eval_json("tests/integration/packages/cpp_reference", {}, 0);
  EXPECT_TRUE(second["cached"].get<bool>());
  EXPECT_EQ(second["key"], first["key"]);
  EXPECT_EQ(second["latency_us"], first["latency_us"]);
  const auto other_seed = eval_json("tests/integration/packages/cpp_reference", {"--seed", "7"}, 0);
  EXPECT_FALSE(other_seed["cached"].get<bool>());
  EXPECT_NE(other_seed["key"], first["key"]);
}

// A private-format column (session 33: the tree's conv3d backprop operators declare NDC1HWC0 and
// FRACTAL_Z_3D): the harness gives the tiling origin NCDHW / storage NDC1HWC0 descriptors and
// shapes (its tiling refuses anything else), lays x out with zero channel padding, and brings y
// back to the plain layout, where the C++ reference (y = 2 x) checks it. Before: no column
// matched a rank-5 tensor, the descriptors stayed ND and the tiling failed.
TEST_F(AoptEval, PrivateFormatTensorsAreLaidOutAndGatheredBack) {
  const auto r = eval_json("tests/integration/packages/private_scale", {"--no-cache"}, 0);
  ASSERT_EQ(r.value("status", ""), "ok") << r.dump(2);
  EXPECT_EQ(r["cases"][0]["mismatch_ratio"].get<double>(), 0.0) << r.dump(2);
}

TEST_F(AoptEval, EndlessLoopTimesOut) {
  const auto r = eval_json("tests/integration/packages/loop_forever", {"--timeout", "3", "--no-cache"}, 1);
  EXPECT_EQ(r.value("status", ""), "timeout") << r.dump(2);
}

TEST_F(AoptEval, SegfaultIsARuntimeError) {
  const auto r = eval_json("tests/integration/packages/segfault", {"--no-cache"}, 1);
  EXPECT_EQ(r.value("status", ""), "runtime_error") << r.dump(2);
  EXPECT_NE(r.value("diagnostic", "").find("SIGSEGV"), std::string::npos) << r.dump(2);
}

TEST_F(AoptEval, RunawayAllocationIsAResourceError) {
  const auto r = eval_json("tests/integration/packages/alloc_forever", {"--memory-limit", "2048", "--no-cache"}, 1);
  EXPECT_EQ(r.value("status", ""), "resource_error") << r.dump(2);
}

TEST_F(AoptEval, CompilerMessageReachesTheResult) {
  const auto r = eval_json("tests/integration/packages/no_compile", {"--no-cache"}, 1);
  EXPECT_EQ(r.value("status", ""), "compile_error") << r.dump(2);
  EXPECT_NE(r.value("diagnostic", "").find("AopttUndeclaredThing"), std::string::npos) << r.dump(2);
  EXPECT_NE(r.value("diagnostic", "").find("add_custom.cpp:7"), std::string::npos) << r.dump(2);
}

TEST_F(AoptEval, WrongResultsAreAPrecisionError) {
  const auto r = eval_json("tests/integration/packages/wrong_results", {"--no-cache"}, 1);
  EXPECT_EQ(r.value("status", ""), "precision_error") << r.dump(2);
  const auto& c = r["cases"][0];
  EXPECT_GT(c["mismatch_ratio"].get<double>(), 0.5);
  EXPECT_GT(c["max_abs_err"].get<double>(), 0.1);
}

TEST_F(AoptEval, HumanOutputLabelsSimulatedLatency) {
  const auto o = aopt({std::string(AOPT_TEST_SOURCE_DIR) + "/tests/integration/packages/cpp_reference", "--cache-dir", cache_.string()});
  ASSERT_TRUE(o.ok()) << o.err;
  EXPECT_NE(o.out.find("status: ok"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("simulated latency"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("(sim, profile 910b4)"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("headroom"), std::string::npos) << o.out;
}

// A package of ours whose msOpST file has a fuzz case (tests/st/add_fuzz.py draws the row count
// and both operands with numpy): the real binary runs the function, and the two calls become two
// evaluated cases with the drawn shapes; a second load draws the same data (same key: cached).
TEST_F(AoptEval, MsOpStFuzzCasesAreRunSeeded) {
  const std::string pkg = std::string(AOPT_TEST_SOURCE_DIR) + "/tests/integration/packages/fuzz_cases";
  const auto first = aopt({pkg, "--json", "--cache-dir", cache_.string()});
  if (first.err.find("has no numpy") != std::string::npos || first.err.find("cannot run the Python interpreter") != std::string::npos) {
    GTEST_SKIP() << "no python3 with numpy (install python3-numpy: scripts/install-deps.sh): " << first.err;
  }
  ASSERT_TRUE(first.ok()) << first.describe() << "\n" << first.err;
  const auto r = nlohmann::json::parse(first.out);
  EXPECT_EQ(r.value("status", ""), "ok") << r.dump(2);
  ASSERT_EQ(r["cases"].size(), 3u) << r.dump(2);
  EXPECT_EQ(r["cases"][0]["name"], "Test_AddCustom_fixed");
  EXPECT_EQ(r["cases"][0]["outputs"][0]["elements"], 256);
  std::vector<int> elements;
  for (int k : {1, 2}) {
    const auto& c = r["cases"][k];
    EXPECT_EQ(c["name"], "Test_AddCustom_fuzz_fuzz" + std::to_string(k));
    EXPECT_EQ(c.value("status", ""), "ok") << c.dump(2);
    elements.push_back(c["outputs"][0]["elements"].get<int>());
    EXPECT_EQ(elements.back() % 48, 0) << "rows x 48 (fuzz_shapes.py)";
    EXPECT_GE(elements.back(), 3 * 48);
    EXPECT_LE(elements.back(), 8 * 48);
  }
  EXPECT_NE(elements[0], elements[1]) << "two calls of one seeded generator (seed 2: 3 and 7 rows)";
  EXPECT_NE(r["warnings"].dump().find("2 cases from add_fuzz.py:random_rows (numpy seed 2)"), std::string::npos) << r["warnings"].dump();
  const auto again = eval_json("tests/integration/packages/fuzz_cases", {}, 0);
  EXPECT_EQ(again.value("key", ""), r.value("key", "")) << "the same inputs again";
  EXPECT_TRUE(again.value("cached", false));
}

TEST_F(AoptEval, BadSpecIsAClearErrorNotACrash) {
  const auto o = aopt({std::string(AOPT_TEST_SOURCE_DIR) + "/tests/integration/packages", "--no-cache"});
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("aopt: error"), std::string::npos) << o.err;
}

TEST_F(AoptEval, EveryCoreAllocatingAtOnceIsAResourceError) {
  // All emulated cores hoard memory at the same time: whichever thread fails first, and however
  // (bad_alloc in the kernel, in an error handler, a core thread that cannot start), the result
  // is resource_error and aopt itself ends normally with its JSON.
  const auto r = eval_json("tests/integration/packages/alloc_all_cores", {"--memory-limit", "2048", "--no-cache"}, 1);
  EXPECT_EQ(r.value("status", ""), "resource_error") << r.dump(2);
  EXPECT_NE(r.value("diagnostic", "").find("memory"), std::string::npos) << r.dump(2);
  // The evaluator is unharmed: the next evaluation works.
  const auto ok = eval_json("tests/integration/packages/cpp_reference", {}, 0);
  EXPECT_EQ(ok.value("status", ""), "ok") << ok.dump(2);
}

TEST_F(AoptEval, TimeoutsAreNotCached) {
  const auto first = eval_json("tests/integration/packages/loop_forever", {"--timeout", "2"}, 1);
  EXPECT_EQ(first.value("status", ""), "timeout") << first.dump(2);
  const auto second = eval_json("tests/integration/packages/loop_forever", {"--timeout", "2"}, 1);
  EXPECT_EQ(second.value("status", ""), "timeout") << second.dump(2);
  EXPECT_FALSE(second.value("cached", true)) << "a timeout must be evaluated again, not served from the cache";
}

// Build artifacts are reused by content: a candidate that changes only the tiling (host) side
// reuses the kernel library, one that changes only the kernel reuses the host executable, and
// an identical one compiles nothing; each still runs and is checked.
TEST_F(AoptEval, BuildArtifactsAreReusedPerSide) {
  const fs::path tmp = cache_ / "artifact-test";
  const fs::path pkg = tmp / "add_custom";
  fs::create_directories(tmp);
  fs::copy(fs::path(AOPT_TEST_SOURCE_DIR) / "examples/ops/add_custom", pkg, fs::copy_options::recursive);
  const std::vector<std::pair<std::string, std::string>> env = {{"AOPT_ARTIFACT_CACHE", (tmp / "artifacts").string()}};
  auto eval = [&] {
    const auto o = aopt({pkg.string(), "--json", "--no-cache"}, env);
    EXPECT_EQ(o.exit_code, 0) << o.err;
    const auto r = nlohmann::json::parse(o.out);
    EXPECT_EQ(r.value("status", ""), "ok") << r.dump(2);
    return r["build"];
  };
  auto append = [&](const std::string& dir, const std::string& text) {
    for (const auto& f : fs::directory_iterator(pkg / dir)) {
      if (f.path().extension() != ".cpp") continue;
      std::ofstream(f.path(), std::ios::app) << text;
      return;
    }
    FAIL() << "no .cpp in " << dir;
  };
  const auto first = eval();
  EXPECT_FALSE(first["host_reused"].get<bool>());
  EXPECT_FALSE(first["kernel_reused"].get<bool>());
  // The kernels compiled on the PCH: GCC rejected it while the compile line defined a macro the
  // PCH mentions (AOPT_OP_TYPE), and every kernel column compiled from scratch, 3x slower.
  EXPECT_FALSE(first.contains("kernel_pch_rejected")) << first.dump();
  const auto same = eval();
  EXPECT_TRUE(same["host_reused"].get<bool>()) << same.dump();
  EXPECT_TRUE(same["kernel_reused"].get<bool>()) << same.dump();
  append("op_host", "\n// a tiling-side change\n");
  const auto host_changed = eval();
  EXPECT_FALSE(host_changed["host_reused"].get<bool>()) << host_changed.dump();
  EXPECT_TRUE(host_changed["kernel_reused"].get<bool>()) << host_changed.dump();
  append("op_kernel", "\n// a kernel-side change\n");
  const auto kernel_changed = eval();
  EXPECT_TRUE(kernel_changed["host_reused"].get<bool>()) << kernel_changed.dump();
  EXPECT_FALSE(kernel_changed["kernel_reused"].get<bool>()) << kernel_changed.dump();
  // Disabled: nothing reused.
  const auto o = aopt({pkg.string(), "--json", "--no-cache"}, {{"AOPT_ARTIFACT_CACHE", "0"}});
  const auto off = nlohmann::json::parse(o.out)["build"];
  EXPECT_FALSE(off["host_reused"].get<bool>());
  EXPECT_FALSE(off["kernel_reused"].get<bool>());
}

// A kernel named like a C library function is compiled through a generated wrapper (the name is
// renamed for the host build). The wrapper's bytes must not depend on where the build runs: the
// same package built from another directory reuses the kernel library (and ccache's direct mode
// hits). Before the fix the wrapper included the kernel by its absolute build path, so every
// build of such an operator (sin, exp, tanh, abs ... in cann-ops) compiled its kernel again.
TEST_F(AoptEval, AWrappedKernelIsReusedFromAnotherDirectory) {
  const fs::path tmp = cache_ / "wrapped-kernel-test";
  const std::vector<std::pair<std::string, std::string>> env = {{"AOPT_ARTIFACT_CACHE", (tmp / "artifacts").string()}};
  // add_custom renamed: op type Fmax, kernel fmax (as cann-ops' Sin has the kernel sin).
  auto copy_as_fmax = [&](const std::string& where) {
    const fs::path pkg = tmp / where / "fmax_op";
    fs::create_directories(pkg.parent_path());
    fs::copy(fs::path(AOPT_TEST_SOURCE_DIR) / "examples/ops/add_custom", pkg, fs::copy_options::recursive);
    const std::regex op_type("AddCustom(?!TilingData)");
    for (const fs::path& f : {pkg / "aopt.json", pkg / "op_kernel/add_custom.cpp", pkg / "op_host/add_custom.cpp",
                              pkg / "op_host/add_custom_tiling.h"}) {
      std::ifstream in(f);
      std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      text = std::regex_replace(text, op_type, "Fmax");
      for (const auto& [from, to] : {std::pair<std::string, std::string>{"\"kernel\": \"add_custom\"", "\"kernel\": \"fmax\""},
                                     {"void add_custom(", "void fmax("}}) {
        if (const auto at = text.find(from); at != std::string::npos) text.replace(at, from.size(), to);
      }
      std::ofstream(f, std::ios::trunc) << text;
    }
    return pkg;
  };
  auto eval = [&](const fs::path& pkg) {
    const auto o = aopt({pkg.string(), "--json", "--no-cache"}, env);
    EXPECT_EQ(o.exit_code, 0) << o.err;
    const auto r = nlohmann::json::parse(o.out);
    EXPECT_EQ(r.value("status", ""), "ok") << r.dump(2);
    return r["build"];
  };
  const auto first = eval(copy_as_fmax("a"));
  EXPECT_FALSE(first["kernel_reused"].get<bool>()) << first.dump();
  const auto second = eval(copy_as_fmax("elsewhere/b"));
  EXPECT_TRUE(second["kernel_reused"].get<bool>()) << "the wrapper's bytes depend on the build directory: " << second.dump();
}
