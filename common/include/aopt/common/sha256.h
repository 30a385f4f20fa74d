// SHA-256 (FIPS 180-4), streaming, with lower-case hex digests. Content addressing of
// candidates, blobs and cache entries.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace aopt::common {

class sha256 {
 public:
  using digest = std::array<std::uint8_t, 32>;

  sha256();
  sha256& update(const void* data, std::size_t size);
  sha256& update(std::string_view s) { return update(s.data(), s.size()); }
  // Appends a length-prefixed field, so ("ab","c") and ("a","bc") hash differently.
  sha256& field(std::string_view s);
  digest finish();            // the object must not be updated afterwards
  std::string finish_hex();

 private:
  void block(const std::uint8_t* p);
  std::array<std::uint32_t, 8> h_;
  std::array<std::uint8_t, 64> buf_{};
  std::size_t buf_len_ = 0;
  std::uint64_t total_ = 0;
  bool done_ = false;
};

std::string to_hex(const sha256::digest& d);
std::string sha256_hex(std::string_view data);
// Hash of a file's bytes; throws aopt::error(io_error) naming the file if it cannot be read.
std::string sha256_file_hex(const std::filesystem::path& file);

}  // namespace aopt::common
