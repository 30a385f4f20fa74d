// JSON files with source positions: parse errors become `file:line:col: message`, and every
// value keeps the line/column where it starts, so validators can point at the offending field.
#pragma once

#include "aopt/common/text.h"

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

// Deepest nesting of lists and objects accepted. aopt's files need fewer than 10 levels; the cap
// keeps every recursive walk (the position locator, nlohmann's copy and dump) far from the end
// of the stack, so a hostile file is an error, not a crash.
inline constexpr int max_json_depth = 256;

// Parses `text` (named `file` in messages). Throws aopt::error(parse_error) with
// "file:line:col: message" on malformed JSON, nesting deeper than max_json_depth, or a number
// that does not fit in a double (1e400; the message names the field).
json_doc parse_json_doc(const std::string& text, const std::filesystem::path& file);
// Reads and parses a file; aopt::error(io_error) when it cannot be read.
json_doc read_json_doc(const std::filesystem::path& file);
// Plain nlohmann::json from a file, same error conventions.
nlohmann::json read_json_file(const std::filesystem::path& file);
// Writes pretty JSON atomically (temp file + rename).
void write_json_file(const std::filesystem::path& file, const nlohmann::json& value);

// valid_utf8() (text.h) on every string and object key in `value`, in place, so that nlohmann's
// dump() (which throws on invalid UTF-8) accepts it: compiler output of a source with random
// bytes, for instance.
void make_valid_utf8(nlohmann::json& value);

// A double as JSON: a finite number as itself, the others as the strings "inf", "-inf" and "nan"
// (JSON has no such numbers: nlohmann writes them as null, which no reader takes for a number,
// so a record holding an error of inf could not be read back from the cache).
nlohmann::json number_to_json(double v);
// The double `j[key]` holds as number_to_json wrote it; `absent` when there is no such member;
// a null (records written before number_to_json) reads as `null_as`. Throws nlohmann's
// type_error for anything else.
double number_from_json(const nlohmann::json& j, const char* key, double absent, double null_as);

// Escapes one JSON-pointer reference token ("a/b" -> "a~1b").
std::string pointer_token(const std::string& key);

}  // namespace aopt::common
