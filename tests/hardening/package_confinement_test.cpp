// A package names no file outside itself (issue 33, finding 4): aopt.json's "reference" must
// resolve, symbolic links followed, inside the directory of aopt.json; anything else is the same
// invalid_spec error naming the field, whether the file elsewhere exists or not (the message says
// nothing about the host). A reference must also be a regular file within the source size limit.
// The fuzz script of an msOpST case is held to the same rule by the same helper
// (common::resolve_under).
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "aopt/common/error.h"
#include "aopt/common/fs.h"
#include "aopt/evaluation/package.h"
#include "aopt/evaluation/spec.h"

namespace fs = std::filesystem;
namespace ev = aopt::evaluation;

namespace {

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// A copy of examples/ops/add_custom and, beside it (outside the package), a file.
class confinement : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = aopt::common::make_unique_dir(fs::temp_directory_path(), "aopt-confine-");
    fs::copy(fs::path(AOPT_TEST_SOURCE_DIR) / "examples/ops/add_custom", pkg(), fs::copy_options::recursive);
    fs::create_directories(secrets());
    aopt::common::write_text_file(outside(), "SECRET_LINE_0x5eC7;\n");
    fs::permissions(outside(), fs::perms::owner_read | fs::perms::owner_write);
  }
  void TearDown() override {
    std::error_code e;
    fs::remove_all(root_, e);
  }
  fs::path pkg() const { return root_ / "add_custom"; }
  fs::path secrets() const { return root_ / "secrets-0123456789-0123456789"; }
  fs::path outside() const { return secrets() / "secret_ref.cpp"; }
  // add_custom's aopt.json with `reference` set to `ref` (a JSON string's contents).
  void set_reference(const std::string& ref) const {
    std::string text = aopt::common::read_text_file(fs::path(AOPT_TEST_SOURCE_DIR) / "examples/ops/add_custom/aopt.json");
    const std::string from = "\"reference\": \"baseline\"";
    text.replace(text.find(from), from.size(), "\"reference\": \"" + ref + "\"");
    aopt::common::write_text_file(pkg() / "aopt.json", text);
  }
  // The aopt::error load_package throws; fails the test when it throws nothing or another type.
  std::string load_error() const {
    try {
      (void)ev::load_package(pkg());
    } catch (const aopt::error& e) {
      EXPECT_EQ(e.code(), aopt::ec::invalid_spec) << e.what();
      return e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << "not an aopt::error: " << e.what();
      return {};
    }
    ADD_FAILURE() << "the package loaded";
    return {};
  }
  fs::path root_;
};

TEST_F(confinement, AReferenceOutsideThePackageIsRefused) {
  for (const std::string& ref : {outside().string(), std::string("../secrets-0123456789-0123456789/secret_ref.cpp"),
                                 std::string("op_host/../../secrets-0123456789-0123456789/secret_ref.cpp")}) {
    set_reference(ref);
    const auto m = load_error();
    EXPECT_TRUE(has(m, "aopt.json:")) << m;
    EXPECT_TRUE(has(m, "field 'reference'")) << m;
    EXPECT_TRUE(has(m, "is outside the directory of aopt.json")) << m;
  }
}

TEST_F(confinement, AReferenceThroughASymlinkLeavingThePackageIsRefused) {
  fs::create_symlink(outside(), pkg() / "reference.cpp");
  set_reference("reference.cpp");
  const auto m = load_error();
  EXPECT_TRUE(has(m, "field 'reference'")) << m;
  EXPECT_TRUE(has(m, "is outside the directory of aopt.json")) << m;
  // A symlinked directory on the way counts too.
  fs::remove(pkg() / "reference.cpp");
  fs::create_symlink(secrets(), pkg() / "up");
  set_reference("up/secret_ref.cpp");
  EXPECT_TRUE(has(load_error(), "is outside the directory of aopt.json"));
}

TEST_F(confinement, TheAnswerIsTheSameWhetherAFileElsewhereExistsOrNot) {
  set_reference(outside().string());
  std::string there = load_error();
  const fs::path absent = secrets() / "absent_ref.cpp";  // as long as secret_ref.cpp
  set_reference(absent.string());
  std::string not_there = load_error();
  auto blank = [](std::string m, const std::string& name) {
    for (auto at = m.find(name); at != std::string::npos; at = m.find(name)) m.replace(at, name.size(), "REF");
    return m;
  };
  there = blank(there, "secret_ref.cpp");
  not_there = blank(not_there, "absent_ref.cpp");
  EXPECT_FALSE(has(there, "SECRET_LINE")) << there;
  EXPECT_EQ(there, not_there);
}

TEST_F(confinement, AReferenceInsideWorksAlsoThroughAnInnerSymlink) {
  aopt::common::write_text_file(pkg() / "refs" / "reference.cpp", "// reference\n");
  fs::create_symlink("refs/reference.cpp", pkg() / "reference.cpp");
  set_reference("reference.cpp");
  const auto p = ev::load_package(pkg());
  EXPECT_EQ(fs::path(p.spec.reference), fs::canonical(pkg() / "refs" / "reference.cpp"));
}

TEST_F(confinement, AReferenceMustBeASmallRegularFile) {
  fs::create_directories(pkg() / "dir.cpp");
  set_reference("dir.cpp");
  EXPECT_TRUE(has(load_error(), "not a regular file"));
  ASSERT_EQ(::mkfifo((pkg() / "fifo.cpp").c_str(), 0600), 0);  // reading it would block
  set_reference("fifo.cpp");
  EXPECT_TRUE(has(load_error(), "not a regular file"));
  { std::ofstream(pkg() / "big.cpp") << "// big\n"; }
  fs::resize_file(pkg() / "big.cpp", ev::max_source_file_bytes + 1);  // sparse
  set_reference("big.cpp");
  const auto m = load_error();
  EXPECT_TRUE(has(m, "more than the limit of " + std::to_string(ev::max_source_file_bytes))) << m;
}

TEST(resolve_under, ConfinesAfterSymlinks) {
  const fs::path root = aopt::common::make_unique_dir(fs::temp_directory_path(), "aopt-under-");
  fs::create_directories(root / "pkg" / "a");
  fs::create_symlink(root, root / "pkg" / "out");
  fs::create_symlink("a", root / "pkg" / "in");
  using aopt::common::resolve_under;
  const fs::path pkg = fs::canonical(root / "pkg");
  EXPECT_EQ(resolve_under(root / "pkg", "a/x.cpp"), pkg / "a" / "x.cpp");  // need not exist
  EXPECT_EQ(resolve_under(root / "pkg", "in/x.cpp"), pkg / "a" / "x.cpp");
  EXPECT_EQ(resolve_under(root / "pkg", "."), pkg);
  EXPECT_FALSE(resolve_under(root / "pkg", "out/x.cpp"));
  EXPECT_FALSE(resolve_under(root / "pkg", "../x.cpp"));
  EXPECT_FALSE(resolve_under(root / "pkg", "/etc/passwd"));
  EXPECT_FALSE(resolve_under(root / "pkgx", "x"));  // no such directory
  fs::create_directories(root / "pkg2");
  EXPECT_FALSE(resolve_under(root / "pkg", "../pkg2/x"));  // a sibling sharing the prefix
  std::error_code e;
  fs::remove_all(root, e);
}

}  // namespace
