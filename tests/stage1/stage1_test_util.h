// Helpers of the Stage I tests: fixture packages under tests/stage1/data, temporary
// directories, and g++ syntax checks of instantiated sources.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "aopt/stage1/tiling_template.h"

namespace aopt::stage1::test {

inline std::filesystem::path source_dir() {
  const char* s = std::getenv("AOPT_SOURCE_DIR");
  return s != nullptr ? std::filesystem::path(s) : std::filesystem::path(AOPT_STAGE1_SOURCE_DIR);
}
inline std::filesystem::path data_dir() { return source_dir() / "tests" / "stage1" / "data"; }
// A fixture package by name: the real operators of examples/ops are used as they are (no
// copies); the rest (reformatted, renamed, subsets) live under tests/stage1/data.
inline std::filesystem::path package_dir(const std::string& name) {
  const auto ops = source_dir() / "examples" / "ops";
  if (name == "add_custom") return ops / "add_custom";
  if (name == "mul" || name == "reduce_sum") return ops / name / "baseline";
  return data_dir() / name;
}

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// op_host/* as host files and op_kernel/* as kernel files, paths relative to the package, in
// sorted order.
inline synthesis_input load_package(const std::string& name) {
  synthesis_input in;
  const auto root = package_dir(name);
  for (const char* sub : {"op_host", "op_kernel"}) {
    if (!std::filesystem::exists(root / sub)) continue;
    std::map<std::string, std::string> files;
    for (const auto& e : std::filesystem::directory_iterator(root / sub)) {
      files[std::string(sub) + "/" + e.path().filename().string()] = read_text(e.path());
    }
    for (auto& [p, c] : files) {
      (std::string(sub) == "op_host" ? in.host_files : in.kernel_files).push_back({p, c});
    }
  }
  return in;
}

// A fresh directory under the system temp dir, removed at scope exit.
class temp_dir {
 public:
  temp_dir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "aopt_stage1_XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data());
  }
  ~temp_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Copies fixture package `name` to dir, overwrites `files`, and runs g++ -fsyntax-only on
// `check` (a path in the package). Returns the compiler's exit status; `log` gets its output.
inline int syntax_check(const std::string& name, const std::map<std::string, std::string>& files,
                        const std::string& check, const std::string& extra_flags, std::string& log) {
  temp_dir dir;
  std::filesystem::copy(package_dir(name), dir.path(), std::filesystem::copy_options::recursive);
  for (const auto& [p, c] : files) {
    std::ofstream(dir.path() / p, std::ios::binary | std::ios::trunc) << c;
  }
  const std::string out = (dir.path() / "gcc.log").string();
  const std::string cmd = "cd '" + dir.path().string() + "' && g++ -std=c++17 -fsyntax-only -I'" +
                          (source_dir() / "sim" / "include").string() + "' " + extra_flags + " '" + check +
                          "' > '" + out + "' 2>&1";
  const int rc = std::system(cmd.c_str());
  log = read_text(out);
  return rc;
}

}  // namespace aopt::stage1::test
