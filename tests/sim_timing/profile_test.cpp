#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <unistd.h>
#include <string>

#include "aopt_sim/profile.h"
#include "aopt_sim/timing_params.h"

namespace {

using aopt::sim::load_profile;

std::string error_of(const std::string& arg) {
  try {
    load_profile(arg);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

std::filesystem::path write_variant(const std::string& name, const std::function<void(nlohmann::json&)>& edit) {
  auto j = load_profile("a2").raw;
  edit(j);
  const auto dir = std::filesystem::temp_directory_path() / ("aopt_profile_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto path = dir / (name + ".json");
  std::ofstream(path) << j.dump(1);
  return path;
}

TEST(Profile, BuiltInProfilesLoad) {
  const auto b4 = load_profile("910b4");
  EXPECT_EQ(b4.name, "910b4");
  EXPECT_EQ(b4.soc_version, "Ascend910B4");
  EXPECT_EQ(b4.aiv_cores, 40u);
  EXPECT_DOUBLE_EQ(b4.clock_ghz, 1.5);
  EXPECT_EQ(b4.ub_bytes, 196608u);
  const auto a2 = load_profile("a2");
  EXPECT_EQ(a2.aiv_cores, 48u);
  EXPECT_DOUBLE_EQ(a2.clock_ghz, 1.85);
  const auto p = aopt::sim::parse_timing_params(a2.raw, "a2");
  EXPECT_DOUBLE_EQ(p.cycles_per_repeat(aopt::sim::vec_class::exp_ln, 2), 3.9);
  EXPECT_DOUBLE_EQ(p.cycles_per_repeat(aopt::sim::vec_class::exp_ln, 4), 2.0);
  EXPECT_DOUBLE_EQ(p.cycles_per_repeat(aopt::sim::vec_class::gather, 1), 24.0);  // b8 falls back to b16
}

TEST(Profile, PathAndEnvOverride) {
  const auto path = std::filesystem::path(aopt::sim::profile_dir()) / "a2.json";
  EXPECT_EQ(load_profile(path.string()).name, "a2");
  const auto variant = write_variant("mine", [](nlohmann::json& j) { j["name"]["value"] = "mine"; });
  ::setenv("AOPT_PROFILE_DIR", variant.parent_path().c_str(), 1);
  EXPECT_EQ(aopt::sim::profile_dir(), variant.parent_path().string());
  EXPECT_EQ(load_profile("mine").name, "mine");
  ::unsetenv("AOPT_PROFILE_DIR");
  EXPECT_NE(error_of("mine").find("cannot open"), std::string::npos);
}

TEST(Profile, ErrorsNameFileAndField) {
  auto p1 = write_variant("nosrc", [](nlohmann::json& j) { j["timing"]["dma"]["fixed_latency_ns"].erase("source"); });
  auto e1 = error_of(p1.string());
  EXPECT_NE(e1.find(p1.string()), std::string::npos) << e1;
  EXPECT_NE(e1.find("timing.dma.fixed_latency_ns"), std::string::npos) << e1;
  EXPECT_NE(e1.find("source"), std::string::npos) << e1;

  auto p2 = write_variant("neg", [](nlohmann::json& j) { j["timing"]["chip"]["hbm_bandwidth_gbs"]["value"] = -3; });
  auto e2 = error_of(p2.string());
  EXPECT_NE(e2.find("timing.chip.hbm_bandwidth_gbs"), std::string::npos) << e2;
  EXPECT_NE(e2.find("outside"), std::string::npos) << e2;

  auto p3 = write_variant("nocls", [](nlohmann::json& j) { j["timing"]["vector"]["cycles_per_repeat"]["value"].erase("div"); });
  EXPECT_NE(error_of(p3.string()).find("'div'"), std::string::npos);

  auto p4 = write_variant("curve", [](nlohmann::json& j) {
    j["timing"]["dma"]["gm_to_ub_gibs"]["value"] = nlohmann::json::array({{8, 40.0}, {4, 20.0}});
  });
  EXPECT_NE(error_of(p4.string()).find("increasing"), std::string::npos);

  auto p5 = write_variant("cores", [](nlohmann::json& j) { j.erase("aiv_cores"); });
  auto e5 = error_of(p5.string());
  EXPECT_NE(e5.find("'aiv_cores': missing"), std::string::npos) << e5;

  const auto dir = std::filesystem::temp_directory_path() / ("aopt_profile_test_" + std::to_string(::getpid()));
  std::ofstream(dir / "broken.json") << "{ not json";
  EXPECT_NE(error_of((dir / "broken.json").string()).find("not valid JSON"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(Profile, CurveReproducesMeasuredPoints) {
  const auto p = aopt::sim::parse_timing_params(load_profile("a2").raw, "a2");
  const double gib = 1073741824.0;
  // 8 KiB GM->UB at 42.743 GiB/s (msKPP GM_TO_UB_910b1).
  EXPECT_NEAR(p.gm_to_ub.time_ns(8192), 8192 / (42.743 * gib / 1e9), 1e-6);
  // Between points: linear in bandwidth; below the first point: the first point's time.
  EXPECT_NEAR(p.gm_to_ub.time_ns(512), p.gm_to_ub.time_ns(1024), 1e-9);
  EXPECT_GT(p.gm_to_ub.time_ns(9 * 1024), p.gm_to_ub.time_ns(8 * 1024));
}

}  // namespace

namespace {

// A profile is a small regular file: a huge one or a device is refused unread (issue 33: a path
// that never ends, /dev/zero, grew the reader without bound).
TEST(Profile, OnlySmallRegularFilesAreRead) {
  const auto padded = write_variant("padded", [](nlohmann::json&) {});
  std::filesystem::resize_file(padded, std::filesystem::file_size(padded) + (5u << 20));  // NULs after the JSON
  EXPECT_NE(error_of(padded.string()).find("is not a regular file of at most 4 MiB"), std::string::npos) << error_of(padded.string());
  EXPECT_NE(error_of("/dev/zero").find("is not a regular file of at most 4 MiB"), std::string::npos);
  EXPECT_EQ(load_profile(write_variant("small", [](nlohmann::json&) {}).string()).name, "a2");
}

}  // namespace
