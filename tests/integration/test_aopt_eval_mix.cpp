// Runs the real `aopt eval` on a mixed AIC/AIV kernel (issue 38): tests/integration/packages/
// matmul_relu_mix declares KERNEL_TYPE_MIX_AIC_1_2; its AICs compute the product block by block
// into the workspace and hand each block to their two AIVs (CrossCoreSetFlag mode 2), which apply
// ReLU and write c. Before mixed kernels were emulated every core was an AIV: the AIC branch never
// ran and the first CrossCoreWaitFlag was a deadlock.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "aopt/common/subprocess.h"

namespace fs = std::filesystem;

namespace {
// `aopt eval PACKAGE --json` on a fixture of tests/integration/packages, with a cache of its own.
nlohmann::json eval_fixture(const std::string& package) {
  const fs::path cache = fs::temp_directory_path() / ("aopt-it-mix-" + std::to_string(::getpid()));
  aopt::common::process_request r;
  r.argv = {AOPT_BINARY, "eval", std::string(AOPT_TEST_SOURCE_DIR) + "/tests/integration/packages/" + package,
            "--json", "--cache-dir", cache.string()};
  r.limits.wall_timeout = std::chrono::seconds(280);
  r.limits.max_output_bytes = 4 << 20;
  const auto o = aopt::common::run_process(r);
  fs::remove_all(cache);
  EXPECT_EQ(o.end, aopt::common::process_end::exited) << o.describe() << "\n" << o.err;
  auto j = nlohmann::json::parse(o.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << o.out << "\n" << o.err;
  return j.is_discarded() ? nlohmann::json::object() : j;
}
}  // namespace

TEST(AoptEvalMix, AMixedKernelIsCorrectAndTimedOnAiCores) {
  const auto j = eval_fixture("matmul_relu_mix");
  ASSERT_EQ(j.value("status", ""), "ok") << j.dump(2);
  ASSERT_EQ(j["cases"].size(), 2u);
  for (const auto& c : j["cases"]) {
    EXPECT_EQ(c["status"], "ok") << c.dump(2);
    EXPECT_EQ(c["mismatch_ratio"].get<double>(), 0.0);
  }
  // 256 x 256 in 32 x 32 blocks on 16 AI Cores: the block dim counts AI Cores (one AIC and two
  // AIVs each), and both kinds' pipes are in the profile.
  const auto& p = j["cases"][0]["profile"];
  EXPECT_EQ(j["cases"][0]["block_dim"], 16) << p.dump(2);
  EXPECT_EQ(p["Block Dim"], 16) << p.dump(2);
  EXPECT_GT(p["aic_mac_time(us)"].get<double>(), 0.0) << p.dump(2);
  EXPECT_GT(p["aiv_mte3_time(us)"].get<double>(), 0.0) << p.dump(2);
}

// matmul_mix_default declares no kernel type and is written for the toolchain's default for a
// Matmul kernel, MIX AIC:AIV 1:2 (its AI Core is GetBlockIdx() / 2; the second AIV only joins the
// barrier), and multiplies a packed strip of b with SetOrgShape's orgKc (c's rows longer than b's).
// Launched AIV-only, or with orgKc ignored, most of c was wrong or never written.
TEST(AoptEvalMix, AMatmulKernelWithoutADeclaredTypeRunsMixedOneToTwo) {
  const auto j = eval_fixture("matmul_mix_default");
  ASSERT_EQ(j.value("status", ""), "ok") << j.dump(2);
  ASSERT_EQ(j["cases"].size(), 2u);
  for (const auto& c : j["cases"]) {
    EXPECT_EQ(c["status"], "ok") << c.dump(2);
    EXPECT_EQ(c["mismatch_ratio"].get<double>(), 0.0);
  }
  EXPECT_FALSE(j.contains("warnings") && j["warnings"].dump().find("unwritten") != std::string::npos) << j.dump(2);
}

// matmul_all_reduce_window (docs/sim.md "HCCL on one rank"): every AIC computes its block of
// a x b with the Matmul API into the HCCL WindowsIn (GetWindowsInAddr), the AllReduce prepared
// before the compute is committed after a barrier, and on one rank it copies the window into c;
// the reference is the plain product. Without the HCCL API the host build stopped at
// tiling/hccl/hccl_tiling.h; with a collective that did not copy, c stayed unwritten.
TEST(AoptEvalMix, AMatmulAllReducedThroughTheHcclWindowEqualsThePlainProduct) {
  const auto j = eval_fixture("matmul_all_reduce_window");
  ASSERT_EQ(j.value("status", ""), "ok") << j.dump(2);
  ASSERT_EQ(j["cases"].size(), 2u);
  for (const auto& c : j["cases"]) {
    EXPECT_EQ(c["status"], "ok") << c.dump(2);
    EXPECT_EQ(c["mismatch_ratio"].get<double>(), 0.0);
  }
  EXPECT_FALSE(j.contains("warnings") && j["warnings"].dump().find("unwritten") != std::string::npos) << j.dump(2);
}
