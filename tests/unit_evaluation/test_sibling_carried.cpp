// An operator that includes a sibling operator's header by a relative path (fixture
// tests/integration/packages/tree_b/src/pair/sibling_user): `aopt submit --tree` carries that
// header and the one it includes beside it (evaluation::carried_shared_files), and the uploaded
// package loads without its tree as it does inside it (docs/evaluation.md, "Includes into a
// sibling operator").
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "aopt/common/fs.h"
#include "aopt/common/tar.h"
#include "aopt/evaluation/package.h"
#include "aopt/evaluation/package_build.h"

namespace ev = aopt::evaluation;
namespace fs = std::filesystem;

// Before: the files carried were none (the package's CMakeLists reaches nothing), so the daemon's
// copy lacked the sibling's header; and loaded in the tree, no shared file nor include directory.
TEST(SiblingCarried, SubmitCarriesTheSiblingHeadersAndTheUploadLoadsAlike) {
  const fs::path tree = fs::path(AOPT_TEST_SOURCE_DIR) / "tests/integration/packages/tree_b";
  const fs::path op = tree / "src/pair/sibling_user";
  const auto files = ev::carried_shared_files(op, tree);
  EXPECT_EQ(files.count("aopt_shared/src/pair/sibling/op_host/sibling_chunk.h"), 1u);
  EXPECT_EQ(files.count("aopt_shared/src/pair/sibling/op_host/sibling_limits.h"), 1u) << "included beside the sibling's header";
  EXPECT_EQ(files.count("aopt_shared/src/pair/sibling/op_host/sibling_tiling.h"), 0u) << "only what is included";
  ASSERT_EQ(files.count(ev::carried_tree_file), 1u);

  ev::package_options in_tree;
  in_tree.tree_root = tree;
  in_tree.without_cases = true;
  const auto inside = ev::load_package(op, in_tree);
  EXPECT_NE(std::find(inside.host_include_dirs.begin(), inside.host_include_dirs.end(), "aopt_shared/src/pair/sibling_user/op_host"),
            inside.host_include_dirs.end());

  const fs::path dir = fs::temp_directory_path() / ("aopt-sibling-carried-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  auto all = aopt::common::read_tree(op);
  for (auto& [rel, text] : files) all[rel] = text;
  aopt::common::write_tree(dir, all);
  ev::package_options alone;
  alone.without_cases = true;
  const auto carried = ev::load_package(dir, alone);
  EXPECT_EQ(carried.shared_files, inside.shared_files);
  EXPECT_EQ(carried.host_include_dirs, inside.host_include_dirs);
  fs::remove_all(dir);
}
