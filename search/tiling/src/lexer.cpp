#include "aopt/stage1/lexer.h"

#include <algorithm>
#include <cctype>

namespace aopt::stage1 {
namespace {

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Multi-character punctuators, longest first.
constexpr std::string_view puncts[] = {"<<=", ">>=", "...", "->*", "->", "::", "==", "!=", "<=",
                                       ">=", "&&", "||", "+=", "-=", "*=", "/=", "%=", "&=",
                                       "|=", "^=", "<<", ">>", "++", "--", ".*"};

}  // namespace

std::vector<token> lex(std::string_view s) {
  std::vector<token> out;
  std::size_t i = 0;
  const std::size_t n = s.size();
  bool line_start = true;  // only whitespace seen since the last newline
  auto push = [&](token_kind k, std::size_t b, std::size_t e) {
    out.push_back(token{k, b, e - b, s.substr(b, e - b)});
  };
  while (i < n) {
    const char c = s[i];
    if (c == '\n') {
      line_start = true;
      ++i;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && s[i + 1] == '/') {
      while (i < n && s[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && s[i + 1] == '*') {
      const std::size_t e = s.find("*/", i + 2);
      i = e == std::string_view::npos ? n : e + 2;
      continue;
    }
    if (c == '#' && line_start) {
      // A directive runs to the end of the line, with backslash continuations; comments inside
      // stay part of the text (the #define parser strips them).
      const std::size_t b = i;
      while (i < n && s[i] != '\n') {
        if (s[i] == '\\' && i + 1 < n && s[i + 1] == '\n') i += 2;
        else if (s[i] == '\\' && i + 2 < n && s[i + 1] == '\r' && s[i + 2] == '\n') i += 3;
        else ++i;
      }
      std::size_t e = i;
      while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
      push(token_kind::directive, b, e);
      continue;
    }
    line_start = false;
    const std::size_t b = i;
    if (ident_start(c)) {
      while (i < n && ident_char(s[i])) ++i;
      // Encoding prefixes and raw strings: R"delim( ... )delim".
      if (i < n && s[i] == '"' && s.substr(b, i - b).find('R') != std::string_view::npos &&
          s[i - 1] == 'R') {
        const std::size_t open = s.find('(', i);
        if (open != std::string_view::npos) {
          const std::string close = ")" + std::string(s.substr(i + 1, open - i - 1)) + "\"";
          const std::size_t e = s.find(close, open);
          i = e == std::string_view::npos ? n : e + close.size();
          push(token_kind::string, b, i);
          continue;
        }
      }
      if (i < n && (s[i] == '"' || s[i] == '\'') &&
          (s.substr(b, i - b) == "u8" || s.substr(b, i - b) == "u" || s.substr(b, i - b) == "U" ||
           s.substr(b, i - b) == "L")) {
        // fall through to the quoted-literal scanner with the prefix included
      } else {
        push(token_kind::identifier, b, i);
        continue;
      }
    }
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '.' && i + 1 < n && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      ++i;
      while (i < n) {
        const char d = s[i];
        if ((d == '+' || d == '-') && (s[i - 1] == 'e' || s[i - 1] == 'E' || s[i - 1] == 'p' ||
                                       s[i - 1] == 'P')) {
          // An exponent sign, except after a hex digit 'e' of a hex literal.
          const bool hex = i - b > 2 && s[b] == '0' && (s[b + 1] == 'x' || s[b + 1] == 'X');
          if (hex && (s[i - 1] == 'e' || s[i - 1] == 'E')) break;
          ++i;
          continue;
        }
        if (ident_char(d) || d == '.' || (d == '\'' && i + 1 < n && ident_char(s[i + 1]))) {
          ++i;
          continue;
        }
        break;
      }
      push(token_kind::number, b, i);
      continue;
    }
    if (s[i] == '"' || s[i] == '\'') {
      const char q = s[i];
      ++i;
      while (i < n && s[i] != q && s[i] != '\n') i += (s[i] == '\\' && i + 1 < n) ? 2 : 1;
      if (i < n && s[i] == q) ++i;
      push(q == '"' ? token_kind::string : token_kind::character, b, i);
      continue;
    }
    std::size_t len = 1;
    for (std::string_view p : puncts) {
      if (s.substr(i, p.size()) == p) {
        len = p.size();
        break;
      }
    }
    i += len;
    push(token_kind::punct, b, i);
  }
  return out;
}

std::string_view integer_suffix(std::string_view t) {
  const bool hex = t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X');
  std::size_t e = t.size();
  while (e > 0) {
    const char c = t[e - 1];
    if (c == 'u' || c == 'U' || c == 'l' || c == 'L' || c == 'z' || c == 'Z') {
      --e;
      continue;
    }
    break;
  }
  if (hex && e <= 2) return {};
  return t.substr(e);
}

std::optional<std::int64_t> parse_integer_literal(std::string_view t) {
  if (t.empty() || !std::isdigit(static_cast<unsigned char>(t[0]))) return std::nullopt;
  std::string_view body = t.substr(0, t.size() - integer_suffix(t).size());
  int base = 10;
  if (body.size() > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X')) {
    base = 16;
    body.remove_prefix(2);
  } else if (body.size() > 2 && body[0] == '0' && (body[1] == 'b' || body[1] == 'B')) {
    base = 2;
    body.remove_prefix(2);
  } else if (body.size() > 1 && body[0] == '0') {
    base = 8;
    body.remove_prefix(1);
  }
  if (body.empty()) return std::nullopt;
  unsigned long long v = 0;
  for (char c : body) {
    if (c == '\'') continue;
    int d = 0;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else return std::nullopt;  // '.', 'e', 'f': a floating literal
    if (d >= base) return std::nullopt;
    if (v > (static_cast<unsigned long long>(INT64_MAX) - static_cast<unsigned>(d)) /
                static_cast<unsigned>(base)) {
      return std::nullopt;
    }
    v = v * static_cast<unsigned>(base) + static_cast<unsigned>(d);
  }
  return static_cast<std::int64_t>(v);
}

std::size_t line_of(std::string_view source, std::size_t offset) {
  offset = std::min(offset, source.size());
  return 1 + static_cast<std::size_t>(std::count(source.begin(), source.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
}

}  // namespace aopt::stage1
