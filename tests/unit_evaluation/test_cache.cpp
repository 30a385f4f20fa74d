#include <gtest/gtest.h>

#include <filesystem>
#include <cmath>
#include <fstream>
#include <limits>

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

// A NaN output against a number gives an error of inf: the record must read back from the cache
// (nlohmann writes inf and NaN as null, which read as "type must be number": every such
// evaluation was measured again and warned about as a corrupt entry).
TEST(Cache, NonFiniteErrorsRoundTrip) {
  const fs::path dir = fs::temp_directory_path() / ("aopt-cache-nonfinite-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  ev::eval_cache cache(dir);
  const std::string key(64, 'b');
  ev::eval_result r;
  r.key = key;
  r.status = "precision_error";
  ev::case_result c;
  c.name = "perf";
  c.max_abs_err = std::numeric_limits<double>::infinity();
  c.max_rel_err = std::numeric_limits<double>::infinity();
  ev::output_check o;
  o.name = "y";
  o.max_abs_err = std::numeric_limits<double>::infinity();
  o.first_mismatch = 3;
  o.got_at_first = std::numeric_limits<double>::quiet_NaN();
  o.want_at_first = -std::numeric_limits<double>::infinity();
  c.outputs.push_back(o);
  r.cases.push_back(c);
  cache.put(key, r);
  const auto got = cache.get(key);
  ASSERT_TRUE(got);
  ASSERT_EQ(got->cases.size(), 1u);
  EXPECT_TRUE(std::isinf(got->cases[0].max_abs_err));
  EXPECT_TRUE(std::isinf(got->cases[0].max_rel_err));
  ASSERT_EQ(got->cases[0].outputs.size(), 1u);
  EXPECT_TRUE(std::isnan(got->cases[0].outputs[0].got_at_first));
  EXPECT_EQ(got->cases[0].outputs[0].want_at_first, -std::numeric_limits<double>::infinity());
  EXPECT_EQ(got->to_json().dump(), r.to_json().dump());

  // A record written before: its nulls read as an infinite error, not as a corrupt entry.
  auto old = r.to_json();
  old["cases"][0]["max_abs_err"] = nullptr;
  old["cases"][0]["outputs"][0]["max_abs_err"] = nullptr;
  const auto back = ev::eval_result::from_json(old);
  EXPECT_TRUE(std::isinf(back.cases[0].max_abs_err));
  EXPECT_TRUE(std::isinf(back.cases[0].outputs[0].max_abs_err));
  fs::remove_all(dir);
}
