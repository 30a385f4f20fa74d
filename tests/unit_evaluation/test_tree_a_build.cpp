// What the loader takes from the fixture operators of tests/integration/packages/tree_a (issue 34,
// helper i34-tree-a): a sibling operator's source implementing a header included from it, and
// tiling and proto sources the package's CMakeLists gives to separate libraries.
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

namespace {
const fs::path tree = fs::path(AOPT_TEST_SOURCE_DIR) / "tests/integration/packages/tree_a";

bool has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }
}  // namespace

// Before: host_sources held only op_host/edge_user.cpp (the sibling's .cc was never compiled: an
// undefined reference at the host link), and a carried package lacked it too.
TEST(TreeABuild, SiblingSourceBesideAnIncludedHeaderIsAHostSource) {
  const fs::path op = tree / "src/pad/edge_user";
  ev::package_options in_tree;
  in_tree.tree_root = tree;
  in_tree.without_cases = true;
  const auto inside = ev::load_package(op, in_tree);
  const std::string impl = "aopt_shared/src/pad/edge_base/op_host/edge_common.cc";
  EXPECT_TRUE(has(inside.host_sources, impl)) << ::testing::PrintToString(inside.host_sources);
  EXPECT_TRUE(has(inside.host_sources, "op_host/edge_user.cpp"));
  EXPECT_TRUE(has(inside.shared_files, "src/pad/edge_base/op_host/edge_common.h"));

  // Carried (aopt submit --tree) and loaded without the tree: the same sources.
  const auto files = ev::carried_shared_files(op, tree);
  EXPECT_EQ(files.count("aopt_shared/src/pad/edge_base/op_host/edge_common.cc"), 1u);
  EXPECT_EQ(files.count("aopt_shared/src/pad/edge_base/CMakeLists.txt"), 1u);
  const fs::path dir = fs::temp_directory_path() / ("aopt-tree-a-build-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  auto all = aopt::common::read_tree(op);
  for (auto& [rel, text] : files) all[rel] = text;
  aopt::common::write_tree(dir, all);
  ev::package_options alone;
  alone.without_cases = true;
  const auto carried = ev::load_package(dir, alone);
  EXPECT_EQ(carried.host_sources, inside.host_sources);
  EXPECT_EQ(carried.shared_files, inside.shared_files);
  fs::remove_all(dir);
}

// Before: no such distinction; a package whose every host source goes to optiling (or which
// names none) keeps one library.
TEST(TreeABuild, TilingAndProtoSourcesInSeparateLibrariesAreMarked) {
  ev::package_options o;
  o.tree_root = tree;
  o.without_cases = true;
  const auto apart = ev::load_package(tree / "src/activation/apart_scale", o);
  EXPECT_TRUE(apart.host_libraries_apart);
  const auto build = ev::read_package_build(tree / "src/activation/apart_scale", tree);
  EXPECT_EQ(build.tiling_sources, (std::set<std::string>{"op_host/apart_scale.cpp"}));
  EXPECT_FALSE(ev::load_package(tree / "src/pad/edge_user", o).host_libraries_apart) << "its one source goes to both libraries";
}

// The tree's one host library (session 33, conv3dv2): an operator's op_host includes its own
// shape_util.h, and the shape_util.cpp beside it is named by no CMakeLists; another operator's
// CMakeLists gives the proto library a shape_util.cc beside a shape_util.h. That one is compiled
// (shared), not the unnamed copy. Before: the host link failed on the undefined function.
TEST(TreeABuild, AHeaderWhoseBesideSourceNoCMakeListsNamesTakesTheTreesLibrarySource) {
  const fs::path root = fs::temp_directory_path() / ("aopt-tree-lib-" + std::to_string(::getpid()));
  fs::remove_all(root);
  aopt::common::write_tree(root, {
      {"src/conv/user/CMakeLists.txt", "target_sources(opsproto PRIVATE op_host/user_proto.cpp)\n"},
      {"src/conv/user/op_host/user_proto.cpp", "#include \"shape_util.h\"\nint UserShape() { return ShapeOf(1); }\n"},
      {"src/conv/user/op_host/shape_util.h", "int ShapeOf(int);\n"},
      {"src/conv/user/op_host/shape_util.cpp", "#include \"aclnn/only_in_op_api.h\"\n"},
      {"src/conv/provider/CMakeLists.txt", "target_sources(opsproto PRIVATE op_host/provider_proto.cpp op_host/shape_util.cc)\n"},
      {"src/conv/provider/op_host/provider_proto.cpp", "int ProviderShape() { return 2; }\n"},
      {"src/conv/provider/op_host/shape_util.h", "int ShapeOf(int);\n"},
      {"src/conv/provider/op_host/shape_util.cc", "#include \"shape_util.h\"\nint ShapeOf(int x) { return x; }\n"},
      {"src/conv/zeta_named/CMakeLists.txt", "target_sources(opsproto PRIVATE op_host/named_proto.cpp op_host/shape_util.cpp)\n"},
      {"src/conv/zeta_named/op_host/named_proto.cpp", "#include \"shape_util.h\"\nint NamedShape() { return ShapeOf(3); }\n"},
      {"src/conv/zeta_named/op_host/shape_util.h", "int ShapeOf(int);\n"},
      {"src/conv/zeta_named/op_host/shape_util.cpp", "int ShapeOf(int x) { return x; }\n"},
  });
  const auto build = ev::read_package_build(root / "src/conv/user", root);
  EXPECT_TRUE(has(build.host_sources, "aopt_shared/src/conv/provider/op_host/shape_util.cc")) << ::testing::PrintToString(build.host_sources);
  EXPECT_FALSE(has(build.host_sources, "op_host/shape_util.cpp"));
  EXPECT_TRUE(has(build.shared_files, "src/conv/provider/op_host/shape_util.h")) << ::testing::PrintToString(build.shared_files);
  EXPECT_FALSE(has(build.shared_files, "src/conv/provider/op_host/provider_proto.cpp")) << "not the provider's other sources";
  // The first operator in path order provides it (provider before zeta_named); an operator that
  // names its own beside source takes nothing from the tree.
  const auto named = ev::read_package_build(root / "src/conv/zeta_named", root);
  EXPECT_TRUE(has(named.host_sources, "op_host/shape_util.cpp"));
  EXPECT_TRUE(named.shared_files.empty()) << ::testing::PrintToString(named.shared_files);
  fs::remove_all(root);
}
