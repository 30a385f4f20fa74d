// Small lexical helpers over C++ source text (comments, strings and character literals skipped).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace aopt::motifs::detail {

bool is_ident_char(char c);
bool is_ident_start(char c);
// If a comment, string or character literal starts at `pos`, the position after it; else pos.
std::size_t skip_literal_or_comment(std::string_view s, std::size_t pos);
// The position of the bracket (any of ( [ {) closing the one at `open`, comments and literals
// skipped; npos when unbalanced.
std::size_t closing_bracket(std::string_view s, std::size_t open);
// First position >= pos that is neither whitespace nor inside a comment.
std::size_t skip_space(std::string_view s, std::size_t pos);
// `s` without whitespace and comments (string literals kept).
std::string squeeze(std::string_view s);
// Top-level comma-separated pieces of s[begin, end) (depth over () [] {}), trimmed, as ranges.
std::vector<std::pair<std::size_t, std::size_t>> split_args(std::string_view s, std::size_t begin, std::size_t end);
// Trims whitespace (not comments) of s[begin, end).
std::pair<std::size_t, std::size_t> trim(std::string_view s, std::size_t begin, std::size_t end);
// Identifier tokens of s[begin, end) with their start positions.
std::vector<std::pair<std::string, std::size_t>> identifiers(std::string_view s, std::size_t begin, std::size_t end);

}  // namespace aopt::motifs::detail
