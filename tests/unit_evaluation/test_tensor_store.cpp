// The bounded stores under a cache root (build artifacts, generated inputs, reference outputs):
// least recently used entries go first, an entry used recently never goes, directories go whole.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "aopt/common/fs.h"
#include "aopt/evaluation/artifacts.h"

namespace ev = aopt::evaluation;
namespace fs = std::filesystem;

namespace {

class TensorStore : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = aopt::common::make_unique_dir(fs::temp_directory_path(), "aopt-tensor-store-"); }
  void TearDown() override { fs::remove_all(dir_); }

  // An entry of `kib` KiB last used `age` ago: a file, or a directory holding two files.
  fs::path entry(const std::string& name, int kib, std::chrono::minutes age, bool as_dir = false) {
    const fs::path p = dir_ / name.substr(0, 2) / name;
    fs::create_directories(p.parent_path());
    const std::string half(static_cast<std::size_t>(kib) * 512, 'x');
    if (as_dir) {
      fs::create_directories(p);
      std::ofstream(p / "a.bin") << half;
      std::ofstream(p / "b.bin") << half;
    } else {
      std::ofstream(p) << half << half;
    }
    fs::last_write_time(p, fs::file_time_type::clock::now() - age);
    return p;
  }
  fs::path dir_;
};

TEST_F(TensorStore, UnderTheCapNothingGoes) {
  const auto a = entry("aa01", 10, std::chrono::minutes(500));
  const auto b = entry("bb02", 10, std::chrono::minutes(400), true);
  EXPECT_EQ(ev::prune_least_recently_used(dir_, 20 << 10, std::chrono::seconds(0)), 0u);
  EXPECT_TRUE(fs::exists(a));
  EXPECT_TRUE(fs::exists(b));
}

TEST_F(TensorStore, OverTheCapTheLeastRecentlyUsedGoFirstDownToThreeQuarters) {
  // 4 entries of 10 KiB, cap 32 KiB: over by 8; pruned to at most 24 KiB, so the two oldest go.
  const auto oldest = entry("aa01", 10, std::chrono::minutes(500), true);  // a reference: a directory
  const auto older = entry("bb02", 10, std::chrono::minutes(400));
  const auto newer = entry("cc03", 10, std::chrono::minutes(300));
  const auto newest = entry("aa04", 10, std::chrono::minutes(200), true);
  EXPECT_EQ(ev::prune_least_recently_used(dir_, 32 << 10, std::chrono::seconds(0)), 20u << 10);
  EXPECT_FALSE(fs::exists(oldest)) << "a directory entry goes whole";
  EXPECT_FALSE(fs::exists(older));
  EXPECT_TRUE(fs::exists(newer));
  EXPECT_TRUE(fs::exists(newest));
}

TEST_F(TensorStore, AnEntryUsedRecentlyStaysEvenOverTheCap) {
  const auto old_one = entry("aa01", 10, std::chrono::minutes(500));
  const auto in_use = entry("bb02", 10, std::chrono::minutes(5));
  const auto also_in_use = entry("cc03", 10, std::chrono::minutes(1), true);
  // Cap 8 KiB: everything is over, but what was used in the last hour may be held by a running
  // evaluation: only the old entry goes.
  EXPECT_EQ(ev::prune_least_recently_used(dir_, 8 << 10, std::chrono::hours(1)), 10u << 10);
  EXPECT_FALSE(fs::exists(old_one));
  EXPECT_TRUE(fs::exists(in_use));
  EXPECT_TRUE(fs::exists(also_in_use));
}

TEST_F(TensorStore, AMissingStoreIsNotAnError) {
  EXPECT_EQ(ev::prune_least_recently_used(dir_ / "never-made", 1, std::chrono::seconds(0)), 0u);
}

}  // namespace
