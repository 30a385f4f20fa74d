// Stage I's search form (stage1/search_form.h): which occurrences are read at run time, the
// literal types that keep a value exact, the tunables file, and that the form compiles (g++
// syntax checks against the emulated headers, the tunable header force-included as the sim
// backend does) and runs a variant exactly as its instantiated sources (a real g++ build of a
// small tiling file, run with and without AOPT_TUNABLES).
#include <cstdlib>
#include <fstream>
#include <iostream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "aopt/stage1/mutator.h"
#include "aopt/stage1/search_form.h"
#include "stage1_test_util.h"

namespace aopt::stage1 {
namespace {

tiling_template synth_pkg(const std::string& pkg) {
  auto r = synthesize(test::load_package(pkg));
  if (!r.tmpl) throw std::runtime_error("synthesis failed for " + pkg);
  return *r.tmpl;
}

std::string tunable_flags() {
  return "-include '" + (test::source_dir() / "sim" / "include" / "aopt_sim" / "host" / "tunable.h").string() + "'";
}

TEST(SearchForm, LiteralTypesFollowTheStandard) {
  EXPECT_TRUE(same_literal_type("16", "4096"));
  EXPECT_TRUE(same_literal_type("16U", "4096U"));
  EXPECT_TRUE(same_literal_type("0x10", "32"));          // both int
  EXPECT_FALSE(same_literal_type("16", "3000000000"));   // int, then long
  EXPECT_FALSE(same_literal_type("0x80000000", "2147483648"));  // unsigned int, then long
  EXPECT_TRUE(same_literal_type("16UL", "3000000000UL"));
  EXPECT_FALSE(same_literal_type("16U", "5000000000U"));  // unsigned int, then unsigned long
  EXPECT_FALSE(same_literal_type("2.0", "4.0"));          // not integer literals
}

TEST(SearchForm, TheBaseFormGivesEveryNumberItsWrittenValue) {
  const auto t = synth_pkg("add_custom");
  const auto f = make_search_form(t, t.base(), form_level::bold);
  ASSERT_GT(f.slots, 0u);
  EXPECT_TRUE(f.literal.empty());
  const auto& host = f.files.at("op_host/add_custom.cpp");
  EXPECT_NE(host.find("AOPT_TUNABLE("), std::string::npos) << host;
  // `constexpr` constants read at run time are declared `const` in the bold form.
  EXPECT_EQ(host.find("constexpr uint32_t BUFFER_NUM"), std::string::npos) << host;
  EXPECT_NE(host.find("const uint32_t BUFFER_NUM = AOPT_TUNABLE("), std::string::npos) << host;
  // The kernel keeps its constants as written.
  EXPECT_EQ(f.files.at("op_kernel/add_custom.cpp"), t.instantiate(t.base()).at("op_kernel/add_custom.cpp"));
  const auto j = nlohmann::json::parse(f.files.at(std::string(tunables_file)));
  EXPECT_EQ(j["tunables"].size(), f.given);
  EXPECT_GT(f.given, 0u);
}

TEST(SearchForm, TheCarefulFormReadsNoConstantDeclaration) {
  const auto t = synth_pkg("add_custom");
  const auto bold = make_search_form(t, t.base(), form_level::bold);
  const auto careful = make_search_form(t, t.base(), form_level::careful);
  EXPECT_LT(careful.slots, bold.slots);
  const auto& host = careful.files.empty() ? std::string() : careful.files.at("op_host/add_custom.cpp");
  if (!host.empty()) {
    EXPECT_NE(host.find("constexpr uint32_t BUFFER_NUM = 2;"), std::string::npos) << host;
  }
}

TEST(SearchForm, VariantsOfRunTimeTunablesShareTheSourcesOfTheBase) {
  const auto t = synth_pkg("add_custom");
  const auto base = make_search_form(t, t.base(), form_level::bold);
  const auto i = t.find("QUEUE_NUM");  // a host constant (BLOCK_BYTES and BUFFER_NUM are the kernel's too)
  ASSERT_TRUE(i.has_value());
  auto v = t.base();
  v[*i] = 4;
  const auto f = make_search_form(t, v, form_level::bold);
  EXPECT_TRUE(f.literal.empty());
  EXPECT_EQ(f.files.at("op_host/add_custom.cpp"), base.files.at("op_host/add_custom.cpp"));
  EXPECT_NE(f.files.at(std::string(tunables_file)), base.files.at(std::string(tunables_file)));
  // A kernel-linked tunable changes the kernel file: the variant is built (its kernel only).
  const auto b = t.find("BUFFER_NUM");
  ASSERT_TRUE(b.has_value());
  auto w = t.base();
  w[*b] = 1;
  const auto g = make_search_form(t, w, form_level::bold);
  ASSERT_EQ(g.literal.size(), 1u);
  EXPECT_EQ(g.literal.front(), "BUFFER_NUM");
  EXPECT_EQ(g.files.at("op_host/add_custom.cpp"), base.files.at("op_host/add_custom.cpp"));
  EXPECT_NE(g.files.at("op_kernel/add_custom.cpp"), base.files.at("op_kernel/add_custom.cpp"));
}

// Every fixture's search form, bold and careful, at a random assignment (seeded), compiles.
TEST(SearchForm, FormsCompile) {
  const std::uint64_t seed = 20261128;
  std::cout << "seed " << seed << "\n";
  const std::vector<std::pair<std::string, std::string>> pkgs = {{"add_custom", "op_host/add_custom.cpp"},
                                                                 {"mul_v3", "op_host/op_tiling.cpp"},
                                                                 {"reduce_sum", "op_host/reduce_sum_custom.cpp"},
                                                                 {"mul", "op_host/mul_custom.cpp"},
                                                                 {"literals", "op_host/lit_custom.cpp"}};
  for (const auto& [pkg, host] : pkgs) {
    const auto t = synth_pkg(pkg);
    mutator_config cfg;
    cfg.mutate_keys = true;
    mutator m(t, cfg, seed);
    const auto v = m.restart();
    for (const auto level : {form_level::bold, form_level::careful}) {
      const auto f = make_search_form(t, v, level);
      if (f.files.empty()) continue;
      auto files = f.files;
      files.erase(std::string(tunables_file));
      std::string log;
      EXPECT_EQ(test::syntax_check(pkg, files, host, tunable_flags(), log), 0)
          << pkg << " " << to_string(level) << " " << t.describe_change(v) << "\n" << log;
    }
  }
}

// A tiling file of our own, built once in its search form, computes at each variant what its
// instantiated sources compute: the run-time values (AOPT_TUNABLES) replace the literals, at
// namespace scope (initialised before main) as well as inside the function.
TEST(SearchForm, ARunWithTheVariantsValuesComputesWhatItsSourcesCompute) {
  const std::string src =
      "#include <cstdint>\n#include <cstdio>\n"
      "namespace optiling {\n"
      "struct TilingData { uint32_t tile; uint32_t cores; };\n"
      "constexpr uint32_t TILE_SIZE = 512;\n"
      "constexpr uint32_t BUFFER_NUM = 2;\n"
      "static int TilingFunc(uint32_t total, TilingData* tiling) {\n"
      "  uint32_t tile = TILE_SIZE / BUFFER_NUM;\n"
      "  if (tile > 4096) tile = 4096;\n"
      "  tiling->tile = tile;\n"
      "  tiling->cores = total / (tile * 8);\n"
      "  return 0;\n"
      "}\n"
      "}\n"
      "int main() {\n"
      "  optiling::TilingData td{};\n"
      "  optiling::TilingFunc(1u << 20, &td);\n"
      "  std::printf(\"%u %u\\n\", td.tile, td.cores);\n"
      "  return 0;\n"
      "}\n";
  synthesis_input in;
  in.host_files.push_back({"op_host/t.cpp", src});
  auto r = synthesize(in);
  ASSERT_TRUE(r.tmpl.has_value());
  const auto& t = *r.tmpl;
  ASSERT_GE(t.tunables.size(), 2u) << to_json(t).dump(1);
  test::temp_dir dir;
  auto build = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir.path() / (name + ".cpp")) << text;
    const std::string cmd = "cd '" + dir.path().string() + "' && g++ -std=c++17 -I'" +
                            (test::source_dir() / "sim" / "include").string() + "' " + tunable_flags() + " " + name +
                            ".cpp '" + (test::source_dir() / "sim" / "harness" / "tunable.cpp").string() + "' -o " +
                            name + " > " + name + ".log 2>&1";
    return std::system(cmd.c_str());
  };
  auto run = [&](const std::string& name, const std::string& env) {
    const std::string out = (dir.path() / (name + ".out")).string();
    const std::string cmd = "cd '" + dir.path().string() + "' && " + (env.empty() ? "" : "AOPT_TUNABLES='" + env + "' ") +
                            "./" + name + " > '" + out + "'";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    return test::read_text(out);
  };
  const auto base_form = make_search_form(t, t.base(), form_level::bold);
  ASSERT_EQ(build("form", base_form.files.at("op_host/t.cpp")), 0) << test::read_text(dir.path() / "form.log");
  const std::uint64_t seed = 7;
  std::cout << "seed " << seed << "\n";
  mutator m(t, {}, seed);
  for (int k = 0; k < 6; ++k) {
    const auto v = k == 0 ? t.base() : m.restart();
    const auto f = make_search_form(t, v, form_level::bold);
    ASSERT_TRUE(f.literal.empty()) << t.describe_change(v);
    EXPECT_EQ(f.files.at("op_host/t.cpp"), base_form.files.at("op_host/t.cpp"));
    std::string env;
    const auto values = nlohmann::json::parse(f.files.at(std::string(tunables_file)));
    for (const auto& sv : values["tunables"]) {
      env += (env.empty() ? "" : ",") + std::to_string(sv[0].get<int>()) + "=" + std::to_string(sv[1].get<long long>());
    }
    const std::string lit = "lit" + std::to_string(k);
    ASSERT_EQ(build(lit, t.instantiate(v).at("op_host/t.cpp")), 0) << test::read_text(dir.path() / (lit + ".log"));
    EXPECT_EQ(run("form", env), run(lit, "")) << t.describe_change(v) << " AOPT_TUNABLES=" << env;
  }
}

}  // namespace
}  // namespace aopt::stage1
