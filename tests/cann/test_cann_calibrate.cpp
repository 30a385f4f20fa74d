// `aopt calibrate` end to end through the real binary: the stand-in device times the calibration
// kernels with a "true" profile (a2 with bandwidths x0.8, vector cycles and DMA latency x1.2,
// ...) plus seeded noise, msprof op's CSVs come back, and every fitted constant must be within 5%
// of the true one.
// Then the same outputs again with --from (the same profile), and a garbled CSV named by line.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>

#include <nlohmann/json.hpp>

#include "../support/aopt_process.h"
#include "standin_profile.h"

namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t k_seed = 16004;

nlohmann::json read_json(const fs::path& f) { return nlohmann::json::parse(std::ifstream(f)); }

// The known profile the stand-in measures with: constants moved away from the base.
struct truth {
  const char* name;
  double factor;
};
constexpr truth k_truth[] = {{"chip.hbm_bandwidth_gbs", 0.8},
                             {"dma.gm_to_ub_gibs", 0.8},
                             {"dma.ub_to_gm_gibs", 0.8},
                             {"dma.fixed_latency_ns", 1.2},
                             {"vector.head_cycles", 1.2},
                             {"vector.cycles_per_repeat.unary.b32", 1.2},
                             {"vector.cycles_per_repeat.binary.b16", 1.2},
                             {"vector.cycles_per_repeat.binary.b32", 1.2},
                             {"vector.cycles_per_repeat.exp_ln.b32", 1.2},
                             {"scalar.elem_access_cycles", 1.2},
                             {"scalar.api_issue_cycles", 0.8},
                             {"launch.base_us", 1.2},
                             {"launch.head_per_core_us", 0.8}};

// The number a constant name points at under "timing" (a curve: its first bandwidth).
nlohmann::json& number_of(nlohmann::json& profile, const std::string& name) {
  static const std::regex cpr(R"(vector\.cycles_per_repeat\.(\w+)\.(\w+))");
  std::smatch m;
  auto& t = profile["timing"];
  if (std::regex_match(name, m, cpr)) return t["vector"]["cycles_per_repeat"]["value"][m[1].str()][m[2].str()];
  const auto dot = name.find('.');
  auto& v = t[name.substr(0, dot)][name.substr(dot + 1)]["value"];
  return v.is_array() ? v[0][1] : v;
}

void scale(nlohmann::json& profile, const std::string& name, double f) {
  auto& t = profile["timing"];
  if (name.ends_with("_gibs")) {  // a DMA curve: every bandwidth
    for (auto& p : t["dma"][name.substr(4)]["value"]) p[1] = p[1].get<double>() * f;
    return;
  }
  auto& v = number_of(profile, name);
  v = v.get<double>() * f;
}

class CannCalibrate : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("aopt-calib-it-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "state");
    std::cout << "stand-in seed " << k_seed << "\n";
    base_ = read_json(fs::path(AOPT_TEST_SOURCE_DIR) / "sim" / "profiles" / "a2.json");
    auto t = base_;
    t["name"]["value"] = "a2-true";
    for (const auto& c : k_truth) scale(t, c.name, c.factor);
    std::ofstream(root_ / "true.json") << t.dump(1);
    true_ = t;
  }
  void TearDown() override { fs::remove_all(root_); }

  fs::path cann_config() const {
    const fs::path f = root_ / "cann.toml";
    aopt::testing::standin_profile sp;
    sp.soc_version = "Ascend910B1";  // an A2: 48 cores, as the base
    sp.warmup = 1;
    sp.repeat = 3;
    sp.environment = {{"AOPT_STANDIN_SEED", std::to_string(k_seed)},
                      {"AOPT_STANDIN_STATE", (root_ / "state").string()},
                      {"AOPT_STANDIN_NOISE", "0.01"},
                      {"AOPT_STANDIN_SIM_PROFILE", (root_ / "true.json").string()}};
    aopt::testing::write_standin_profile(f, sp);
    return f;
  }

  static aopt::common::process_outcome aopt(const std::vector<std::string>& args) { return aopt::testing::run_aopt(args, 600); }

  fs::path root_;
  nlohmann::json base_, true_;
};

TEST_F(CannCalibrate, RecoversAKnownProfileWithinFivePercent) {
  const fs::path out = root_ / "site.json";
  const auto o = aopt({"calibrate", "--base", "a2", "--cann-config", cann_config().string(), "--launches", "3", "--name",
                       "a2-site", "-o", out.string(), "--work", (root_ / "work").string()});
  ASSERT_TRUE(o.ok()) << o.describe() << "\n" << o.out << "\n" << o.err;
  std::cout << o.out;
  auto fitted = read_json(out);
  EXPECT_EQ(fitted["name"]["value"], "a2-site");
  for (const auto& c : k_truth) {
    const double want = number_of(true_, c.name).get<double>();
    const double got = number_of(fitted, c.name).get<double>();
    std::cout << c.name << ": true " << want << ", fitted " << got << " (base " << number_of(base_, c.name) << ")\n";
    EXPECT_NEAR(got / want, 1.0, 0.05) << c.name << ": true " << want << ", fitted " << got;
  }
  // Each fitted constant says so: fitted, when, from which kernels, with its error.
  const auto src = fitted["timing"]["chip"]["hbm_bandwidth_gbs"]["source"].get<std::string>();
  EXPECT_EQ(src.rfind("[FITTED] aopt calibrate 20", 0), 0u) << src;
  EXPECT_NE(src.find("from kernels "), std::string::npos) << src;
  EXPECT_NE(src.find("copy_all_cores"), std::string::npos) << src;
  EXPECT_NE(src.find("fit error "), std::string::npos) << src;
  EXPECT_NE(fitted["timing"]["vector"]["cycles_per_repeat"]["source"].get<std::string>().find("binary.b16: [FITTED]"),
            std::string::npos);
  // Unfitted constants keep the base's value and source.
  EXPECT_EQ(fitted["timing"]["scalar"]["sync_all_cycles"], base_["timing"]["scalar"]["sync_all_cycles"]);
  const auto report = read_json(root_ / "site.fit.json");
  ASSERT_EQ(report["cases"].size(), 15u);
  for (const auto& c : report["cases"]) EXPECT_LT(c["error_fitted"].get<double>(), 0.03) << c.dump();

  // The kept msprof outputs fit again to the same profile.
  const fs::path kept = root_ / "a2-site-msprof";
  ASSERT_TRUE(fs::is_directory(kept / "ladder0_scalar")) << o.err;
  const auto again = aopt({"calibrate", "--base", "a2", "--from", kept.string(), "--name", "a2-site", "-o",
                           (root_ / "again.json").string(), "--work", (root_ / "work2").string()});
  ASSERT_TRUE(again.ok()) << again.describe() << "\n" << again.err;
  auto a = read_json(root_ / "again.json");
  for (const auto& c : k_truth) EXPECT_DOUBLE_EQ(number_of(a, c.name).get<double>(), number_of(fitted, c.name).get<double>()) << c.name;

  // A garbled CSV: the error names the file, the line and the column.
  fs::path csv;
  for (const auto& d : fs::directory_iterator(kept / "copy_one_core")) csv = d.path() / "PipeUtilization.csv";
  std::ifstream in(csv);
  std::string header, row;
  std::getline(in, header);
  std::getline(in, row);
  in.close();
  const auto col = [&] {
    std::size_t n = 0, at = 0;
    while (true) {
      const auto comma = header.find(',', at);
      if (header.substr(at, comma - at) == "aiv_mte2_time(us)") return n;
      at = comma + 1;
      ++n;
    }
  }();
  std::string garbled;
  std::size_t field = 0;
  for (char ch : row) {
    if (ch == ',') ++field;
    if (field == col && ch != ',') continue;
    garbled += ch;
    if (ch == ',' && field == col) garbled += "1.2.3";  // not a number (N/A would be no value: issue 36)
  }
  std::ofstream(csv, std::ios::trunc) << header << "\n" << garbled << "\n";
  const auto bad = aopt({"calibrate", "--base", "a2", "--from", kept.string(), "-o", (root_ / "bad.json").string(), "--work",
                         (root_ / "work3").string()});
  EXPECT_EQ(bad.exit_code, 2) << bad.describe();
  EXPECT_NE(bad.err.find(csv.string() + ":2: column 'aiv_mte2_time(us)' is '1.2.3', not a number"), std::string::npos) << bad.err;
  EXPECT_FALSE(fs::exists(root_ / "bad.json"));
}

}  // namespace
