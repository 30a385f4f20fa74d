// Small file-system helpers with errors that name the file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace aopt::common {

// Whole file as bytes; aopt::error(io_error or not_found) naming the file otherwise. With
// `max_bytes`, a file that is larger, or not a regular file (a FIFO would block), is an
// aopt::error(invalid_spec) naming the file, its size and the limit, and is not read.
std::string read_text_file(const std::filesystem::path& file);
std::string read_text_file(const std::filesystem::path& file, std::uintmax_t max_bytes);
void write_text_file(const std::filesystem::path& file, const std::string& content);
// Writes to a sibling temporary file, then renames: readers never see a partial file.
void write_text_file_atomic(const std::filesystem::path& file, const std::string& content);
// The first executable `name` in the directories of $PATH, or empty; directories that cannot be
// read (another user's, missing) are skipped, never an error.
std::filesystem::path find_on_path(const std::string& name);
// True when `path` is `dir` or below it (both absolute and normalised; compared as text).
bool path_under(const std::string& path, const std::string& dir);
// `path` (absolute, or relative to `dir`) with every symbolic link resolved, when that lies in
// `dir` (itself resolved) or below it; std::nullopt when it lies elsewhere or cannot be resolved.
// What keeps a path that a package or a request names inside the package: checked before the
// file is looked at, so the answer says nothing about files elsewhere.
std::optional<std::filesystem::path> resolve_under(const std::filesystem::path& dir, const std::filesystem::path& path);
// A new, empty, uniquely named directory below `parent` (created if needed).
std::filesystem::path make_unique_dir(const std::filesystem::path& parent, const std::string& prefix);

}  // namespace aopt::common
