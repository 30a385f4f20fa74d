// Issue 39 item 3: a screen names the tiling words its tiling never wrote. The JunkTiling fixture
// (fixtures/junk_tiling) copies `int64_t shape[8]` with only its input's dimensions set, as
// cann-ops' xlogy does with shape[128]: the harness runs the tiling on two differently painted
// stacks, reports the words that differ as 0 and lists them in "junk_words". The screen reports the
// registered tiling class's fields one scalar per element ("layout": "fields").
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

json screen(const fs::path& dir, const std::string& name) {
  {
    const std::vector<float> x(4 * 256, 1.0f);
    std::ofstream(dir / "x.bin", std::ios::binary)
        .write(reinterpret_cast<const char*>(x.data()), static_cast<std::streamsize>(x.size() * sizeof(float)));
  }
  const json req = {{"screen", true},
                    {"inputs", {{{"name", "x"}, {"shape", {4, 256}}, {"dtype", "float32"}, {"file", "x.bin"}}}},
                    {"outputs", {{{"name", "y"}, {"dtype", "float32"}, {"file", "y.bin"}}}},
                    {"profile", std::string(AOPT_FX_PROFILE_DIR) + "/910b4.json"},
                    {"result", name + ".json"}};
  std::ofstream(dir / (name + "-run.json")) << req.dump(1);
  const std::string cmd = std::string(AOPT_FX_SIM_HOST_JUNK_TILING) + " --run " + (dir / (name + "-run.json")).string() +
                          " > " + (dir / (name + ".log")).string() + " 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream rf(dir / (name + ".json"));
  return json::parse(rf, nullptr, false);
}

TEST(JunkWords, AScreenReportsUnwrittenTilingWordsAsJunk) {
  std::string tmpl = (fs::temp_directory_path() / "aopt_junk_words_XXXXXX").string();
  ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
  const fs::path dir = tmpl;
  const json a = screen(dir, "a");
  const json b = screen(dir, "b");
  ASSERT_EQ(a.value("status", ""), "ok") << a.dump(1);
  const auto& t = a["tiling"];
  // One scalar per field element: totalLength, tileNum, coreStart[4] (uint16), shape[8] (int64: dims
  // 4 and 256, the rest unset), bias (int32, negative); the class's tail padding is no scalar.
  EXPECT_EQ(t.value("layout", ""), "fields") << t.dump();
  const auto words = t["words"].get<std::vector<std::int64_t>>();
  ASSERT_EQ(words.size(), 15u) << t.dump();
  EXPECT_EQ(words[0], 1024);
  EXPECT_EQ(words[1], 8);
  EXPECT_EQ((std::vector<std::int64_t>(words.begin() + 2, words.begin() + 6)), (std::vector<std::int64_t>{0, 300, 600, 900}));
  EXPECT_EQ(words[6], 4);
  EXPECT_EQ(words[7], 256);
  EXPECT_EQ(words[14], -3);
  ASSERT_TRUE(t.contains("junk_words")) << "the screen does not say which words are junk: " << t.dump();
  const auto junk = t["junk_words"].get<std::vector<std::size_t>>();
  EXPECT_EQ(junk, (std::vector<std::size_t>{8, 9, 10, 11, 12, 13})) << t.dump();
  for (std::size_t i = 8; i < 14; ++i) EXPECT_EQ(words[i], 0) << "junk word " << i << " reported as read";
  // Two screens of one tiling report the same words (what Stage I's same-tiling test and memo compare).
  ASSERT_EQ(b.value("status", ""), "ok") << b.dump(1);
  EXPECT_EQ(b["tiling"]["words"], t["words"]);
  std::error_code ec;
  if (!::testing::Test::HasFailure()) fs::remove_all(dir, ec);
  else std::cout << "kept " << dir << "\n";
}

}  // namespace
