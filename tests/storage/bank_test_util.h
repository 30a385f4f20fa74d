// Shared helpers of the storage tests: a temporary directory removed at the end, tuple makers.
#pragma once

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <vector>

#include <CLI/CLI.hpp>
#include <string>

#include <gtest/gtest.h>

#include "aopt/common/fs.h"
#include "bank_command.h"
#include "aopt/search/experience.h"

namespace aopt::storage::test {

// Parses `args` (without the program name) as `aopt` would; returns what the command printed.
inline std::string run(std::vector<std::string> args) {
  CLI::App app{"aopt"};
  app.require_subcommand(1);
  std::ostringstream out;
  aopt::app::add_bank_commands(app, out);
  std::vector<const char*> argv = {"aopt"};
  for (const auto& a : args) argv.push_back(a.c_str());
  app.parse(static_cast<int>(argv.size()), argv.data());
  return out.str();
}

class temp_dir {
 public:
  temp_dir() {
    path_ = common::make_unique_dir(std::filesystem::temp_directory_path(), "aopt-bank-test-");
  }
  ~temp_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline search::experience tuple(const std::string& title, const std::string& bottleneck,
                                const std::string& diff = "-a\n+b\n") {
  search::experience e;
  e.title = title;
  e.description = "description of " + title;
  e.bottleneck = bottleneck;
  e.code_diff = diff;
  return e;
}

inline void write_file(const std::filesystem::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

inline std::filesystem::path data_dir() { return AOPT_STORAGE_TEST_DATA; }

}  // namespace aopt::storage::test
