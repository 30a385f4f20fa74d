// Hostile operator packages and specs (issue 12): each must end in aopt::error naming the file
// and what to do, never a crash, a std::filesystem/nlohmann exception or an unbounded read.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <algorithm>
#include <fstream>
#include <functional>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include "aopt/common/error.h"
#include "aopt/common/fs.h"
#include "aopt/common/json.h"
#include "aopt/evaluation/candidate.h"
#include "aopt/evaluation/package.h"
#include "aopt/evaluation/result.h"
#include "aopt/evaluation/spec.h"

namespace fs = std::filesystem;
namespace ev = aopt::evaluation;

namespace {

// The aopt::error `fn` throws (code and message); fails the test when it throws anything else
// or nothing.
struct caught {
  aopt::ec code = aopt::ec::ok;
  std::string message;
};
caught error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const aopt::error& e) {
    return {e.code(), e.what()};
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not an aopt::error: " << typeid(e).name() << ": " << e.what();
    return {};
  }
  ADD_FAILURE() << "no error";
  return {};
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// A copy of examples/ops/add_custom in a fresh temporary directory (mode 0755: a test may read
// it as another user), removed at the end.
class package_copy {
 public:
  package_copy() {
    root_ = aopt::common::make_unique_dir(fs::temp_directory_path(), "aopt-bad-input-");
    fs::permissions(root_, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                               fs::perms::others_read | fs::perms::others_exec);
    fs::copy(fs::path(AOPT_TEST_SOURCE_DIR) / "examples/ops/add_custom", dir(), fs::copy_options::recursive);
  }
  ~package_copy() {
    std::error_code e;
    fs::permissions(dir() / "op_kernel", fs::perms::owner_all, e);
    fs::remove_all(root_, e);
  }
  fs::path dir() const { return root_ / "add_custom"; }
  void write(const std::string& rel, const std::string& text) const { aopt::common::write_text_file(dir() / rel, text); }

 private:
  fs::path root_;
};

const std::string k_case_tail =
    R"(, "timed": true, "inputs": {"x": {"shape": [4], "dtype": "float16"}, "y": {"shape": [4], "dtype": "float16"}}}]})";

std::string spec_with_case_name(const std::string& name) {
  return R"({"kernel": "add_custom", "cases": [{"name": ")" + name + "\"" + k_case_tail;
}

}  // namespace

TEST(BadInput, DeepNestingIsAParseErrorNotACrash) {
  // 50,000 levels segfaulted aopt (the recursive position locator).
  const std::string deep = std::string(50000, '[') + std::string(50000, ']');
  const std::string text = "{\"kernel\": \"add_custom\",\n \"description\": " + deep + "}";
  const auto e = error_of([&] { ev::parse_op_spec(text, "pkg/aopt.json"); });
  EXPECT_EQ(e.code, aopt::ec::parse_error);
  EXPECT_TRUE(has(e.message, "pkg/aopt.json:2:" + std::to_string(16 + aopt::common::max_json_depth) + ":")) << e.message;
  EXPECT_TRUE(has(e.message, "nested deeper than 256 levels")) << e.message;
  // The same for an msOpST file, and for an unterminated one (the pre-scan sees raw text).
  EXPECT_TRUE(has(error_of([&] { ev::parse_msopst_cases(deep, "st.json", "k"); }).message, "st.json:1:257:"));
  EXPECT_TRUE(has(error_of([&] { ev::parse_op_spec(std::string(50000, '{'), "a.json"); }).message, "nested deeper"));
  // Nesting at the limit is still JSON.
  const std::string ok = std::string(aopt::common::max_json_depth, '[') + std::string(aopt::common::max_json_depth, ']');
  EXPECT_NO_THROW(aopt::common::parse_json_doc(ok, "ok.json"));
}

TEST(BadInput, NumberOverflowNamesFileLineAndField) {
  // 1e400 was nlohmann's out_of_range: "internal error", exit 3.
  const std::string text = "{\"kernel\": \"add_custom\",\n \"tolerance\": {\"float16\": {\"rtol\": 1e400}}}";
  const auto e = error_of([&] { ev::parse_op_spec(text, "pkg/aopt.json"); });
  EXPECT_EQ(e.code, aopt::ec::parse_error);
  EXPECT_TRUE(has(e.message, "pkg/aopt.json:2:36: field '/tolerance/float16/rtol': number 1e400 does not fit")) << e.message;
  EXPECT_TRUE(has(error_of([&] { ev::parse_msopst_cases("[{\"case_name\": -1e999}]", "st.json", "k"); }).message,
                  "st.json:1:16: field '/0/case_name'"));
}

TEST(BadInput, SymlinkLoopInThePackageIsNamed) {
  package_copy p;
  fs::create_symlink("loop.h", p.dir() / "op_kernel" / "loop.h");
  const auto e = error_of([&] { ev::load_package(p.dir()); });
  EXPECT_EQ(e.code, aopt::ec::io_error);
  EXPECT_TRUE(has(e.message, (p.dir() / "op_kernel" / "loop.h").string())) << e.message;
  EXPECT_TRUE(has(e.message, "symbolic link loop: remove or fix the link")) << e.message;
}

TEST(BadInput, UnreadableKernelDirectoryIsNamed) {
  // Root reads a chmod-000 directory anyway, so as root the load runs in a child process that
  // became `nobody` (uid 65534); it reports the message through a pipe.
  package_copy p;
  fs::permissions(p.dir() / "op_kernel", fs::perms::none);
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(fds[0]);
    if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(9);
    std::string msg = "no error";
    try {
      ev::load_package(p.dir());
    } catch (const aopt::error& e) {
      msg = std::string(aopt::to_string(e.code())) + ": " + e.what();
    } catch (const std::exception& e) {
      msg = std::string("not an aopt::error: ") + e.what();
    }
    (void)!write(fds[1], msg.data(), msg.size());
    _exit(0);
  }
  close(fds[1]);
  std::string msg;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) msg.append(buf, static_cast<std::size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  EXPECT_TRUE(has(msg, "io_error: " + (p.dir() / "op_kernel").string())) << msg;
  EXPECT_TRUE(has(msg, "permission denied: make it readable")) << msg;
}

TEST(BadInput, LongOrPathLikeNamesAreRefusedWithTheLimit) {
  // A 10 MB case name became "File name too long" when the run directory was made.
  const std::string huge(10 << 20, 'c');
  const auto e = error_of([&] { ev::parse_op_spec(spec_with_case_name(huge), "pkg/aopt.json"); });
  EXPECT_EQ(e.code, aopt::ec::invalid_spec);
  EXPECT_TRUE(has(e.message, "pkg/aopt.json:1:45: field 'cases[0].name'")) << e.message.substr(0, 300);
  EXPECT_TRUE(has(e.message, "longer than the limit of 128 bytes")) << e.message.substr(0, 300);
  EXPECT_LT(e.message.size(), 400u);  // the name is not echoed whole
  EXPECT_NO_THROW(ev::parse_op_spec(spec_with_case_name(std::string(128, 'c')), "pkg/aopt.json"));
  // Tensor names become file names too (out_<name>.bin).
  const std::string bad_input = R"({"kernel": "k", "cases": [{"name": "c", "timed": true,
      "inputs": {"../../x": {"shape": [4], "dtype": "float16"}}}]})";
  EXPECT_TRUE(has(error_of([&] { ev::parse_op_spec(bad_input, "a.json"); }).message,
                  "field 'cases[0].inputs.../../x': input name: \"../../x\" contains a slash"));
  const std::string long_output = R"({"kernel": "k", "cases": [{"name": "c", "timed": true,
      "inputs": {"x": {"shape": [4], "dtype": "float16"}}, "outputs": {")" + std::string(200, 'z') + R"(": {}}}]})";
  EXPECT_TRUE(has(error_of([&] { ev::parse_op_spec(long_output, "a.json"); }).message, "output name: "));
  const std::string st = R"([{"case_name": ")" + huge + R"(", "input_desc": [{"type": "float16", "shape": [4]}]}])";
  EXPECT_TRUE(has(error_of([&] { ev::parse_msopst_cases(st, "st.json", "k"); }).message, "case_name: \"cccc"));
}

TEST(BadInput, CaseMemoryIsCheckedBeforeAnythingIsAllocated) {
  // [65536, 65536] got aopt killed beyond 4 GiB; 1e12 elements ended in std::bad_alloc.
  const std::string text = R"({"kernel": "add_custom", "cases": [{"name": "big", "timed": true,
      "inputs": {"x": {"shape": [65536, 65536], "dtype": "float16"}, "y": {"shape": [16], "dtype": "float16"}}}]})";
  const auto spec = ev::parse_op_spec(text, "pkg/aopt.json");
  const std::uint64_t memory = std::uint64_t(8) << 30;
  EXPECT_EQ(ev::case_bytes_limit(memory), std::uint64_t(4) << 30);
  const auto e = error_of([&] { ev::check_case_memory(spec, memory); });
  EXPECT_EQ(e.code, aopt::ec::invalid_spec);
  EXPECT_TRUE(has(e.message, "pkg/aopt.json: case 'big': its tensors take 8589934624 bytes (8.0 GiB), more than the "
                             "limit of 4294967296 bytes (4.0 GiB)")) << e.message;
  EXPECT_TRUE(has(e.message, "the largest is 'x' [65536,65536] float16: 8589934592 bytes")) << e.message;
  EXPECT_TRUE(has(e.message, "--memory-limit")) << e.message;
  EXPECT_NO_THROW(ev::check_case_memory(spec, std::uint64_t(32) << 30));
  // Element counts cannot overflow: msOpST shapes are capped like aopt.json's, numel saturates.
  const std::string st = R"([{"case_name": "c", "input_desc": [{"type": "float16", "shape": [4294967296, 4294967296, 4294967296]}]}])";
  EXPECT_TRUE(has(error_of([&] { ev::parse_msopst_cases(st, "st.json", "k"); }).message, "more than 2^40 elements"));
  ev::tensor_spec t;
  t.shape = {std::int64_t(1) << 40, std::int64_t(1) << 40};
  EXPECT_EQ(t.numel(), std::numeric_limits<std::int64_t>::max());
}

TEST(BadInput, StrayLargeFileIsNeitherReadNorHashed) {
  // A 2 GiB stray file in op_kernel/ was read whole into memory. Here a sparse 3 GiB file.
  package_copy p;
  const auto stray = p.dir() / "op_kernel" / "weights.bin";
  { std::ofstream(stray).flush(); }
  fs::resize_file(stray, std::uintmax_t(3) << 30);
  const auto start = std::chrono::steady_clock::now();
  auto pkg = std::make_shared<const ev::op_package>(ev::load_package(p.dir()));
  const auto files = pkg->source_files();
  EXPECT_EQ(std::count(files.begin(), files.end(), "op_kernel/weights.bin"), 0);
  ev::candidate c(pkg);
  EXPECT_EQ(c.key("sim", "910b4", 1, "t").size(), 64u);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

TEST(BadInput, OversizedSourceFileIsRefusedUnread) {
  package_copy p;
  const auto big = p.dir() / "op_kernel" / "big.h";
  { std::ofstream(big).flush(); }
  fs::resize_file(big, std::uintmax_t(3) << 30);
  const auto start = std::chrono::steady_clock::now();
  const auto e = error_of([&] { ev::load_package(p.dir()); });
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  EXPECT_EQ(e.code, aopt::ec::invalid_spec);
  EXPECT_TRUE(has(e.message, big.string() + ": 3221225472 bytes, more than the limit of 16777216 bytes")) << e.message;
  // A FIFO named aopt.json is refused, not read (reading it would block).
  package_copy q;
  fs::remove(q.dir() / "aopt.json");
  ASSERT_EQ(mkfifo((q.dir() / "aopt.json").c_str(), 0644), 0);
  EXPECT_TRUE(has(error_of([&] { ev::load_op_spec(q.dir() / "aopt.json"); }).message, "not a regular file"));
}

TEST(BadInput, WrongTypesInMsOpStAreSpecErrors) {
  // nlohmann's type_error from get<>() escaped as an internal error.
  for (const std::string st : {R"([{"case_name": "c", "input_desc": [{"type": [1], "shape": [4]}]}])",
                               R"([{"case_name": "c", "input_desc": [{"type": "float16", "shape": [4]}],
                                    "attr": [{"name": 7, "value": 1}]}])",
                               R"([{"case_name": "c", "input_desc": [{"type": "float16", "shape": [4]}],
                                    "output_desc": [{"type": [2]}]}])"}) {
    const auto e = error_of([&] { ev::parse_msopst_cases(st, "st.json", "k"); });
    EXPECT_EQ(e.code, aopt::ec::invalid_spec) << st;
    EXPECT_TRUE(has(e.message, "st.json")) << e.message;
  }
}

TEST(BadInput, ResultRecordWithInvalidUtf8StillDumps) {
  // A source of random bytes: the compiler quotes them, the cache's dump threw type_error 316.
  ev::eval_result r;
  r.status = "compile_error";
  r.diagnostic = std::string("op_kernel/add_custom.cpp:1:1: error: stray '\xff' in program \xc3");
  ev::case_result c;
  c.diagnostic = "\xed\xa0\x80";  // a UTF-16 surrogate encoded as UTF-8: invalid
  r.cases.push_back(c);
  std::string text;
  ASSERT_NO_THROW(text = r.to_json().dump());
  EXPECT_TRUE(has(text, "stray '\xef\xbf\xbd' in program \xef\xbf\xbd")) << text;
}

TEST(BadInput, ValidUtf8ReplacesOnlyMalformedBytes) {
  using aopt::common::valid_utf8;
  const std::string rep = "\xef\xbf\xbd";
  const std::vector<std::pair<std::string, std::string>> table = {
      {"plain ascii", "plain ascii"},
      {"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"},  // é € 😀
      {"\xc0\xaf", rep + rep},                                                            // overlong '/'
      {"\xe0\x80\xaf", rep + rep + rep},                                                  // overlong
      {"\xf4\x90\x80\x80", rep + rep + rep + rep},                                        // > U+10FFFF
      {"a\xe2\x82", "a" + rep + rep},                                                     // truncated
      {"\x80z", rep + "z"},
  };
  for (const auto& [in, want] : table) EXPECT_EQ(valid_utf8(in), want) << in;
}
