// aoptd with a calibrated device profile: [jobs] profile names a profile file (as `aopt calibrate`
// writes it), relative to the config file; GET /v1/devices shows the profile's own name and the
// file; a profile that does not load stops aoptd at start, naming the config line.
#include <gtest/gtest.h>

#include "daemon_process.h"

namespace aopt::testing {
namespace {

// a2.json as `aopt calibrate --base a2 --name a2-site` leaves it: renamed, a fitted constant.
void write_calibrated(const fs::path& file) {
  auto p = nlohmann::json::parse(common::read_text_file(source_dir() / "sim" / "profiles" / "a2.json"));
  p["name"] = {{"value", "a2-site"}, {"source", "aopt calibrate 2026-11-26: profile a2 fitted on a test"}};
  p["timing"]["chip"]["hbm_bandwidth_gbs"] = {
      {"value", 1283.0},
      {"source", "[FITTED] aopt calibrate 2026-11-26 on a test: 1283 (base 1600), from kernels copy_all_cores; fit error 0.61%"}};
  fs::create_directories(file.parent_path());
  common::write_text_file(file, p.dump(1));
}

TEST(daemon_api, AcceptsACalibratedProfileFile) {
  temp_dir t;
  write_calibrated(t.path / "profiles" / "site.json");
  daemon_process d(t.path);
  d.set_jobs_key("profile", "\"profiles/site.json\"");  // relative to aoptd.toml, which lies in t.path
  ASSERT_TRUE(d.start()) << d.log();
  const auto devs = request(d.socket(), "GET", "/v1/devices");
  ASSERT_EQ(devs.status, 200) << devs.body;
  ASSERT_EQ(devs.json().size(), 2u) << devs.body;
  for (const auto& dev : devs.json()) {
    EXPECT_EQ(dev["profile"], "a2-site") << devs.body;
    EXPECT_EQ(dev["profile_source"], (t.path / "profiles" / "site.json").string()) << devs.body;
  }
}

TEST(daemon_api, RefusesAProfileThatDoesNotLoad) {
  temp_dir t;
  daemon_process d(t.path);
  d.set_jobs_key("profile", "\"profiles/missing.json\"");
  EXPECT_FALSE(d.start());
  const auto log = d.log();
  EXPECT_NE(log.find("aoptd.toml:"), std::string::npos) << log;
  EXPECT_NE(log.find("[jobs] profile:"), std::string::npos) << log;
  EXPECT_NE(log.find("missing.json"), std::string::npos) << log;
}

}  // namespace
}  // namespace aopt::testing
