#include "aopt/common/json.h"

#include <cctype>
#include <cmath>
#include <limits>

#include "aopt/common/error.h"
#include "aopt/common/fs.h"

namespace aopt::common {

text_pos pos_of_offset(const std::string& text, std::size_t offset) {
  text_pos p{1, 1};
  const std::size_t end = std::min(offset, text.size());
  for (std::size_t i = 0; i < end; ++i) {
    if (text[i] == '\n') {
      ++p.line;
      p.col = 1;
    } else {
      ++p.col;
    }
  }
  return p;
}

nlohmann::json number_to_json(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

double number_from_json(const nlohmann::json& j, const char* key, double absent, double null_as) {
  const auto it = j.find(key);
  if (it == j.end()) return absent;
  if (it->is_null()) return null_as;
  if (it->is_string()) {
    const auto& s = it->get_ref<const std::string&>();
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
  }
  return it->get<double>();
}

std::string pointer_token(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

namespace {

// Walks text already accepted by nlohmann (so it is valid JSON) and records where each value
// starts. Recursive descent over the token structure only.
class locator {
 public:
  locator(const std::string& t, std::map<std::string, text_pos>& out) : t_(t), out_(out) {}
  void run() {
    skip_ws();
    value("");
  }

 private:
  void skip_ws() {
    while (i_ < t_.size() && std::isspace(static_cast<unsigned char>(t_[i_]))) advance();
  }
  void advance() {
    if (t_[i_] == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    ++i_;
  }
  std::string string_lit() {  // at '"'
    advance();
    std::string s;
    while (i_ < t_.size() && t_[i_] != '"') {
      if (t_[i_] == '\\') {
        advance();
        if (i_ < t_.size()) {
          const char e = t_[i_];
          switch (e) {
            case 'n': s += '\n'; break;
            case 't': s += '\t'; break;
            case 'r': s += '\r'; break;
            case 'b': s += '\b'; break;
            case 'f': s += '\f'; break;
            case 'u': s += "\\u"; break;  // keys with \u escapes keep them raw; rare
            default: s += e;
          }
          advance();
        }
      } else {
        s += t_[i_];
        advance();
      }
    }
    if (i_ < t_.size()) advance();
    return s;
  }
  void value(const std::string& ptr) {
    out_[ptr] = {line_, col_};
    if (i_ >= t_.size()) return;
    const char c = t_[i_];
    if (c == '{') {
      advance();
      skip_ws();
      if (i_ < t_.size() && t_[i_] == '}') {
        advance();
        return;
      }
      while (i_ < t_.size()) {
        skip_ws();
        const text_pos kpos{line_, col_};
        const std::string key = string_lit();
        const std::string child = ptr + "/" + pointer_token(key);
        out_[child + "#key"] = kpos;
        skip_ws();
        if (i_ < t_.size() && t_[i_] == ':') advance();
        skip_ws();
        value(child);
        skip_ws();
        if (i_ < t_.size() && t_[i_] == ',') {
          advance();
          continue;
        }
        if (i_ < t_.size() && t_[i_] == '}') advance();
        return;
      }
    } else if (c == '[') {
      advance();
      skip_ws();
      if (i_ < t_.size() && t_[i_] == ']') {
        advance();
        return;
      }
      for (int idx = 0; i_ < t_.size(); ++idx) {
        skip_ws();
        value(ptr + "/" + std::to_string(idx));
        skip_ws();
        if (i_ < t_.size() && t_[i_] == ',') {
          advance();
          continue;
        }
        if (i_ < t_.size() && t_[i_] == ']') advance();
        return;
      }
    } else if (c == '"') {
      string_lit();
    } else {
      while (i_ < t_.size() && t_[i_] != ',' && t_[i_] != '}' && t_[i_] != ']' &&
             !std::isspace(static_cast<unsigned char>(t_[i_]))) {
        advance();
      }
    }
  }

  const std::string& t_;
  std::map<std::string, text_pos>& out_;
  std::size_t i_ = 0;
  int line_ = 1, col_ = 1;
};

}  // namespace

text_pos json_doc::pos(const std::string& pointer) const {
  std::string p = pointer;
  for (;;) {
    auto it = positions.find(p);
    if (it != positions.end()) return it->second;
    if (p.empty()) return {};
    const auto slash = p.rfind('/');
    p = slash == std::string::npos ? std::string() : p.substr(0, slash);
  }
}

std::string json_doc::where(const std::string& pointer) const {
  const auto p = pos(pointer);
  if (p.line == 0) return file.string();
  return file.string() + ":" + std::to_string(p.line) + ":" + std::to_string(p.col);
}

std::string json_doc::where_key(const std::string& pointer) const {
  auto it = positions.find(pointer + "#key");
  if (it == positions.end()) return where(pointer);
  return file.string() + ":" + std::to_string(it->second.line) + ":" + std::to_string(it->second.col);
}

namespace {

// Offset of the first '[' or '{' nested deeper than `limit` (strings skipped), or npos. Runs
// before nlohmann, so a malformed text may reach it: it only counts brackets.
std::size_t too_deep_at(const std::string& t, int limit) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return i;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return std::string::npos;
}

std::string at(const std::filesystem::path& file, text_pos p) {
  return file.string() + ":" + std::to_string(p.line) + ":" + std::to_string(p.col);
}

void check_depth(const std::string& text, const std::filesystem::path& file) {
  const std::size_t off = too_deep_at(text, max_json_depth);
  if (off == std::string::npos) return;
  throw error(ec::parse_error, at(file, pos_of_offset(text, off)) + ": JSON nested deeper than " +
                                   std::to_string(max_json_depth) +
                                   " levels (lists and objects inside each other); aopt's files need fewer "
                                   "than 10: remove the extra nesting");
}

// nlohmann's exceptions as aopt::error(parse_error) with file:line:col and what to do.
[[noreturn]] void throw_parse_failure(const std::string& text, const std::filesystem::path& file,
                                      const nlohmann::json::exception& e) {
  if (const auto* pe = dynamic_cast<const nlohmann::json::parse_error*>(&e)) {
    // e.byte is 1-based and points just past the offending character.
    const auto p = pos_of_offset(text, pe->byte > 0 ? pe->byte - 1 : 0);
    std::string what = e.what();
    // Strip nlohmann's "[json.exception.parse_error.101] parse error at line 1, column 2: " prefix.
    const auto colon = what.find(": ", what.find("parse error"));
    if (colon != std::string::npos) what = what.substr(colon + 2);
    throw error(ec::parse_error, at(file, p) + ": invalid JSON: " + what);
  }
  if (e.id == 406) {  // "number overflow parsing '1e400'": nlohmann gives no position
    const std::string what = e.what();
    const auto q1 = what.find('\'');
    const auto q2 = what.rfind('\'');
    const std::string number = q1 < q2 ? what.substr(q1 + 1, q2 - q1 - 1) : std::string();
    const std::size_t off = number.empty() ? std::string::npos : text.find(number);
    std::string where = file.string();
    if (off != std::string::npos) {
      const text_pos p = pos_of_offset(text, off);
      where = at(file, p);
      std::map<std::string, text_pos> positions;
      locator(text, positions).run();
      for (const auto& [pointer, vp] : positions) {
        if (vp.line == p.line && vp.col == p.col && pointer.find('#') == std::string::npos) {
          where += ": field '" + pointer + "'";
          break;
        }
      }
    }
    throw error(ec::parse_error, where + ": number " + number +
                                     " does not fit in a double (larger than about 1.8e308); write a finite number");
  }
  throw error(ec::parse_error, file.string() + ": invalid JSON: " + e.what());
}

}  // namespace

json_doc parse_json_doc(const std::string& text, const std::filesystem::path& file) {
  check_depth(text, file);
  json_doc doc;
  doc.file = file;
  try {
    doc.value = nlohmann::ordered_json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw_parse_failure(text, file, e);
  }
  locator(text, doc.positions).run();
  return doc;
}

json_doc read_json_doc(const std::filesystem::path& file) {
  return parse_json_doc(read_text_file(file), file);
}

nlohmann::json read_json_file(const std::filesystem::path& file) {
  const std::string text = read_text_file(file);
  check_depth(text, file);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw_parse_failure(text, file, e);
  }
}

void make_valid_utf8(nlohmann::json& value) {
  if (value.is_string()) {
    value = valid_utf8(value.get_ref<const std::string&>());
  } else if (value.is_array()) {
    for (auto& v : value) make_valid_utf8(v);
  } else if (value.is_object()) {
    nlohmann::json fixed = nlohmann::json::object();
    for (auto& [k, v] : value.items()) {
      make_valid_utf8(v);
      fixed[valid_utf8(k)] = std::move(v);
    }
    value = std::move(fixed);
  }
}

void write_json_file(const std::filesystem::path& file, const nlohmann::json& value) {
  write_text_file_atomic(file, value.dump(2) + "\n");
}

}  // namespace aopt::common
