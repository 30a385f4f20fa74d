// Read-only memory mapping of a whole file (large tensors are compared and hashed in place,
// without copying them into strings or vectors), and a fast whole-buffer file writer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>

namespace aopt::common {

class mapped_file {
 public:
  // Throws aopt::error(not_found / io_error) naming the file. An empty file maps to size 0.
  explicit mapped_file(const std::filesystem::path& file);
  ~mapped_file();
  mapped_file(const mapped_file&) = delete;
  mapped_file& operator=(const mapped_file&) = delete;
  mapped_file(mapped_file&& o) noexcept;
  mapped_file& operator=(mapped_file&& o) = delete;

  const std::uint8_t* data() const { return data_; }
  std::size_t size() const { return size_; }

 private:
  const std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
  void* map_ = nullptr;
};

// Writes `size` bytes to `file` (created or truncated) with plain write(2) calls; throws
// aopt::error(io_error) naming the file (disk full, permissions).
void write_file_bytes(const std::filesystem::path& file, const void* data, std::size_t size);
// Same, through a sibling temporary file renamed into place: readers never see a partial file.
void write_file_bytes_atomic(const std::filesystem::path& file, const void* data, std::size_t size);

}  // namespace aopt::common
