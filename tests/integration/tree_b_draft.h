// The tree_b idiom tests' one helper (test_tree_b_idioms.cpp, test_tree_b_dtypes.cpp): a fixture
// operator of packages/tree_b drafted by the real `aopt init --tree` and its draft evaluated
// unedited by the real `aopt eval --tree`, and the check that every case compared an output.
#pragma once

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "../support/aopt_process.h"

namespace aopt::testing {

class tree_b_draft_test : public ::testing::Test {
 protected:
  static std::filesystem::path tree() { return std::filesystem::path(AOPT_TEST_SOURCE_DIR) / "tests/integration/packages/tree_b"; }

  // `prefix` names the temporary directory (one per test binary and process).
  explicit tree_b_draft_test(std::string prefix) : prefix_(std::move(prefix)) {}

  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / (prefix_ + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // `aopt init OP --tree tree_b` (its draft in dir_/OP.json), then `aopt eval OP --spec DRAFT
  // --tree tree_b --json`; null when either fails (the failure is reported).
  nlohmann::json init_and_eval(const std::string& rel, const std::string& elements = "8192") {
    const std::filesystem::path op = tree() / rel;
    const std::filesystem::path out = dir_ / (op.filename().string() + ".json");
    const auto i = run_aopt({"init", op.string(), "--tree", tree().string(), "--out", out.string(), "--elements", elements}, 600);
    EXPECT_EQ(i.exit_code, 0) << i.out << i.err;
    if (i.exit_code != 0) return nlohmann::json();
    const auto e = run_aopt(
        {"eval", op.string(), "--tree", tree().string(), "--spec", out.string(), "--json", "--cache-dir", (dir_ / "cache").string()}, 900);
    EXPECT_EQ(e.exit_code, 0) << e.out << e.err;
    if (e.exit_code != 0) return nlohmann::json();
    return nlohmann::json::parse(e.out);
  }

  // The evaluation `r` is ok with `cases` cases, each of which compared output `name`.
  static ::testing::AssertionResult ok_and_compared(const nlohmann::json& r, const std::string& name, std::size_t cases = 2) {
    if (!r.is_object()) return ::testing::AssertionFailure() << "no evaluation";
    if (r.value("status", "") != "ok") return ::testing::AssertionFailure() << "status is not ok: " << r.dump(2);
    if (!r.contains("cases") || r["cases"].size() != cases)
      return ::testing::AssertionFailure() << "not " << cases << " cases: " << r.dump(2);
    for (const auto& c : r["cases"]) {
      if (!compared(c, name)) return ::testing::AssertionFailure() << "output " << name << " was not compared: " << c.dump(2);
    }
    return ::testing::AssertionSuccess();
  }

  // Case `c` compared some elements of output `name`.
  static bool compared(const nlohmann::json& c, const std::string& name) {
    for (const auto& o : c.value("outputs", nlohmann::json::array())) {
      if (o.value("name", "") == name && o.value("elements", 0) > 0) return true;
    }
    return false;
  }

  std::filesystem::path dir_;

 private:
  std::string prefix_;
};

}  // namespace aopt::testing
