#include <gtest/gtest.h>

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <random>

#include "aopt/common/error.h"
#include "aopt/common/fast_hash.h"
#include "aopt/common/mapped_file.h"

namespace fs = std::filesystem;
using namespace aopt::common;

TEST(FastHash, DeterministicAndSensitiveToEveryByte) {
  const std::uint32_t seed = std::random_device{}();
  std::cout << "seed " << seed << "\n";
  std::mt19937 rng(seed);
  std::vector<std::uint8_t> buf(1000 + rng() % 100);
  for (auto& b : buf) b = static_cast<std::uint8_t>(rng());
  const auto h = fast_hash64(buf.data(), buf.size());
  EXPECT_EQ(h, fast_hash64(buf.data(), buf.size()));
  EXPECT_NE(h, fast_hash64(buf.data(), buf.size(), 1));
  EXPECT_NE(h, fast_hash64(buf.data(), buf.size() - 1));
  for (std::size_t i = 0; i < buf.size(); ++i) {
    buf[i] ^= 1;
    ASSERT_NE(h, fast_hash64(buf.data(), buf.size())) << "byte " << i;
    buf[i] ^= 1;
  }
  EXPECT_EQ(fast_hash_hex(buf.data(), 0).size(), 16u);
  EXPECT_NE(fast_hash64("", 0), fast_hash64("\0", 1));
}

TEST(MappedFile, RoundTripAndClearErrors) {
  const fs::path dir = fs::temp_directory_path() / ("aopt-mapped-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::vector<std::uint8_t> data(100000);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(i * 7);
  write_file_bytes_atomic(dir / "t.bin", data.data(), data.size());
  {
    const mapped_file m(dir / "t.bin");
    ASSERT_EQ(m.size(), data.size());
    EXPECT_EQ(std::memcmp(m.data(), data.data(), data.size()), 0);
    EXPECT_EQ(fast_hash_file(dir / "t.bin"), fast_hash64(data.data(), data.size()));
  }
  write_file_bytes(dir / "empty.bin", nullptr, 0);
  EXPECT_EQ(mapped_file(dir / "empty.bin").size(), 0u);
  try {
    mapped_file m(dir / "missing.bin");
    ADD_FAILURE() << "no error for a missing file";
  } catch (const aopt::error& e) {
    EXPECT_NE(std::string(e.what()).find("missing.bin"), std::string::npos) << e.what();
  }
  EXPECT_THROW(write_file_bytes(dir / "no-such-dir" / "x.bin", data.data(), 1), aopt::error);
  fs::remove_all(dir);
}
