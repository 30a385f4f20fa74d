#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "aopt/evaluation/cache.h"

namespace ev = aopt::evaluation;
namespace fs = std::filesystem;

TEST(Cache, RoundTripAndCorruptEntries) {
  const fs::path dir = fs::temp_directory_path() / ("aopt-cache-test-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  ev::eval_cache cache(dir);
  const std::string key(64, 'a');
  EXPECT_FALSE(cache.get(key));
  ev::eval_result r;
  r.key = key;
  r.status = "precision_error";
  r.backend = "sim";
  r.profile = "910b4";
  ev::case_result c;
  c.name = "perf";
  c.timed = true;
  c.latency_us = 12.5;
  c.block_dim = 40;
  r.cases.push_back(c);
  r.latency_us = 12.5;
  cache.put(key, r);
  const auto got = cache.get(key);
  ASSERT_TRUE(got);
  EXPECT_EQ(got->status, "precision_error");
  EXPECT_EQ(got->to_json().dump(), r.to_json().dump());
  std::ofstream(cache.entry_path(key)) << "{ not json";
  EXPECT_FALSE(cache.get(key));  // corrupt: a miss, not a crash
  fs::remove_all(dir);
}
