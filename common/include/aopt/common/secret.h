// Shared secrets: random ones, compared in constant time, and kept in files only their owner can
// read (the node token of aoptd and aopt-node, docs/deploy.md "Security").
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace aopt::common {

// `bytes` bytes from the kernel's CSPRNG (/dev/urandom) as lower-case hex. Throws
// aopt::error(internal) when it cannot be read.
std::string random_hex(std::size_t bytes);

// a == b, in a time that depends on the length of `expected` only (not on where they differ).
bool equal_constant_time(std::string_view given, std::string_view expected);

// The secret in `file` (surrounding white space removed). The file must be a regular file owned
// by this process's effective user (or root) that neither its group nor others may read or write
// (as ssh asks of a private key), and hold at least 32 characters; else aopt::error
// (invalid_argument, not_found or io_error) naming `what`, the file, what is wrong and what to do.
std::string read_secret_file(const std::filesystem::path& file, const std::string& what);

// read_secret_file(file), or, when `file` does not exist, a new random secret (32 bytes, hex)
// written to it, created with mode 0600 (never readable by others, not even for a moment).
std::string read_or_create_secret_file(const std::filesystem::path& file, const std::string& what);

}  // namespace aopt::common
