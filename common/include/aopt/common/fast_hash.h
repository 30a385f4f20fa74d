// A fast non-cryptographic 64-bit digest (several GB/s) for integrity checks of large buffers and
// files, where an adversary is not in the picture: cached input tensors checked after a run,
// identical-output shortcuts. Content addressing of candidates keeps SHA-256 (sha256.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

namespace aopt::common {

// Digest of `size` bytes; different seeds give independent digests.
std::uint64_t fast_hash64(const void* data, std::size_t size, std::uint64_t seed = 0);
// 16 lower-case hex digits.
std::string fast_hash_hex(const void* data, std::size_t size, std::uint64_t seed = 0);
// Digest of a file's bytes (read through mmap); throws aopt::error(io_error) naming the file.
std::uint64_t fast_hash_file(const std::filesystem::path& file, std::uint64_t seed = 0);

}  // namespace aopt::common
