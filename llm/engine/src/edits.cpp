#include "aopt/llm/edits.h"

#include <algorithm>
#include <cctype>
#include <exception>
#include <set>
#include <utility>

#include "aopt/common/sha256.h"
#include "aopt/motifs/source.h"

namespace aopt::llm {

const char* to_string(edit_error e) {
  switch (e) {
    case edit_error::no_edit: return "no_edit";
    case edit_error::no_path: return "no_path";
    case edit_error::unknown_file: return "unknown_file";
    case edit_error::not_found: return "not_found";
    case edit_error::ambiguous: return "ambiguous";
    case edit_error::truncated: return "truncated";
    case edit_error::empty_search: return "empty_search";
    case edit_error::too_large: return "too_large";
    case edit_error::no_change: return "no_change";
    case edit_error::does_not_parse: return "does_not_parse";
    case edit_error::outside_region: return "outside_region";
  }
  return "unknown";
}

namespace {

struct line_view {
  std::string_view text;  // without the '\n'
  std::size_t begin = 0;  // byte offset in the whole text
};

std::vector<line_view> split_lines(std::string_view s) {
  std::vector<line_view> out;
  std::size_t pos = 0;
  while (pos < s.size()) {
    std::size_t eol = s.find('\n', pos);
    if (eol == std::string_view::npos) eol = s.size();
    std::string_view l = s.substr(pos, eol - pos);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    out.push_back({l, pos});
    pos = eol + 1;
  }
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())) != 0) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())) != 0) s.remove_suffix(1);
  return s;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// A run of 5 to 9 `c` followed (optionally after a space) by `word`, or by nothing when `word`
// is empty: the conflict-marker lines of the SEARCH/REPLACE format.
bool is_marker(std::string_view line, char c, std::string_view word) {
  line = trim(line);
  std::size_t n = 0;
  while (n < line.size() && line[n] == c) ++n;
  if (n < 5 || n > 9) return false;
  std::string_view rest = trim(line.substr(n));
  return word.empty() ? rest.empty() : lower(rest) == lower(word);
}
bool is_search(std::string_view l) { return is_marker(l, '<', "SEARCH"); }
bool is_divider(std::string_view l) { return is_marker(l, '=', ""); }
bool is_replace(std::string_view l) { return is_marker(l, '>', "REPLACE"); }
bool is_fence(std::string_view l) { return trim(l).starts_with("```"); }

bool path_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.' || c == '/' || c == '-' || c == '+';
}

// The file path a line names, if it is nothing but a path (decorations allowed: backticks,
// bold, a "File:" label, a trailing colon, a Markdown heading).
std::optional<std::string> path_of_line(std::string_view line) {
  std::string_view s = trim(line);
  while (!s.empty() && (s.front() == '#' || s.front() == '*' || s.front() == '`' || s.front() == '-')) {
    s.remove_prefix(1);
    s = trim(s);
  }
  for (std::string_view label : {"file:", "path:", "filename:"}) {
    if (lower(s.substr(0, label.size())) == label) s = trim(s.substr(label.size()));
  }
  while (!s.empty() && (s.back() == '*' || s.back() == '`' || s.back() == ':')) s.remove_suffix(1);
  while (!s.empty() && (s.front() == '`' || s.front() == '*')) s.remove_prefix(1);
  s = trim(s);
  if (s.empty() || s.size() > 200) return std::nullopt;
  if (!std::all_of(s.begin(), s.end(), path_char)) return std::nullopt;
  const auto dot = s.rfind('.');
  if (dot == std::string_view::npos || dot + 1 >= s.size()) return std::nullopt;
  if (!std::isalpha(static_cast<unsigned char>(s[dot + 1]))) return std::nullopt;  // "1.5", "v2."
  if (s.starts_with("./")) s.remove_prefix(2);
  return std::string(s);
}

// The file of `files` a path the model wrote stands for: exact, else the one file whose path
// ends with it (or that it ends with). Empty when none or several.
std::string resolve_path(const std::string& p, const search::file_map& files) {
  if (files.count(p) != 0) return p;
  std::string found;
  int hits = 0;
  for (const auto& [k, v] : files) {
    if ((k.size() > p.size() && k.ends_with("/" + p)) || (p.size() > k.size() && p.ends_with("/" + k))) {
      found = k;
      ++hits;
    }
  }
  return hits == 1 ? found : std::string();
}

std::string join(const std::vector<line_view>& lines, std::size_t from, std::size_t to) {
  std::string out;
  for (std::size_t i = from; i < to; ++i) {
    if (i > from) out += '\n';
    out += lines[i].text;
  }
  return out;
}

std::string first_line(std::string_view s) {
  std::string_view t = trim(s);
  const auto eol = t.find('\n');
  std::string out(trim(t.substr(0, eol)));
  if (out.size() > 80) out = out.substr(0, 77) + "...";
  return out;
}

std::size_t line_of(std::string_view content, std::size_t offset) {
  return static_cast<std::size_t>(std::count(content.begin(), content.begin() + static_cast<std::ptrdiff_t>(offset), '\n')) + 1;
}

bool is_cpp(const std::string& p) {
  for (std::string_view ext : {".cpp", ".cc", ".cxx", ".h", ".hpp", ".hh"}) {
    if (p.ends_with(ext)) return true;
  }
  return false;
}

}  // namespace

parsed_edits parse_edits(std::string_view answer, const search::file_map& files, const edit_options& opt) {
  parsed_edits out;
  const auto lines = split_lines(answer);
  auto fail = [&](edit_error k, std::string why) {
    out.error = edit_failure{k, std::move(why)};
    return out;
  };
  std::optional<std::string> path;       // the last path named, sticky for SEARCH blocks
  std::optional<std::string> near_path;  // a path on the last non-blank line (whole-file rewrites)
  std::size_t code_blocks = 0;
  std::size_t search_blocks = 0;
  bool in_transparent = false;  // inside a fence that wraps SEARCH blocks
  auto target = [&](std::size_t line, std::string& where) -> std::optional<edit_failure> {
    std::string p;
    if (path) p = *path;
    else if (files.size() == 1) p = files.begin()->first;
    else {
      return edit_failure{edit_error::no_path, "edit block at answer line " + std::to_string(line) +
                                                   " names no file: write the file's path on the line before it"};
    }
    const std::string r = resolve_path(p, files);
    if (r.empty()) {
      std::string known;
      for (const auto& [k, v] : files) known += (known.empty() ? "" : ", ") + k;
      return edit_failure{edit_error::unknown_file, "edit block at answer line " + std::to_string(line) + " targets '" + p +
                                                        "', which is not one of the files shown (" + known + ")"};
    }
    where = r;
    return std::nullopt;
  };
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string_view l = lines[i].text;
    if (is_search(l)) {
      ++search_blocks;
      edit_block b;
      b.line = i + 1;
      if (auto e = target(b.line, b.path)) {
        out.error = std::move(e);
        return out;
      }
      std::size_t j = i + 1;
      while (j < lines.size() && !is_divider(lines[j].text)) ++j;
      if (j >= lines.size()) {
        return fail(edit_error::truncated, b.path + ": SEARCH block " + std::to_string(search_blocks) + " (answer line " +
                                               std::to_string(b.line) + ") has no '=======' line before the answer ends (truncated answer?)");
      }
      std::size_t k = j + 1;
      while (k < lines.size() && !is_replace(lines[k].text)) ++k;
      if (k >= lines.size()) {
        return fail(edit_error::truncated, b.path + ": SEARCH block " + std::to_string(search_blocks) + " (answer line " +
                                               std::to_string(b.line) + ") has no '>>>>>>> REPLACE' line before the answer ends (truncated answer?)");
      }
      b.search = join(lines, i + 1, j);
      b.replace = join(lines, j + 1, k);
      if (trim(b.search).empty()) {
        return fail(edit_error::empty_search, b.path + ": SEARCH block " + std::to_string(search_blocks) + " (answer line " +
                                                  std::to_string(b.line) + ") has no SEARCH text: quote the exact lines to replace");
      }
      out.blocks.push_back(std::move(b));
      i = k;
      near_path.reset();
      continue;
    }
    if (is_fence(l) && in_transparent) {
      in_transparent = false;
      continue;
    }
    if (is_fence(l)) {
      // A fence wrapping SEARCH blocks is transparent; any other fenced block after a path line
      // (or with the path in its info string) is a whole-file rewrite.
      std::size_t j = i + 1;
      bool has_search = false;
      while (j < lines.size() && !is_fence(lines[j].text)) {
        if (is_search(lines[j].text)) has_search = true;
        ++j;
      }
      std::optional<std::string> p = near_path;
      const std::string_view info = trim(trim(l).substr(3));
      if (const auto sp = info.find_first_of(" :"); sp != std::string_view::npos) {
        if (auto q = path_of_line(info.substr(sp + 1))) p = q;
      } else if (auto q = path_of_line(info); q && q->find('/') != std::string::npos) {
        p = q;
      }
      if (has_search) {  // the fence lines are skipped; the content is parsed as usual
        in_transparent = true;
        if (p) path = p;
        continue;
      }
      ++code_blocks;
      if (j >= lines.size()) {
        return fail(edit_error::truncated, "the code block at answer line " + std::to_string(i + 1) +
                                               (p ? " (" + *p + ")" : std::string()) + " is never closed (truncated answer?)");
      }
      if (p) {
        edit_block b;
        b.type = edit_block::kind::whole_file;
        b.line = i + 1;
        path = p;
        if (auto e = target(b.line, b.path)) {
          out.error = std::move(e);
          return out;
        }
        b.replace = join(lines, i + 1, j);
        if (!b.replace.empty()) b.replace += '\n';
        out.blocks.push_back(std::move(b));
      }
      i = j;
      near_path.reset();
      continue;
    }
    if (trim(l).empty()) continue;
    if (is_divider(l) || is_replace(l)) continue;  // stray markers: ignored
    near_path = path_of_line(l);
    if (near_path) path = near_path;
  }
  if (out.blocks.empty()) {
    std::string why = "the answer has no edit: no SEARCH/REPLACE block";
    if (code_blocks > 0) {
      why += ", and none of its " + std::to_string(code_blocks) + " code block(s) follows a file path line";
    }
    return fail(edit_error::no_edit, why);
  }
  (void)opt;
  return out;
}

namespace {

// Replaces the single occurrence of b.search in `content`; an error when there is none or
// more than one.
std::optional<edit_failure> apply_one(std::string& content, const edit_block& b, std::size_t index, const edit_options& opt) {
  const std::string head = b.path + ": SEARCH block " + std::to_string(index) + " (answer line " + std::to_string(b.line) + ")";
  std::vector<std::size_t> at;
  for (std::size_t p = content.find(b.search); p != std::string::npos; p = content.find(b.search, p + 1)) {
    at.push_back(p);
    if (at.size() > 8) break;
  }
  auto lines_of = [&](const std::vector<std::size_t>& offsets) {
    std::string s;
    for (auto o : offsets) s += (s.empty() ? "" : ", ") + std::to_string(line_of(content, o));
    return s;
  };
  if (at.size() == 1) {
    content.replace(at[0], b.search.size(), b.replace);
    return std::nullopt;
  }
  if (at.size() > 1) {
    return edit_failure{edit_error::ambiguous, head + " occurs " + std::to_string(at.size()) + " times (lines " + lines_of(at) +
                                                   "): quote more lines so it is unique"};
  }
  if (opt.whitespace_tolerant) {
    // Line by line, each line trimmed; blank lines at the ends of the SEARCH text ignored.
    const auto want_all = split_lines(b.search);
    std::size_t from = 0, to = want_all.size();
    while (from < to && trim(want_all[from].text).empty()) ++from;
    while (to > from && trim(want_all[to - 1].text).empty()) --to;
    const auto have = split_lines(content);
    std::vector<std::size_t> starts;
    if (to > from) {
      for (std::size_t i = 0; i + (to - from) <= have.size(); ++i) {
        bool same = true;
        for (std::size_t k = from; k < to && same; ++k) same = trim(have[i + k - from].text) == trim(want_all[k].text);
        if (same) starts.push_back(i);
      }
    }
    if (starts.size() == 1) {
      const std::size_t b0 = have[starts[0]].begin;
      const auto& last = have[starts[0] + (to - from) - 1];
      const std::size_t e0 = last.begin + last.text.size();
      content.replace(b0, e0 - b0, b.replace);
      return std::nullopt;
    }
    if (starts.size() > 1) {
      std::vector<std::size_t> offs;
      for (auto s : starts) offs.push_back(have[s].begin);
      return edit_failure{edit_error::ambiguous, head + " matches " + std::to_string(starts.size()) +
                                                     " places when indentation is ignored (lines " + lines_of(offs) +
                                                     "): quote more lines so it is unique"};
    }
  }
  return edit_failure{edit_error::not_found, head + " does not occur in the file (its first line: '" + first_line(b.search) +
                                                 "'): copy the SEARCH text exactly from the current file"};
}

}  // namespace

applied_edits apply_blocks(const search::file_map& files, const std::vector<edit_block>& blocks, const edit_options& opt) {
  applied_edits out;
  out.files = files;
  if (blocks.empty()) {
    out.error = edit_failure{edit_error::no_edit, "the answer has no edit"};
    return out;
  }
  std::size_t index = 0;
  for (const auto& b : blocks) {
    ++index;
    auto it = out.files.find(b.path);
    if (it == out.files.end()) {
      out.error = edit_failure{edit_error::unknown_file, "edit " + std::to_string(index) + " targets '" + b.path +
                                                             "', which is not one of the files shown"};
      return out;
    }
    if (b.type == edit_block::kind::whole_file) {
      if (it->second.size() > opt.whole_file_limit || b.replace.size() > opt.whole_file_limit) {
        out.error = edit_failure{edit_error::too_large,
                                 b.path + ": whole-file rewrite (answer line " + std::to_string(b.line) + ") refused: the file has " +
                                     std::to_string(std::max(it->second.size(), b.replace.size())) + " bytes, over the limit of " +
                                     std::to_string(opt.whole_file_limit) + "; use SEARCH/REPLACE blocks"};
        return out;
      }
      if (b.replace.find_first_not_of(" \t\r\n") == std::string::npos) {
        out.error = edit_failure{edit_error::truncated, b.path + ": the whole-file rewrite at answer line " + std::to_string(b.line) +
                                                            " is empty (truncated answer?)"};
        return out;
      }
      it->second = b.replace;
      continue;
    }
    if (auto e = apply_one(it->second, b, index, opt)) {
      out.error = std::move(e);
      return out;
    }
  }
  for (const auto& [p, c] : out.files) {
    auto o = files.find(p);
    if (o == files.end() || o->second != c) out.changed.push_back(p);
  }
  if (out.changed.empty()) {
    out.error = edit_failure{edit_error::no_change, "the edits leave every file unchanged"};
  }
  return out;
}

std::optional<std::string> bracket_problem(std::string_view code) {
  struct open {
    char c;
    std::size_t line;
  };
  std::vector<open> stack;
  std::size_t line = 1;
  const std::size_t n = code.size();
  for (std::size_t i = 0; i < n; ++i) {
    const char c = code[i];
    if (c == '\n') {
      ++line;
      continue;
    }
    if (c == '/' && i + 1 < n && code[i + 1] == '/') {
      while (i < n && code[i] != '\n') ++i;
      --i;
      continue;
    }
    if (c == '/' && i + 1 < n && code[i + 1] == '*') {
      i += 2;
      while (i + 1 < n && !(code[i] == '*' && code[i + 1] == '/')) {
        if (code[i] == '\n') ++line;
        ++i;
      }
      ++i;
      continue;
    }
    if (c == 'R' && i + 1 < n && code[i + 1] == '"') {  // raw string R"delim( ... )delim"
      const std::size_t paren = code.find('(', i + 2);
      if (paren != std::string_view::npos) {
        const std::string close = ")" + std::string(code.substr(i + 2, paren - i - 2)) + "\"";
        const std::size_t end = code.find(close, paren);
        const std::size_t stop = end == std::string_view::npos ? n : end + close.size();
        line += static_cast<std::size_t>(std::count(code.begin() + static_cast<std::ptrdiff_t>(i), code.begin() + static_cast<std::ptrdiff_t>(stop), '\n'));
        i = stop - 1;
        continue;
      }
    }
    if (c == '\'' && i > 0 && std::isxdigit(static_cast<unsigned char>(code[i - 1])) != 0 && i + 1 < n &&
        std::isxdigit(static_cast<unsigned char>(code[i + 1])) != 0) {
      continue;  // digit separator: 1'000
    }
    if (c == '"' || c == '\'') {
      ++i;
      while (i < n && code[i] != c && code[i] != '\n') {
        if (code[i] == '\\') ++i;
        ++i;
      }
      if (i < n && code[i] == '\n') ++line;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') {
      stack.push_back({c, line});
      continue;
    }
    if (c == ')' || c == ']' || c == '}') {
      const char want = c == ')' ? '(' : c == ']' ? '[' : '{';
      if (stack.empty()) return "line " + std::to_string(line) + ": '" + std::string(1, c) + "' closes nothing";
      if (stack.back().c != want) {
        return "line " + std::to_string(line) + ": '" + std::string(1, c) + "' closes '" + std::string(1, stack.back().c) +
               "' opened on line " + std::to_string(stack.back().line);
      }
      stack.pop_back();
    }
  }
  if (!stack.empty()) {
    return "'" + std::string(1, stack.back().c) + "' opened on line " + std::to_string(stack.back().line) + " is never closed";
  }
  return std::nullopt;
}

struct parse_checker::impl {
  bool use_libclang = true;
  std::unique_ptr<motifs::parser> parser;
  std::map<std::string, std::vector<std::string>> errors_cache;  // (file set, path) hash -> error messages

  // Parse errors of `path` in `files` without their locations (which shift with edits); a
  // parse that fails outright is one error.
  std::vector<std::string> errors(const search::file_map& files, const std::string& path) {
    common::sha256 h;
    h.field(path);
    for (const auto& [p, c] : files) h.field(p).field(c);
    const std::string key = h.finish_hex();
    if (auto it = errors_cache.find(key); it != errors_cache.end()) return it->second;
    if (!parser) parser = std::make_unique<motifs::parser>();
    std::vector<std::string> out;
    try {
      const auto f = parser->parse(files, path);
      for (const auto& d : f->diagnostics()) {
        const auto at = d.find("error:");
        out.push_back(at == std::string::npos ? d : d.substr(at));
      }
    } catch (const std::exception& e) {
      out.push_back(std::string("error: ") + e.what());
    }
    if (errors_cache.size() > 256) errors_cache.clear();
    errors_cache.emplace(key, out);
    return out;
  }
};

parse_checker::parse_checker(bool use_libclang) : impl_(std::make_unique<impl>()) { impl_->use_libclang = use_libclang; }
parse_checker::~parse_checker() = default;

std::optional<edit_failure> parse_checker::check(const search::file_map& before, const search::file_map& after,
                                                 const std::vector<std::string>& changed) {
  for (const auto& p : changed) {
    if (!is_cpp(p)) continue;
    auto a = after.find(p);
    if (a == after.end()) continue;
    auto b = before.find(p);
    const bool was_balanced = b == before.end() || !bracket_problem(b->second);
    if (auto why = bracket_problem(a->second); why && was_balanced) {
      return edit_failure{edit_error::does_not_parse, p + ": the edited code does not parse: unbalanced brackets, " + *why};
    }
  }
  if (!impl_->use_libclang) return std::nullopt;
  for (const auto& p : changed) {
    if (!is_cpp(p) || after.count(p) == 0) continue;
    const auto now = impl_->errors(after, p);
    const auto was = before.count(p) != 0 ? impl_->errors(before, p) : std::vector<std::string>{};
    if (now.size() <= was.size()) continue;
    std::multiset<std::string> old(was.begin(), was.end());
    std::string first = now.front();
    for (const auto& e : now) {
      auto it = old.find(e);
      if (it == old.end()) {
        first = e;
        break;
      }
      old.erase(it);
    }
    return edit_failure{edit_error::does_not_parse, p + ": the edited code does not parse (" + std::to_string(now.size()) +
                                                        " error(s), " + std::to_string(was.size()) + " before): " + first};
  }
  return std::nullopt;
}

std::vector<answer_section> split_sections(std::string_view answer) {
  const auto lines = split_lines(answer);
  static const std::vector<std::string_view> words = {"proposal", "variant", "rewrite", "step", "change", "edit", "deoptimization"};
  // Heading text after the word and its number, or nullopt when the line is no section heading.
  auto heading = [&](std::string_view l) -> std::optional<std::string> {
    std::string_view s = trim(l);
    if (!s.starts_with("#")) return std::nullopt;
    while (s.starts_with("#")) s.remove_prefix(1);
    s = trim(s);
    while (s.starts_with("*")) s.remove_prefix(1);
    const std::string low = lower(s);
    for (auto w : words) {
      if (!low.starts_with(w)) continue;
      std::string_view rest = s.substr(w.size());
      if (!rest.empty() && std::isalpha(static_cast<unsigned char>(rest.front())) != 0) {
        if (rest.front() == 's' && (rest.size() == 1 || !std::isalpha(static_cast<unsigned char>(rest[1])))) return std::nullopt;
        continue;
      }
      rest = trim(rest);
      if (rest.starts_with("#")) rest.remove_prefix(1);
      while (!rest.empty() && std::isdigit(static_cast<unsigned char>(rest.front())) != 0) rest.remove_prefix(1);
      rest = trim(rest);
      while (!rest.empty() && (rest.front() == ':' || rest.front() == '.' || rest.front() == ')' || rest.front() == '-' ||
                               rest.front() == '*')) {
        rest.remove_prefix(1);
        rest = trim(rest);
      }
      std::string t(rest);
      while (!t.empty() && (t.back() == '*' || t.back() == ' ')) t.pop_back();
      return t;
    }
    return std::nullopt;
  };
  std::vector<answer_section> out;
  std::vector<std::size_t> starts;
  bool in_fence = false, in_block = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto l = lines[i].text;
    if (is_search(l)) in_block = true;
    else if (is_replace(l)) in_block = false;
    else if (is_fence(l) && !in_block) in_fence = !in_fence;
    else if (!in_fence && !in_block && heading(l)) starts.push_back(i);
  }
  if (starts.empty()) starts.push_back(0);
  for (std::size_t s = 0; s < starts.size(); ++s) {
    const std::size_t from = starts[s];
    const std::size_t to = s + 1 < starts.size() ? starts[s + 1] : lines.size();
    answer_section sec;
    sec.line = from + 1;
    std::size_t body_from = from;
    if (auto h = heading(lines[from].text)) {
      sec.title = *h;
      body_from = from + 1;
    }
    for (std::size_t i = body_from; i < to; ++i) {
      sec.body += lines[i].text;
      sec.body += '\n';
    }
    // Fields and prose: the lines before the first edit block or code fence.
    for (std::size_t i = body_from; i < to; ++i) {
      const auto l = lines[i].text;
      if (is_search(l) || is_fence(l)) break;
      std::string_view t = trim(l);
      while (t.starts_with("-") || t.starts_with("*")) t = trim(t.substr(1));
      const auto colon = t.find(':');
      if (colon != std::string_view::npos && colon > 0 && colon < 24) {
        std::string key = lower(t.substr(0, colon));
        while (!key.empty() && key.back() == '*') key.pop_back();
        const bool word = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
          return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_' || c == ' ';
        });
        if (word && key.find(' ') == std::string::npos) {
          std::string_view v = trim(t.substr(colon + 1));
          while (v.starts_with("*")) v = trim(v.substr(1));
          if (!v.empty() && !path_of_line(t)) {
            sec.fields[key] = std::string(v);
            continue;
          }
        }
      }
      if (!t.empty() && !path_of_line(t)) {
        sec.prose += std::string(t);
        sec.prose += '\n';
      }
    }
    if (sec.title.empty() && sec.fields.count("title") != 0) sec.title = sec.fields["title"];
    out.push_back(std::move(sec));
  }
  return out;
}

std::string edit_format_help(const edit_options& opt) {
  return "Write each change as a SEARCH/REPLACE block on the line after the file's path:\n"
         "\n"
         "op_kernel/example.cpp\n"
         "<<<<<<< SEARCH\n"
         "the exact current lines (enough of them to be unique in the file)\n"
         "=======\n"
         "the new lines\n"
         ">>>>>>> REPLACE\n"
         "\n"
         "Several blocks may follow one another, for one file or several. A file of at most " +
         std::to_string(opt.whole_file_limit) +
         " bytes may instead be rewritten whole: its path on one line, then the complete new file in one fenced code "
         "block. Do not edit files you were not shown.";
}

applied_edits edit_files(std::string_view text, const search::file_map& files, const edit_options& opt,
                         parse_checker& checker) {
  auto parsed = parse_edits(text, files, opt);
  if (parsed.error) return {{}, {}, std::move(parsed.error)};
  auto applied = apply_blocks(files, parsed.blocks, opt);
  if (applied.error) return applied;
  if (auto bad = checker.check(files, applied.files, applied.changed)) applied.error = std::move(bad);
  return applied;
}

}  // namespace aopt::llm
