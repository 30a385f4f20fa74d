// Shared helpers of the LLM client tests: a config aimed at a scripted endpoint, an API key in
// the environment, temporary directories.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "aopt/common/fs.h"
#include "aopt/llm/config.h"
#include "aopt/llm/scripted_server.h"

namespace aopt::llm::testing {

inline constexpr const char* k_key_env = "AOPT_TEST_LLM_KEY";
inline constexpr const char* k_key = "sk-test-S3CRET-7f3a9c21d4e8";
inline constexpr std::uint64_t k_seed = 20240611;

// A scripted endpoint serving `script_json` on a free loopback port.
inline std::unique_ptr<scripted_server> serve(const char* script_json) {
  auto s = std::make_unique<scripted_server>(parse_script(nlohmann::json::parse(script_json), "test script"));
  s->start();
  return s;
}

// Fast, deterministic settings: short backoffs, a seeded jitter (the seed is printed).
inline llm_config config_for(const scripted_server& server) {
  llm_config c;
  c.base_url = server.base_url();
  c.api_key_env = k_key_env;
  c.model = "test-model";
  c.request_timeout_ms = 3000;
  c.connect_timeout_ms = 500;
  c.max_retries = 2;
  c.backoff_initial_ms = 10;
  c.backoff_max_ms = 50;
  c.jitter = 0.5;
  c.seed = k_seed;
  std::cout << "[llm test] jitter seed " << c.seed << "\n";
  return c;
}

inline chat_request ask(const std::string& text, role r = role::refinement) {
  chat_request q;
  q.role = r;
  q.messages = {{"system", "You optimize AscendC kernels."}, {"user", text}};
  return q;
}

// Sets the key for the test's lifetime.
class with_key : public ::testing::Test {
 protected:
  void SetUp() override { ::setenv(k_key_env, k_key, 1); }
  void TearDown() override { ::unsetenv(k_key_env); }
};

inline std::filesystem::path temp_dir(const std::string& prefix) {
  return common::make_unique_dir(std::filesystem::temp_directory_path(), prefix);
}

}  // namespace aopt::llm::testing
