// A candidate may carry its own copy of a shared file its package's build reads (aopt_shared/...,
// the search changing a family's shared tiling source or kernel header): it is built instead of
// the tree's, which is never written; any other path outside op_host/ and op_kernel/ is refused.
// Fixture tree tests/integration/packages/shared_tree.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "aopt/common/error.h"
#include "aopt/common/fs.h"
#include "aopt/evaluation/candidate.h"
#include "aopt/evaluation/package.h"
#include "aopt/evaluation/package_build.h"

namespace ev = aopt::evaluation;
namespace fs = std::filesystem;

TEST(SharedCandidate, ACandidatesCopyOfASharedFileIsBuiltInsteadOfTheTrees) {
  const fs::path tree = fs::path(AOPT_TEST_SOURCE_DIR) / "tests/integration/packages/shared_tree";
  ev::package_options o;
  o.tree_root = tree;
  const auto pkg = std::make_shared<const ev::op_package>(ev::load_package(tree / "src/fixture/shared_scale", o));
  const std::string header = "src/common/inc/fixture_shared/op_kernel/scale_kernel.h";
  ASSERT_NE(std::find(pkg->shared_files.begin(), pkg->shared_files.end(), header), pkg->shared_files.end());
  const std::string tree_text = aopt::common::read_text_file(tree / header);

  ev::candidate c(pkg);
  c.replace(ev::shared_prefix + header, tree_text + "\n// the candidate's copy\n");
  EXPECT_NE(c.key("sim", "p", 1, "t"), ev::candidate(pkg).key("sim", "p", 1, "t"));
  const fs::path dir = fs::temp_directory_path() / ("aopt-shared-cand-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  c.materialize(dir);
  EXPECT_NE(aopt::common::read_text_file(dir / (ev::shared_prefix + header)).find("the candidate's copy"), std::string::npos);
  EXPECT_EQ(aopt::common::read_text_file(tree / header), tree_text) << "the tree is never written";
  fs::remove_all(dir);

  // Not a file the build reads, or outside the package: refused.
  EXPECT_THROW(c.replace(std::string(ev::shared_prefix) + "src/common/inc/not_read.h", "x"), aopt::error);
  EXPECT_THROW(c.replace("CMakeLists.txt", "x"), aopt::error);
  EXPECT_THROW(c.replace(std::string(ev::shared_prefix) + "../" + header, "x"), aopt::error);
}
