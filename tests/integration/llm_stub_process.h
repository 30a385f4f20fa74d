// What the `--engine llm` integration tests share: the `aopt` binary run with a test API key in
// its environment, the scripted endpoint `aopt-llm-stub` as a child process, file helpers and
// the SEARCH/REPLACE edit format of the engine's answers. Needs AOPT_BINARY and AOPT_LLM_STUB.
#pragma once

#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "aopt/common/subprocess.h"

namespace aopt_llm_it {

namespace fs = std::filesystem;

inline const std::string kKey = "sk-test-5ecret-never-printed";

inline std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void write(const fs::path& p, const std::string& text) {
  std::ofstream o(p, std::ios::binary | std::ios::trunc);
  o << text;
}

// `aopt ARGS...` with the key in AOPT_TEST_LLM_KEY (the config's api_key_env).
inline aopt::common::process_outcome run_aopt(const std::vector<std::string>& args,
                                              int timeout_s = 900) {
  aopt::common::process_request r;
  r.argv = {AOPT_BINARY};
  r.argv.insert(r.argv.end(), args.begin(), args.end());
  r.env = {{"AOPT_TEST_LLM_KEY", kKey}};
  r.limits.wall_timeout = std::chrono::seconds(timeout_s);
  r.limits.max_output_bytes = 16 << 20;
  return aopt::common::run_process(r);
}

// The stub as a child process answering `script` on a free loopback port; stopped with SIGTERM.
class stub_process {
 public:
  // `log`: where its stderr goes ("" = inherited); it ends with "stopped after N requests".
  stub_process(const fs::path& script, const fs::path& port_file, const fs::path& log = {}) {
    fs::remove(port_file);
    pid_ = ::fork();
    if (pid_ == 0) {
      if (!log.empty()) {
        const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd >= 0) ::dup2(fd, 2);
      }
      ::execl(AOPT_LLM_STUB, AOPT_LLM_STUB, "--script", script.c_str(), "--port-file",
              port_file.c_str(), nullptr);
      ::_exit(127);
    }
    for (int i = 0; i < 200 && !fs::exists(port_file); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    port_ = read(port_file);
    while (!port_.empty() && (port_.back() == '\n' || port_.back() == ' ')) port_.pop_back();
  }
  ~stub_process() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      int st = 0;
      ::waitpid(pid_, &st, 0);
    }
  }
  stub_process(const stub_process&) = delete;
  stub_process& operator=(const stub_process&) = delete;
  const std::string& port() const { return port_; }

 private:
  pid_t pid_ = -1;
  std::string port_;
};

// One SEARCH/REPLACE edit of `path`, as the engine's answers carry them.
inline std::string edit(const std::string& path, const std::string& search,
                        const std::string& replace) {
  return path + "\n<<<<<<< SEARCH\n" + search + "\n=======\n" + replace + "\n>>>>>>> REPLACE\n";
}

// The [llm] config of a job against the stub on `port`: the key from AOPT_TEST_LLM_KEY, short
// timeouts and backoff, `model` by default and a model per role from `models` (role, model).
inline std::string stub_config(const std::string& port, const std::string& model, int max_retries,
                               const std::vector<std::pair<std::string, std::string>>& models) {
  std::string toml =
      "[llm]\nbase_url = \"http://127.0.0.1:" + port + "\"\napi_key_env = \"AOPT_TEST_LLM_KEY\"\n";
  toml += "model = \"" + model + "\"\nrequest_timeout_ms = 5000\nbackoff_initial_ms = 50\n";
  toml += "max_retries = " + std::to_string(max_retries) + "\n\n[llm.models]\n";
  for (const auto& [role, m] : models) toml += role + " = \"" + m + "\"\n";
  return toml;
}

// Every regular file below `dir` that contains `needle`.
inline std::vector<fs::path> files_containing(const fs::path& dir, const std::string& needle) {
  std::vector<fs::path> out;
  if (!fs::exists(dir)) return out;
  for (const auto& f : fs::recursive_directory_iterator(dir)) {
    if (f.is_regular_file() && read(f.path()).find(needle) != std::string::npos)
      out.push_back(f.path());
  }
  return out;
}

// A fresh temporary directory per test (named after the test and the process), removed after.
class llm_it_test : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    root_ = fs::temp_directory_path() /
            ("aopt-llm-it-" + std::string(info->name()) + "-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_;
};

}  // namespace aopt_llm_it
