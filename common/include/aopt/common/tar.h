// A small, strict ustar reader and writer: how operator packages and results travel over the
// daemon's socket (`aopt submit` uploads one, `aopt fetch` downloads one). Only regular files
// and directories; anything else (links, devices, FIFOs, absolute paths, "..", names that are not
// valid UTF-8) is refused with an error naming the member, so an archive can never write outside
// the directory it is unpacked into.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>

namespace aopt::common {

struct tar_limits {
  std::uint64_t max_members = 10000;            // Default: 10000
  std::uint64_t max_total_bytes = 256ull << 20;  // file contents, summed. Default: 256 MiB
};

// Relative path -> content of every regular file in `archive` (directories are implied).
// aopt::error(invalid_spec) naming the member and what is wrong with it.
std::map<std::string, std::string> tar_read(std::string_view archive, const tar_limits& limits = {});

// An archive of `files` (relative path -> content), members in path order, mode 0644, mtime 0:
// the same files always give the same bytes. aopt::error(invalid_argument) for a path that
// tar_read would refuse.
std::string tar_write(const std::map<std::string, std::string>& files);

// The regular files below `dir` (recursively), skipping `build`, `build_out` and hidden entries
// at the top level, as relative paths.
std::map<std::string, std::string> read_tree(const std::filesystem::path& dir);

// Writes `files` below `dir` (created as needed), each path checked as tar_read checks it.
void write_tree(const std::filesystem::path& dir, const std::map<std::string, std::string>& files);

// Whether `rel` is a path an archive may carry: relative, no "." or ".." component, no empty
// component, no NUL, at most 255 bytes.
bool safe_relative_path(std::string_view rel);

}  // namespace aopt::common
