#include "text_scan.h"

#include <cctype>

namespace aopt::motifs::detail {

bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool is_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }

std::size_t skip_literal_or_comment(std::string_view s, std::size_t pos) {
  if (pos >= s.size()) return pos;
  if (s[pos] == '/' && pos + 1 < s.size()) {
    if (s[pos + 1] == '/') {
      const auto nl = s.find('\n', pos);
      return nl == std::string_view::npos ? s.size() : nl;
    }
    if (s[pos + 1] == '*') {
      const auto close = s.find("*/", pos + 2);
      return close == std::string_view::npos ? s.size() : close + 2;
    }
  }
  if (s[pos] == '"' || s[pos] == '\'') {
    // A digit separator (1'000) is not a character literal.
    if (s[pos] == '\'' && pos > 0 && std::isxdigit(static_cast<unsigned char>(s[pos - 1]))) return pos;
    const char q = s[pos];
    std::size_t i = pos + 1;
    while (i < s.size() && s[i] != q) {
      if (s[i] == '\\') ++i;
      if (s[i] == '\n') break;
      ++i;
    }
    return i < s.size() ? i + 1 : s.size();
  }
  return pos;
}

std::size_t closing_bracket(std::string_view s, std::size_t open) {
  return scan_code(s, open, s.size(), [&](std::size_t i, int depth) {
    return depth == 0 && (s[i] == ')' || s[i] == '}' || s[i] == ']');
  });
}

std::size_t skip_space(std::string_view s, std::size_t pos) {
  for (;;) {
    while (pos < s.size() && std::isspace(static_cast<unsigned char>(s[pos]))) ++pos;
    if (pos + 1 < s.size() && s[pos] == '/' && (s[pos + 1] == '/' || s[pos + 1] == '*')) {
      pos = skip_literal_or_comment(s, pos);
      continue;
    }
    return pos;
  }
}

std::string squeeze(std::string_view s) {
  std::string out;
  std::size_t i = 0;
  while (i < s.size()) {
    if (std::isspace(static_cast<unsigned char>(s[i]))) {
      // Keep one space between two identifier characters so "unsigned int" stays two words.
      std::size_t j = i;
      while (j < s.size() && std::isspace(static_cast<unsigned char>(s[j]))) ++j;
      if (!out.empty() && j < s.size() && is_ident_char(out.back()) && is_ident_char(s[j])) out += ' ';
      i = j;
      continue;
    }
    if (s[i] == '/' && i + 1 < s.size() && (s[i + 1] == '/' || s[i + 1] == '*')) {
      i = skip_literal_or_comment(s, i);
      continue;
    }
    const std::size_t next = skip_literal_or_comment(s, i);
    if (next != i) {
      out.append(s.substr(i, next - i));
      i = next;
      continue;
    }
    out += s[i++];
  }
  return out;
}

std::pair<std::size_t, std::size_t> trim(std::string_view s, std::size_t b, std::size_t e) {
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return {b, e};
}

std::vector<std::pair<std::size_t, std::size_t>> split_args(std::string_view s, std::size_t begin, std::size_t end) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  std::size_t start = begin;
  scan_code(s, begin, end, [&](std::size_t i, int depth) {
    if (s[i] == ',' && depth == 0) {
      out.push_back(trim(s, start, i));
      start = i + 1;
    }
    return false;
  });
  const auto last = trim(s, start, end);
  if (last.first != last.second || !out.empty()) out.push_back(last);
  return out;
}

std::vector<std::pair<std::string, std::size_t>> identifiers(std::string_view s, std::size_t begin, std::size_t end) {
  std::vector<std::pair<std::string, std::size_t>> out;
  std::size_t i = begin;
  while (i < end) {
    const std::size_t next = skip_literal_or_comment(s, i);
    if (next != i) {
      i = next;
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(s[i]))) {
      while (i < end && (is_ident_char(s[i]) || s[i] == '.')) ++i;
      continue;
    }
    if (is_ident_start(s[i])) {
      const std::size_t b = i;
      while (i < end && is_ident_char(s[i])) ++i;
      out.emplace_back(std::string(s.substr(b, i - b)), b);
      continue;
    }
    ++i;
  }
  return out;
}

}  // namespace aopt::motifs::detail
