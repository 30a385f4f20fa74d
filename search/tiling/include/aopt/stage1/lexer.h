// A small C++ lexer for host tiling sources: tokens with exact byte ranges, comments and
// preprocessor lines kept out of the token stream (directives are single tokens). Macros are
// not expanded: Stage I rewrites the source as written, so it reasons on the written tokens.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace aopt::stage1 {

enum class token_kind : std::uint8_t { identifier, number, string, character, punct, directive };

struct token {
  token_kind kind = token_kind::punct;
  std::size_t offset = 0;  // byte offset in the source
  std::size_t length = 0;
  std::string_view text;   // view into the lexed source (which must outlive the tokens)
  bool is(std::string_view s) const { return text == s; }
  bool is_ident() const { return kind == token_kind::identifier; }
};

// Lexes `source`. Unterminated comments, strings and characters end at the end of the file
// (the parser downstream reports what it cannot find).
std::vector<token> lex(std::string_view source);

// The value of an integer literal ("32", "0x20", "4096U", "0xFFFFFFFFULL", "1'024"), or
// nullopt for floating literals and values beyond int64.
std::optional<std::int64_t> parse_integer_literal(std::string_view text);

// The suffix of an integer literal ("U", "ULL", ""), kept when a new value is rendered.
std::string_view integer_suffix(std::string_view text);

// 1-based line of a byte offset.
std::size_t line_of(std::string_view source, std::size_t offset);

}  // namespace aopt::stage1
