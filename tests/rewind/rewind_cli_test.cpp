// `aopt bank rewind` end to end on a real seed (sim backend): kept steps land in a temporary
// bank, and `aopt bank list` shows them with provenance rewind.
#include <gtest/gtest.h>

#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>

namespace {

namespace fs = std::filesystem;

// Runs `cmd` (stderr merged), returns its output; `rc` gets the exit status.
std::string run(const std::string& cmd, int& rc) {
  std::string out;
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (p == nullptr) {
    rc = -1;
    return out;
  }
  std::array<char, 4096> buf{};
  while (std::fgets(buf.data(), static_cast<int>(buf.size()), p) != nullptr) out += buf.data();
  rc = ::pclose(p);
  return out;
}

int count_of(const std::string& text, const std::string& needle) {
  int n = 0;
  for (auto pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + needle.size())) ++n;
  return n;
}

TEST(RewindCli, GeluExpertIntoTempBank) {
  const fs::path tmp = fs::temp_directory_path() / ("aopt-rewind-cli-" + std::to_string(::getpid()));
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  const std::string aopt = AOPT_REWIND_CLI;
  const std::string seed_dir = std::string(AOPT_REWIND_SOURCE_DIR) + "/examples/ops/gelu/expert";
  const std::uint64_t seed = 1;
  std::cout << "rewind seed " << seed << "\n";
  int rc = 0;
  const std::string out = run(aopt + " bank rewind " + seed_dir + " --steps 2 --attempts 8 --seed " +
                                  std::to_string(seed) + " --bank " + (tmp / "bank").string(),
                              rc);
  std::cout << out;
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("summary: 1 seed(s)"), std::string::npos) << out;
  ASSERT_NE(out.find("KEPT"), std::string::npos) << "no step slowed the seed down:\n" << out;

  const std::string list = run(aopt + " bank list --bank " + (tmp / "bank").string(), rc);
  std::cout << list;
  ASSERT_EQ(rc, 0) << list;
  EXPECT_GE(count_of(list, "  rewind  "), 1) << list;
  EXPECT_EQ(count_of(list, "  rewind  "), count_of(out, "KEPT")) << list;

  // A second run with the same seed finds the same tuples already there.
  const std::string again = run(aopt + " bank rewind " + seed_dir + " --steps 2 --attempts 8 --seed " +
                                    std::to_string(seed) + " --bank " + (tmp / "bank").string(),
                                rc);
  EXPECT_EQ(rc, 0) << again;
  EXPECT_NE(again.find(", 0 new tuple(s)"), std::string::npos) << again;
  fs::remove_all(tmp);
}

TEST(RewindCli, MissingSeedIsAnError) {
  int rc = 0;
  const std::string out = run(std::string(AOPT_REWIND_CLI) + " bank rewind /nonexistent/seed --bank /tmp/x", rc);
  EXPECT_NE(rc, 0) << out;
}

}  // namespace
