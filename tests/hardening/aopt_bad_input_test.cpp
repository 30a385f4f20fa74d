// The real `aopt eval` on hostile packages (issue 12): bad input exits 2 with the file and what
// to do on stderr (and, with --json, an error record on stdout); a source of random bytes is a
// compile_error result (exit 1) whose --json record is valid JSON. Never a signal, never 3.
#include <unistd.h>

#include <filesystem>
#include <random>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "aopt/common/fs.h"
#include "aopt/common/subprocess.h"

namespace fs = std::filesystem;
using aopt::common::process_outcome;

namespace {

class AoptBadInput : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = aopt::common::make_unique_dir(fs::temp_directory_path(), "aopt-bad-it-");
    fs::copy(fs::path(AOPT_TEST_SOURCE_DIR) / "examples/ops/add_custom", pkg(), fs::copy_options::recursive);
  }
  void TearDown() override {
    std::error_code e;
    fs::remove_all(root_, e);
  }
  fs::path pkg() const { return root_ / "add_custom"; }
  void write_spec(const std::string& text) const { aopt::common::write_text_file(pkg() / "aopt.json", text); }

  process_outcome eval(std::vector<std::string> extra = {}) const {
    aopt::common::process_request r;
    r.argv = {AOPT_BINARY, "eval", pkg().string(), "--cache-dir", (root_ / "cache").string()};
    r.argv.insert(r.argv.end(), extra.begin(), extra.end());
    r.limits.wall_timeout = std::chrono::seconds(240);
    r.limits.address_space_bytes = std::uint64_t(16) << 30;
    r.limits.max_output_bytes = 4 << 20;
    return aopt::common::run_process(r);
  }
  // Exit code 2 with `what` and the spec file on stderr; and the same as a JSON record with --json.
  void expect_bad_input(const std::string& what) const {
    const auto o = eval();
    EXPECT_EQ(o.end, aopt::common::process_end::exited) << o.describe() << "\n" << o.err.substr(0, 2000);
    EXPECT_EQ(o.exit_code, 2) << o.err.substr(0, 2000);
    EXPECT_NE(o.err.find(what), std::string::npos) << o.err.substr(0, 2000);
    const auto j = eval({"--json"});
    EXPECT_EQ(j.exit_code, 2);
    nlohmann::json rec;
    ASSERT_NO_THROW(rec = nlohmann::json::parse(j.out)) << j.out.substr(0, 2000);
    EXPECT_EQ(rec["status"], "error");
    EXPECT_NE(rec["error"]["message"].get<std::string>().find(what), std::string::npos) << rec.dump(2).substr(0, 2000);
  }
  const std::string tail_ =
      R"(, "timed": true, "inputs": {"x": {"shape": [64], "dtype": "float16"}, "y": {"shape": [64], "dtype": "float16"}}}]})";
  fs::path root_;
};

}  // namespace

TEST_F(AoptBadInput, DeepNestingExits2) {  // was a segfault
  write_spec("{\"kernel\": \"add_custom\", \"description\": " + std::string(50000, '[') + std::string(50000, ']') + "}");
  expect_bad_input("aopt.json:1:");
  expect_bad_input("nested deeper than 256 levels");
}

TEST_F(AoptBadInput, NumberOverflowExits2) {  // was "internal error", exit 3
  write_spec(R"({"kernel": "add_custom", "tolerance": {"float16": {"atol": 1e400}}, "cases": [{"name": "c")" + tail_);
  expect_bad_input("field '/tolerance/float16/atol': number 1e400 does not fit in a double");
}

TEST_F(AoptBadInput, SymlinkLoopExits2) {  // was "internal error", exit 3
  fs::create_symlink("self.h", pkg() / "op_kernel" / "self.h");
  expect_bad_input("op_kernel/self.h: cannot read this part of the operator package");
}

TEST_F(AoptBadInput, TenMegabyteCaseNameExits2) {  // was "File name too long", exit 3
  write_spec(R"({"kernel": "add_custom", "cases": [{"name": ")" + std::string(10 << 20, 'n') + "\"" + tail_);
  expect_bad_input("field 'cases[0].name': \"nnnn");
  expect_bad_input("longer than the limit of 128 bytes");
}

TEST_F(AoptBadInput, HugeShapesExit2BeforeAllocating) {
  // [65536, 65536] had aopt killed beyond 4 GiB; 1e12 elements ended in std::bad_alloc.
  write_spec(R"({"kernel": "add_custom", "cases": [{"name": "big", "timed": true,
    "inputs": {"x": {"shape": [65536, 65536], "dtype": "float16"}, "y": {"shape": [65536, 65536], "dtype": "float16"}}}]})");
  expect_bad_input("case 'big': its tensors take 17179869184 bytes (16.0 GiB), more than the limit of 4294967296 bytes");
  write_spec(R"({"kernel": "add_custom", "cases": [{"name": "big", "timed": true,
    "inputs": {"x": {"shape": [1000000, 1000000], "dtype": "float16"}, "y": {"shape": [1], "dtype": "float16"}}}]})");
  expect_bad_input("the largest is 'x' [1000000,1000000] float16: 2000000000000 bytes");
}

TEST_F(AoptBadInput, RandomBytesSourceIsACompileErrorWithValidJson) {
  // The compiler quoted the bytes; the cache refused the invalid UTF-8: exit 3, nothing printed.
  std::mt19937_64 rng(12);  // seed 12
  std::string bytes(4096, '\0');
  for (auto& c : bytes) c = static_cast<char>(rng());
  aopt::common::write_text_file(pkg() / "op_kernel" / "add_custom.cpp", bytes);
  write_spec(R"({"kernel": "add_custom", "cases": [{"name": "c")" + tail_);
  const auto o = eval({"--json"});
  EXPECT_EQ(o.end, aopt::common::process_end::exited) << o.describe();
  EXPECT_EQ(o.exit_code, 1) << o.err.substr(0, 2000);  // a failed candidate, as for any compile error
  nlohmann::json r;
  ASSERT_NO_THROW(r = nlohmann::json::parse(o.out)) << o.out.substr(0, 2000) << "\n" << o.err.substr(0, 2000);
  EXPECT_EQ(r["status"], "compile_error");
  EXPECT_NE(r["diagnostic"].get<std::string>().find("does not compile"), std::string::npos) << r["diagnostic"];
  // The second run reads the cached record back: the cache stored it.
  const auto again = eval({"--json"});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_TRUE(nlohmann::json::parse(again.out).value("cached", false)) << again.out.substr(0, 500);
}

TEST_F(AoptBadInput, UnreadableDirectoryOnPathIsSkipped) {
  // Was "internal error: filesystem error: status: Permission denied [/root/.cargo/bin/ccache]",
  // exit 3, for a user whose PATH held a directory it may not enter (looking for ccache).
  const fs::path locked = root_ / "locked";
  fs::create_directories(locked / "bin");
  write_spec(R"({"kernel": "add_custom", "cases": [{"name": "c")" + tail_);
  aopt::common::process_request r;
  const std::string path = (locked / "bin").string() + ":/usr/bin:/bin";
  r.env = {{"PATH", path}, {"HOME", root_.string()}, {"TMPDIR", root_.string()}};
  r.argv = {AOPT_BINARY, "eval", pkg().string(), "--cache-dir", (root_ / "cache").string()};
  if (::getuid() == 0) {  // root enters any directory: run as nobody, for whom `locked` (0700, root's) is closed
    if (!fs::exists("/usr/bin/setpriv")) GTEST_SKIP() << "running as root without setpriv to drop to another user";
    fs::permissions(root_, fs::perms::all);
    for (const auto& e : fs::recursive_directory_iterator(root_)) {
      if (e.path().string().rfind(locked.string(), 0) == 0) continue;
      fs::permissions(e.path(), e.is_directory() ? fs::perms::all : fs::perms(0666));
    }
    fs::permissions(locked, fs::perms::owner_all);
    r.argv.insert(r.argv.begin(), {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"});
  } else {
    fs::permissions(locked, fs::perms::none);
  }
  r.limits.wall_timeout = std::chrono::seconds(240);
  r.limits.max_output_bytes = 4 << 20;
  const auto o = aopt::common::run_process(r);
  fs::permissions(locked, fs::perms::owner_all);
  EXPECT_EQ(o.end, aopt::common::process_end::exited) << o.describe();
  EXPECT_EQ(o.exit_code, 0) << o.err.substr(0, 2000) << o.out.substr(0, 2000);
  EXPECT_EQ(o.err.find("internal error"), std::string::npos) << o.err.substr(0, 2000);
}
