// A package that carries its shared files (evaluation/package_build.h: carried_shared_files, what
// `aopt submit --tree` uploads) loads without its tree as it does inside it; and an operator
// whose op_host/ only registers a shared tiling struct for its type (<op>_tiling_def.h, cann-ops'
// foreach_v2 idiom) finds that header. Fixture tree tests/integration/packages/shared_tree.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "aopt/common/error.h"
#include "aopt/common/fs.h"
#include "aopt/common/tar.h"
#include "aopt/evaluation/package.h"
#include "aopt/evaluation/package_build.h"

namespace ev = aopt::evaluation;
namespace fs = std::filesystem;

namespace {

const fs::path tree = fs::path(AOPT_TEST_SOURCE_DIR) / "tests/integration/packages/shared_tree";

ev::package_options in_tree() {
  ev::package_options o;
  o.tree_root = tree;
  return o;
}

class CarriedTree : public ::testing::Test {
 protected:
  void SetUp() override {
    tmp_ = fs::temp_directory_path() / ("aopt-carried-" + std::to_string(::getpid()));
    fs::remove_all(tmp_);
    fs::create_directories(tmp_);
  }
  void TearDown() override { fs::remove_all(tmp_); }
  // The package as the daemon writes an upload: its own files, then the carried ones.
  fs::path upload(const fs::path& op) {
    auto files = aopt::common::read_tree(op);
    for (auto& [rel, text] : ev::carried_shared_files(op, tree)) files[rel] = text;
    const fs::path dir = tmp_ / "package";
    aopt::common::write_tree(dir, files);
    return dir;
  }
  fs::path tmp_;
};

}  // namespace

TEST_F(CarriedTree, ACarriedPackageLoadsWithoutItsTreeAsItDoesInside) {
  const fs::path op = tree / "src/fixture/shared_scale";
  const auto files = ev::carried_shared_files(op, tree);
  ASSERT_EQ(files.count(ev::carried_tree_file), 1u);
  EXPECT_EQ(files.at(ev::carried_tree_file), "src/fixture/shared_scale\n");
  EXPECT_EQ(files.count("aopt_shared/src/common/inc/fixture_shared/scale_tiling_def.h"), 1u);
  EXPECT_EQ(files.count("aopt_shared/src/fixture/shared_scale/op_host/shared_scale.cpp"), 0u) << "the package's own files are not shared";
  EXPECT_TRUE(ev::carried_shared_files(op, {}).empty()) << "without a tree there is nothing to carry";

  const auto inside = ev::load_package(op, in_tree());
  const auto carried = ev::load_package(upload(op));
  EXPECT_EQ(carried.tree_root, fs::weakly_canonical(tmp_ / "package" / "aopt_shared"));
  EXPECT_EQ(carried.host_sources, inside.host_sources);
  EXPECT_EQ(carried.host_include_dirs, inside.host_include_dirs);
  EXPECT_EQ(carried.kernel_include_dirs, inside.kernel_include_dirs);
  EXPECT_EQ(carried.shared_files, inside.shared_files);
  EXPECT_EQ(carried.tiling_header, inside.tiling_header);
  for (const auto& f : carried.shared_files) {
    EXPECT_EQ(aopt::common::read_text_file(carried.tree_root / f), aopt::common::read_text_file(tree / f)) << f;
  }
  // Its source files (what a candidate replaces and its key hashes) are the package's own.
  EXPECT_EQ(carried.source_files(), inside.source_files());
}

TEST_F(CarriedTree, ACarriedPathLeadingOutOfTheCarriedTreeIsRefused) {
  const fs::path dir = upload(tree / "src/fixture/shared_scale");
  aopt::common::write_text_file(dir / ev::carried_tree_file, "../../etc\n");
  try {
    (void)ev::load_package(dir);
    FAIL() << "a package_path with .. must be refused";
  } catch (const aopt::error& e) {
    EXPECT_NE(std::string(e.what()).find("package_path"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("aopt submit --tree"), std::string::npos) << e.what();
  }
}

TEST_F(CarriedTree, AnOpHostHeaderRegisteringASharedStructForItsTypeIsTheTilingHeader) {
  const auto pkg = ev::load_package(tree / "src/fixture/shared_scale_def", in_tree());
  EXPECT_EQ(pkg.tiling_header, "op_host/shared_scale_def_tiling_def.h");
}
