// The files a search of a package in a tree may read and change (jobs::load_files): its own, the
// shared sources its host libraries compile, the shared kernel headers, and the shared headers its
// host code includes (a tiling class written in its header: Stage I's synthesis slices it).
// Fixture tree tests/integration/packages/shared_tree.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "aopt/evaluation/package.h"
#include "aopt/evaluation/package_build.h"
#include "aopt/jobs/sim_slots.h"

namespace ev = aopt::evaluation;
namespace fs = std::filesystem;

TEST(SearchFiles, TheSharedHeadersTheHostCodeIncludesAreRead) {
  const fs::path tree = fs::path(AOPT_DAEMON_SOURCE_DIR) / "tests/integration/packages/shared_tree";
  ev::package_options o;
  o.tree_root = tree;
  const auto pkg = ev::load_package(tree / "src/fixture/shared_scale", o);
  const auto files = aopt::jobs::load_files(pkg);
  std::string paths;
  for (const auto& [p, text] : files) paths += p + "\n";
  const std::string shared(ev::shared_prefix);
  // The shared tiling source, and the kernel header the kernel includes (as before).
  EXPECT_EQ(files.count(shared + "src/common/src/fixture_shared/scale_tiling_func.cpp"), 1u) << paths;
  EXPECT_EQ(files.count(shared + "src/common/inc/fixture_shared/op_kernel/scale_kernel.h"), 1u) << paths;
  // The header the shared source includes through the host include directory, and the one that
  // header includes in turn.
  EXPECT_EQ(files.count(shared + "src/common/inc/fixture_shared/scale_tiling_func.h"), 1u) << paths;
  EXPECT_EQ(files.count(shared + "src/common/inc/fixture_shared/scale_tiling_def.h"), 1u) << paths;
  // Never a file outside what the build reads.
  for (const auto& [p, text] : files) {
    if (p.rfind(shared, 0) != 0) continue;
    const std::string rel = p.substr(shared.size());
    EXPECT_NE(std::find(pkg.shared_files.begin(), pkg.shared_files.end(), rel), pkg.shared_files.end()) << rel;
  }
}
