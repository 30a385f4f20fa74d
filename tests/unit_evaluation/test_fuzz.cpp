// Running msOpST fuzz functions (evaluation/fuzz.h) in the sandboxed interpreter: seeded and
// reproducible, and every way a script can fail is an error naming the file, case and function.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "aopt/common/error.h"
#include "aopt/common/subprocess.h"
#include "aopt/evaluation/fuzz.h"

namespace ev = aopt::evaluation;
namespace fs = std::filesystem;

namespace {

bool python_has_numpy() {
  aopt::common::process_request r;
  r.argv = {ev::fuzz_python(), "-c", "import numpy"};
  r.limits.wall_timeout = std::chrono::seconds(60);
  return aopt::common::run_process(r).ok();
}

class Fuzz : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!python_has_numpy()) {
      GTEST_SKIP() << ev::fuzz_python() << " cannot import numpy: install python3-numpy (scripts/install-deps.sh) to run these tests";
    }
    dir_ = fs::temp_directory_path() / ("aopt-fuzz-test-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "tests" / "st");
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  void write(const fs::path& rel, const std::string& text) {
    fs::create_directories((dir_ / rel).parent_path());
    std::ofstream(dir_ / rel) << text;
  }
  // Case file with `n` fuzz cases calling fuzz.py:FUNCTION (`calls` calls each).
  std::vector<ev::msopst_fuzz_request> requests(const std::string& function, int calls = 1, int n = 1) {
    std::string text = "[";
    for (int i = 0; i < n; ++i) {
      text += std::string(i ? "," : "") + R"({"case_name": "c)" + std::to_string(i) + R"(", "fuzz_impl": "fuzz.py:)" + function +
              R"(", "fuzz_case_num": )" + std::to_string(calls) +
              R"(, "input_desc": [{"name": "x", "type": "float", "shape": "fuzz", "value": "fuzz"}]})";
    }
    text += "]";
    write("tests/st/X_case.json", text);
    return ev::msopst_fuzz_requests(text, case_file());
  }
  fs::path case_file() const { return dir_ / "tests" / "st" / "X_case.json"; }
  std::string error_of(const std::vector<ev::msopst_fuzz_request>& rs, ev::fuzz_run_options o = {}) {
    try {
      ev::run_msopst_fuzz(rs, case_file(), dir_, o);
    } catch (const aopt::error& e) {
      return e.what();
    }
    return "no error";
  }
  fs::path dir_;
};

const char* random_rows = R"(
import numpy as np
from helper import width
def rows():
    n = int(np.random.randint(1, 1000))
    return {"input_desc": {"x": {"shape": [n, width()], "value": np.random.rand(n, width()).astype(np.float32)}}}
)";

}  // namespace

TEST_F(Fuzz, SeededCallsAreReproducibleAndDifferPerCase) {
  write("tests/st/fuzz.py", random_rows);
  write("tests/st/helper.py", "def width():\n    return 3\n");
  const auto rs = requests("rows", 2, 2);
  const auto a = ev::run_msopst_fuzz(rs, case_file(), dir_);
  const auto b = ev::run_msopst_fuzz(rs, case_file(), dir_);
  ASSERT_EQ(a.size(), 2u);
  ASSERT_EQ(a.at(0).calls.size(), 2u);
  EXPECT_EQ(a.at(0).origin, "fuzz.py:rows (numpy seed 1)");
  EXPECT_EQ(a.at(1).origin, "fuzz.py:rows (numpy seed 2)");
  for (std::size_t i = 0; i < 2; ++i) {
    for (std::size_t k = 0; k < 2; ++k) EXPECT_EQ(a.at(i).calls[k], b.at(i).calls[k]) << "case " << i << " call " << k;
  }
  const auto& x = a.at(0).calls[0]["input_desc"]["x"];
  EXPECT_EQ(x["shape"][1], 3) << "helper.py imported from the script's directory";
  EXPECT_EQ(x["value"].size(), x["shape"][0].get<std::size_t>()) << "an ndarray became nested lists";
  EXPECT_NE(a.at(0).calls[0], a.at(0).calls[1]) << "the calls of one case continue the same generator";
  EXPECT_NE(a.at(0).calls[0], a.at(1).calls[0]) << "another case, another seed";
}

TEST_F(Fuzz, TheParsedCasesCarryTheValues) {
  write("tests/st/fuzz.py", random_rows);
  write("tests/st/helper.py", "def width():\n    return 2\n");
  const auto rs = requests("rows");
  const auto out = ev::run_msopst_fuzz(rs, case_file(), dir_);
  ev::fuzz_run_options unisolated;  // --no-sandbox: limits only, the same data
  unisolated.isolate = false;
  EXPECT_EQ(ev::run_msopst_fuzz(rs, case_file(), dir_, unisolated).at(0).calls, out.at(0).calls);
  std::ifstream in(case_file());
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  const auto spec = ev::parse_msopst_cases(text, case_file(), "x", out);
  ASSERT_EQ(spec.cases.size(), 1u);
  const auto& t = spec.cases[0].inputs.at(0).tensors.at(0);
  EXPECT_EQ(t.shape.at(1), 2);
  EXPECT_EQ(static_cast<std::int64_t>(t.values.size()), t.numel());
  EXPECT_GT(t.values.front(), 0.0);
  EXPECT_LT(t.values.front(), 1.0);
}

TEST_F(Fuzz, ScriptErrorsNameFileCaseAndFunction) {
  const std::vector<std::tuple<std::string, std::string, std::string>> scripts = {
      {"def f():\n    raise ValueError('no shape for you')\n", "f", "ValueError: no shape for you"},
      {"import os\ndef f():\n    os.write(1, b'hello')\n    return {}\n", "f", "not JSON ('hello[{}]'"},
      {"def f():\n    return {'x': float('nan')}\n", "f", "Out of range float values are not JSON compliant"},
      {"def f():\n    return {'x': object()}\n", "f", "a object is not JSON"},
      {"def g():\n    return {}\n", "f", "defines no function f"},
      {"import not_a_module_anywhere\ndef f():\n    return {}\n", "f", "No module named 'not_a_module_anywhere'"},
  };
  for (const auto& [script, function, want] : scripts) {
    write("tests/st/fuzz.py", script);
    const auto e = error_of(requests(function));
    EXPECT_NE(e.find("X_case.json:1:"), std::string::npos) << e;
    EXPECT_NE(e.find("case c0: fuzz.py:" + function + " (numpy seed 1)"), std::string::npos) << e;
    EXPECT_NE(e.find(want), std::string::npos) << "want '" << want << "' in: " << e;
  }
}

TEST_F(Fuzz, TheScriptSeesItsPackageReadOnly) {
  if (!aopt::common::probe_isolation().namespaces) GTEST_SKIP() << "no namespaces here: " << aopt::common::probe_isolation().why;
  write("tests/st/fuzz.py", "import os\ndef f():\n    open(os.path.join(os.path.dirname(__file__), 'new.txt'), 'w')\n");
  const auto e = error_of(requests("f"));
  EXPECT_NE(e.find("Read-only file system"), std::string::npos) << e;
  EXPECT_FALSE(fs::exists(dir_ / "tests" / "st" / "new.txt"));
}

TEST_F(Fuzz, MissingScriptAndEndlessLoop) {
  auto e = error_of(requests("f"));
  EXPECT_NE(e.find("fuzz.py: no such script"), std::string::npos) << e;
  write("tests/st/fuzz.py", "def f():\n    while True:\n        pass\n");
  ev::fuzz_run_options o;
  o.timeout_seconds = 1;
  e = error_of(requests("f"), o);
  EXPECT_NE(e.find("case c0: fuzz.py:f"), std::string::npos) << e;
  EXPECT_TRUE(e.find("did not finish within 1 s") != std::string::npos || e.find("CPU time limit") != std::string::npos) << e;
}

TEST_F(Fuzz, MissingInterpreterOrNumpySaysWhatToInstall) {
  write("tests/st/fuzz.py", "def f():\n    return {}\n");
  const auto rs = requests("f");
  const std::string real = ev::fuzz_python();
  const char* old = std::getenv("AOPT_PYTHON");
  const std::string saved = old ? old : "";
  ::setenv("AOPT_PYTHON", (dir_ / "no-such-python3").c_str(), 1);
  auto e = error_of(rs);
  EXPECT_NE(e.find("cannot run the Python interpreter"), std::string::npos) << e;
  EXPECT_NE(e.find("apt-get install python3-numpy"), std::string::npos) << e;
  EXPECT_NE(e.find("AOPT_PYTHON"), std::string::npos) << e;
  // An interpreter whose `import numpy` fails.
  const fs::path fake = dir_ / "py" / "bin" / "python3";
  write("py/bin/python3", "#!/bin/sh\nshift 3\ncode=\"import sys; sys.modules['numpy'] = None\n$1\"\nshift\nexec " + real +
                              " -I -B -c \"$code\" \"$@\"\n");
  fs::permissions(fake, fs::perms::owner_all);
  ::setenv("AOPT_PYTHON", fake.c_str(), 1);
  e = error_of(rs);
  if (old) ::setenv("AOPT_PYTHON", saved.c_str(), 1);
  else ::unsetenv("AOPT_PYTHON");
  EXPECT_NE(e.find("has no numpy"), std::string::npos) << e;
  EXPECT_NE(e.find("apt-get install python3-numpy"), std::string::npos) << e;
}

TEST(FuzzPython, PrefersAoptPythonThenDebians) {
  const char* old = std::getenv("AOPT_PYTHON");
  const std::string saved = old ? old : "";
  ::setenv("AOPT_PYTHON", "/opt/py/bin/python3", 1);
  EXPECT_EQ(ev::fuzz_python(), "/opt/py/bin/python3");
  ::setenv("AOPT_PYTHON", "sh", 1);
  EXPECT_TRUE(fs::path(ev::fuzz_python()).is_absolute()) << "a name is looked up in PATH: " << ev::fuzz_python();
  ::unsetenv("AOPT_PYTHON");
  if (fs::exists("/usr/bin/python3")) {
    EXPECT_EQ(ev::fuzz_python(), "/usr/bin/python3");
  }
  if (old) ::setenv("AOPT_PYTHON", saved.c_str(), 1);
}
