// The conv2d fixture of our own (tests/integration/packages/conv2d_im2col: im2col with LoadData 3D
// v2, Mmad, Fixpipe; issue 38) evaluates ok under the real `aopt eval` against its reference.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "aopt/common/subprocess.h"

namespace fs = std::filesystem;

TEST(Conv2dFixture, Im2colConvolutionEvaluatesOk) {
  const fs::path cache = fs::temp_directory_path() / ("aopt-conv2d-cache-" + std::to_string(::getpid()));
  fs::remove_all(cache);
  aopt::common::process_request r;
  r.argv = {AOPT_BINARY, "eval", std::string(AOPT_TEST_SOURCE_DIR) + "/tests/integration/packages/conv2d_im2col",
            "--json", "--cache-dir", cache.string()};
  r.limits.wall_timeout = std::chrono::seconds(280);
  r.limits.max_output_bytes = 4 << 20;
  const auto o = aopt::common::run_process(r);
  fs::remove_all(cache);
  ASSERT_EQ(o.end, aopt::common::process_end::exited) << o.describe() << "\n" << o.err;
  nlohmann::json j;
  ASSERT_NO_THROW(j = nlohmann::json::parse(o.out)) << o.out << "\n" << o.err;
  ASSERT_EQ(j.value("status", ""), "ok") << j.dump(2);
  ASSERT_EQ(j["cases"].size(), 3u) << j.dump(2);
  for (const auto& c : j["cases"]) {
    EXPECT_EQ(c["status"], "ok") << c.dump(2);
    EXPECT_EQ(c["mismatch_ratio"].get<double>(), 0.0) << c.dump(2);
  }
  EXPECT_GT(j["latency_us"].get<double>(), 0.0);
}
