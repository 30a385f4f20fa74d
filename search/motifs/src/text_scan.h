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
// Walks s[b, e) outside comments and string/character literals, counting the bracket depth over
// ( [ {: calls visit(i, depth) for every character, the depth taken after it (an opening bracket
// counts as inside its pair, a closing one as outside); returns the first i for which visit
// returns true, npos when none.
template <class F>
std::size_t scan_code(std::string_view s, std::size_t b, std::size_t e, F&& visit) {
  int depth = 0;
  for (std::size_t i = b; i < e;) {
    const std::size_t next = skip_literal_or_comment(s, i);
    if (next != i) {
      i = next;
      continue;
    }
    const char c = s[i];
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
    if (visit(i, depth)) return i;
    ++i;
  }
  return std::string_view::npos;
}
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
