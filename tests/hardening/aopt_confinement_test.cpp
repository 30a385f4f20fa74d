// The real `aopt eval` on a package whose aopt.json names a reference outside it (issue 33,
// finding 4): exit 2 with the field and what to do, and not a line of the file outside reaches
// the output (before, the file was compiled and its line came back in the compile error).
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "aopt/common/fs.h"
#include "aopt/common/subprocess.h"

namespace fs = std::filesystem;

namespace {

TEST(AoptConfinement, AReferenceOutsideThePackageExits2WithoutReadingIt) {
  const fs::path root = aopt::common::make_unique_dir(fs::temp_directory_path(), "aopt-confine-it-");
  const fs::path pkg = root / "add_custom";
  fs::copy(fs::path(AOPT_TEST_SOURCE_DIR) / "examples/ops/add_custom", pkg, fs::copy_options::recursive);
  const fs::path secret = root / "outside" / "secret_ref.cpp";
  fs::create_directories(secret.parent_path());
  aopt::common::write_text_file(secret, "SECRET_LINE_7f3a9c;\n");
  std::string spec = aopt::common::read_text_file(pkg / "aopt.json");
  const std::string from = "\"reference\": \"baseline\"";
  spec.replace(spec.find(from), from.size(), "\"reference\": \"" + secret.string() + "\"");
  aopt::common::write_text_file(pkg / "aopt.json", spec);

  aopt::common::process_request r;
  r.argv = {AOPT_BINARY, "eval", pkg.string(), "--cache-dir", (root / "cache").string()};
  r.limits.wall_timeout = std::chrono::seconds(240);
  r.limits.address_space_bytes = std::uint64_t(16) << 30;
  r.limits.max_output_bytes = 4 << 20;
  const auto o = aopt::common::run_process(r);
  EXPECT_EQ(o.end, aopt::common::process_end::exited) << o.describe();
  EXPECT_EQ(o.exit_code, 2) << o.err.substr(0, 2000) << o.out.substr(0, 2000);
  EXPECT_NE(o.err.find("field 'reference'"), std::string::npos) << o.err.substr(0, 2000);
  EXPECT_NE(o.err.find("is outside the directory of aopt.json"), std::string::npos) << o.err.substr(0, 2000);
  EXPECT_EQ(o.err.find("SECRET_LINE"), std::string::npos) << o.err.substr(0, 2000);
  EXPECT_EQ(o.out.find("SECRET_LINE"), std::string::npos) << o.out.substr(0, 2000);
  std::error_code e;
  fs::remove_all(root, e);
}

}  // namespace
