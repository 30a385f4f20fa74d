// JSON files with source positions: parse errors become `file:line:col: message`, and every
// value keeps the line/column where it starts, so validators can point at the offending field.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

namespace aopt::common {

struct text_pos {
  int line = 0;  // 1-based; 0 = unknown
  int col = 0;
};

// Line and column (1-based) of a byte offset in `text`.
text_pos pos_of_offset(const std::string& text, std::size_t offset);

struct json_doc {
  std::filesystem::path file;
  nlohmann::ordered_json value;
  // JSON pointer ("/cases/0/inputs/x/shape") -> where that value starts; for object members
  // also "<pointer>#key" -> where the key's string starts.
  std::map<std::string, text_pos> positions;

  // Position of `pointer`, or of its closest ancestor that has one.
  text_pos pos(const std::string& pointer) const;
  // "file:line:col" of `pointer` (closest ancestor when unknown).
  std::string where(const std::string& pointer) const;
  std::string where_key(const std::string& pointer) const;  // the key of a member
};

// Parses `text` (named `file` in messages). Throws aopt::error(parse_error) with
// "file:line:col: message" on malformed JSON.
json_doc parse_json_doc(const std::string& text, const std::filesystem::path& file);
// Reads and parses a file; aopt::error(io_error) when it cannot be read.
json_doc read_json_doc(const std::filesystem::path& file);
// Plain nlohmann::json from a file, same error conventions.
nlohmann::json read_json_file(const std::filesystem::path& file);
// Writes pretty JSON atomically (temp file + rename).
void write_json_file(const std::filesystem::path& file, const nlohmann::json& value);

// Escapes one JSON-pointer reference token ("a/b" -> "a~1b").
std::string pointer_token(const std::string& key);

}  // namespace aopt::common
