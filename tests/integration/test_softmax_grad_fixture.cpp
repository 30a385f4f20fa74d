// Runs the real `aopt eval` on packages/softmax_grad_rows (issue 38): a vector operator on
// SoftmaxGrad with its host tiling (GetSoftMaxGradMinTmpSize, SoftMaxGradTilingFunc), the idiom
// of math/inplace_fused_matmul_softmax_grad; both forms (the caller's temporary buffer with the
// tiling's shape, the framework's with a SoftMaxShapeInfo for a short last tile), checked against
// an independent reference. Before: the host build failed ("'GetSoftMaxGradMinTmpSize' is not a
// member of 'AscendC'").
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "aopt/common/subprocess.h"

namespace fs = std::filesystem;

TEST(SoftmaxGradFixture, RowsAreCorrectWithBothTemporarySpaceForms) {
  const fs::path cache = fs::temp_directory_path() / ("aopt-it-sfg-" + std::to_string(::getpid()));
  aopt::common::process_request r;
  r.argv = {AOPT_BINARY, "eval", std::string(AOPT_TEST_SOURCE_DIR) + "/tests/integration/packages/softmax_grad_rows",
            "--json", "--cache-dir", cache.string()};
  r.limits.wall_timeout = std::chrono::seconds(580);
  r.limits.max_output_bytes = 4 << 20;
  const auto o = aopt::common::run_process(r);
  fs::remove_all(cache);
  ASSERT_EQ(o.end, aopt::common::process_end::exited) << o.describe() << "\n" << o.err;
  const auto j = nlohmann::json::parse(o.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << o.out << "\n" << o.err;
  ASSERT_EQ(j.value("status", ""), "ok") << j.dump(2);
  ASSERT_EQ(j["cases"].size(), 2u);
  for (const auto& c : j["cases"]) {
    EXPECT_EQ(c["status"], "ok") << c.dump(2);
    EXPECT_EQ(c["mismatch_ratio"].get<double>(), 0.0) << c.dump(2);
  }
}
