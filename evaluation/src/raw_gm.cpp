#include "aopt/evaluation/raw_gm.h"

#include <cctype>
#include <mutex>
#include <regex>
#include <set>
#include <string_view>
#include <unordered_map>

#include "aopt/common/fast_hash.h"

namespace aopt::evaluation {

namespace {

// Names declared as `__gm__ T* name` (any cv, template arguments, pointer depth) or `GM_ADDR name`.
std::set<std::string> raw_gm_names(const std::string& source) {
  static const std::regex decl(
      R"((?:__gm__\s+(?:const\s+|volatile\s+)*[A-Za-z_][\w:]*(?:\s*<[^<>;{}]*>)?\s*(?:const\s*)?\*+|\bGM_ADDR)\s*(?:const\s+|__restrict__\s+)*([A-Za-z_]\w*))");
  std::set<std::string> names;
  for (auto it = std::sregex_iterator(source.begin(), source.end(), decl); it != std::sregex_iterator(); ++it)
    names.insert((*it)[1].str());
  return names;
}

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }
bool space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

// `name[`, `name->`, or a unary `*name` / `*(name` (the `*` follows an operator, an opening
// bracket, a separator or `return`: not a multiplication). One scan of the occurrences of the
// word; no expression is compiled per name (a kernel with thirty buffers asked for thirty).
bool dereferenced(const std::string& code, const std::string& name) {
  for (std::size_t at = code.find(name); at != std::string::npos; at = code.find(name, at + 1)) {
    const std::size_t end = at + name.size();
    if ((at > 0 && word_char(code[at - 1])) || (end < code.size() && word_char(code[end]))) continue;
    std::size_t a = end;
    while (a < code.size() && space(code[a])) ++a;
    if (a < code.size() && (code[a] == '[' || code.compare(a, 2, "->") == 0)) return true;
    std::size_t b = at;  // backwards: spaces, an optional '(', spaces, then '*'
    while (b > 0 && space(code[b - 1])) --b;
    if (b > 0 && code[b - 1] == '(') {
      --b;
      while (b > 0 && space(code[b - 1])) --b;
    }
    if (b == 0 || code[b - 1] != '*') continue;
    --b;
    while (b > 0 && space(code[b - 1])) --b;
    if (b == 0 || std::string_view("=(,;{}!?:[").find(code[b - 1]) != std::string_view::npos) return true;
    if (b >= 6 && code.compare(b - 6, 6, "return") == 0 && (b == 6 || !word_char(code[b - 7]))) return true;
  }
  return false;
}

// The code only: each comment replaced by a space, the text of each string and character literal
// by spaces (its quotes kept; a comment marker inside one is not a comment).
std::string without_comments(const std::string& source) {
  std::string out;
  out.reserve(source.size());
  for (std::size_t i = 0; i < source.size();) {
    const char c = source[i];
    if (c == '/' && i + 1 < source.size() && source[i + 1] == '/') {
      while (i < source.size() && source[i] != '\n') ++i;
      out += ' ';
    } else if (c == '/' && i + 1 < source.size() && source[i + 1] == '*') {
      const std::size_t close = source.find("*/", i + 2);
      i = close == std::string::npos ? source.size() : close + 2;
      out += ' ';
    } else if (c == '"' || (c == '\'' && (i == 0 || !word_char(source[i - 1])))) {  // not 1'000'000
      out += c;
      for (++i; i < source.size() && source[i] != c && source[i] != '\n'; ++i) {
        out += ' ';
        if (source[i] == '\\' && i + 1 < source.size()) {
          out += ' ';
          ++i;
        }
      }
      if (i < source.size()) out += source[i++];
    } else {
      out += c;
      ++i;
    }
  }
  return out;
}

}  // namespace

bool dereferences_raw_gm(const std::string& source) {
  if (source.find("__gm__") == std::string::npos && source.find("GM_ADDR") == std::string::npos) return false;
  // Every build asks, and a search's candidates mostly share their kernel sources (a tiling
  // change leaves them as they were): answered once per text.
  static std::mutex mu;
  static std::unordered_map<std::uint64_t, bool> known;
  const std::uint64_t key = common::fast_hash64(source.data(), source.size());
  {
    std::lock_guard<std::mutex> lock(mu);
    if (const auto it = known.find(key); it != known.end()) return it->second;
  }
  const std::string code = without_comments(source);
  bool found = false;
  for (const auto& name : raw_gm_names(code)) {
    if (dereferenced(code, name)) {
      found = true;
      break;
    }
  }
  std::lock_guard<std::mutex> lock(mu);
  if (known.size() > 4096) known.clear();
  known.emplace(key, found);
  return found;
}

const std::vector<std::string>& raw_gm_trace_flags() {
  static const std::vector<std::string> flags = {"-fsanitize=kernel-address",
                                                 "--param", "asan-instrumentation-with-call-threshold=0",
                                                 "--param", "asan-stack=0",
                                                 "--param", "asan-globals=0"};
  return flags;
}

}  // namespace aopt::evaluation
