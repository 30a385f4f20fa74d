#include "aopt/vocab/experience.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <sstream>

#include "aopt/common/error.h"
#include "aopt/common/fs.h"
#include "aopt/common/json.h"
#include "aopt/common/sha256.h"

namespace aopt::vocab {

namespace {

constexpr std::array<const char*, bottleneck_class_count> k_class_names = {
    "mte2_bound",     "mte3_bound",    "vector_bound",  "scalar_bound", "serialized_pipes",
    "load_imbalance", "launch_bound",  "bank_conflict", "ub_underused"};

// Lower-case; '_', '-', '/', ':' and runs of blanks become one space; "->" becomes " to ".
std::string normalize_text(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 8);
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '-' && i + 1 < s.size() && s[i + 1] == '>') {
      out += " to ";
      ++i;
      continue;
    }
    const bool blank = c == '_' || c == '-' || c == '/' || c == ':' || c == ',' || c == '.' ||
                       c == '(' || c == ')' || std::isspace(static_cast<unsigned char>(c));
    if (blank) {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return " " + out + " ";  // padded so keywords can require word boundaries with spaces
}

struct class_keywords {
  bottleneck_class cls;
  std::vector<const char*> words;  // matched against normalize_text(), already normalized
};

const std::vector<class_keywords>& keyword_table() {
  static const std::vector<class_keywords> table = {
      {bottleneck_class::mte2_bound,
       {" mte2", "copy in", "copyin", "gm to ub", "memory bound", "memory bandwidth",
        "bandwidth bound", "load bound", "read bandwidth", "hbm"}},
      {bottleneck_class::mte3_bound,
       {" mte3", "copy out", "copyout", "ub to gm", "write back", "writeback", "store bound",
        "write bandwidth"}},
      {bottleneck_class::vector_bound,
       {"vector bound", "vec bound", "compute bound", "vector pipe", "vector unit",
        "vector compute", "vector instruction", "repeat", " simd"}},
      {bottleneck_class::scalar_bound,
       {"scalar", "getvalue", "setvalue", "element loop", "per element", "element wise loop"}},
      {bottleneck_class::serialized_pipes,
       {"serializ", "serialis", "pipe all", "pipeall", "barrier", "no overlap", "overlap",
        "double buffer", "pingpong", "ping pong", "pipelin", "synchroniz", "synchronis"}},
      {bottleneck_class::load_imbalance,
       {"imbalance", "single core", "one core", "multi core", "multicore", "core utiliz",
        "block dim", "blockdim", "idle core", "tail core", "parallelism", "load balanc"}},
      {bottleneck_class::launch_bound,
       {"launch", "head overhead", "startup", "start up", "tiny shape", "small shape"}},
      {bottleneck_class::bank_conflict, {"bank conflict", "bank group", "bankgroup", "cflt"}},
      {bottleneck_class::ub_underused,
       {"ub under", "ub utiliz", "ub usage", "ub capacity", "ub underused", "small tile",
        "tile size", "small cop", "small transfer", "transfer size", "copy size",
        "copies are small", "copies too small", "transfers are small", "tiles are small",
        "under used", "underused", "under utiliz", "underutiliz"}},
  };
  return table;
}

std::string type_name_of(const nlohmann::json& v) { return v.type_name(); }

const nlohmann::json* member(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

[[noreturn]] void field_error(const std::string& where, const std::string& field,
                              const std::string& what) {
  throw aopt::error(ec::invalid_spec, where + ": field '" + field + "': " + what);
}

std::string required_string(const nlohmann::json& j, const char* key, const std::string& where,
                            bool non_empty) {
  const nlohmann::json* v = member(j, key);
  if (v == nullptr) {
    field_error(where, key,
                "missing (every entry needs the four fields title, description, bottleneck, "
                "code_diff)");
  }
  if (!v->is_string()) field_error(where, key, "expected a string, found " + type_name_of(*v));
  std::string s = v->get<std::string>();
  if (non_empty && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isspace(c); }))
    field_error(where, key, "is empty");
  return s;
}

std::string optional_string(const nlohmann::json& j, const char* key, const std::string& where) {
  const nlohmann::json* v = member(j, key);
  if (v == nullptr || v->is_null()) return {};
  if (!v->is_string()) field_error(where, key, "expected a string, found " + type_name_of(*v));
  return v->get<std::string>();
}

double optional_number(const nlohmann::json& j, const char* key, const std::string& where,
                       const std::string& field_path) {
  const nlohmann::json* v = member(j, key);
  if (v == nullptr || v->is_null()) return 0;
  if (!v->is_number())
    field_error(where, field_path, "expected a number, found " + type_name_of(*v));
  const double d = v->get<double>();
  if (!std::isfinite(d) || d < 0) field_error(where, field_path, "must be a finite number >= 0");
  return d;
}

const std::vector<std::string>& known_keys() {
  static const std::vector<std::string> keys = {
      "id",    "title",      "description", "bottleneck", "code_diff", "evidence",
      "motif", "provenance", "embedding",   "created"};
  return keys;
}

bool is_tuple_object(const nlohmann::json& j) {
  return j.is_object() && (j.contains("title") || j.contains("code_diff"));
}

std::string at_entry(const common::json_doc& doc, const std::string& pointer, std::size_t index) {
  return doc.where(pointer) + ": entry " + std::to_string(index);
}

}  // namespace

const char* to_string(bottleneck_class c) {
  const auto i = static_cast<std::size_t>(c);
  return i < k_class_names.size() ? k_class_names[i] : "unknown";
}

const std::vector<bottleneck_class>& all_bottleneck_classes() {
  static const std::vector<bottleneck_class> all = [] {
    std::vector<bottleneck_class> v;
    for (std::size_t i = 0; i < bottleneck_class_count; ++i)
      v.push_back(static_cast<bottleneck_class>(i));
    return v;
  }();
  return all;
}

std::optional<bottleneck_class> parse_bottleneck_class(std::string_view s) {
  std::string norm = normalize_text(s);
  // trim the padding, then compare with the class names in normalized form
  norm = norm.substr(1, norm.size() >= 2 ? norm.size() - 2 : 0);
  for (std::size_t i = 0; i < k_class_names.size(); ++i) {
    std::string name = k_class_names[i];
    std::replace(name.begin(), name.end(), '_', ' ');
    if (norm == name) return static_cast<bottleneck_class>(i);
  }
  if (norm == "serialised pipes" || norm == "serialized" || norm == "serialised")
    return bottleneck_class::serialized_pipes;
  if (norm == "ub under used" || norm == "ub underutilized") return bottleneck_class::ub_underused;
  if (norm == "bank conflicts") return bottleneck_class::bank_conflict;
  if (norm == "head bound" || norm == "launch head bound") return bottleneck_class::launch_bound;
  return std::nullopt;
}

std::vector<bottleneck_class> classify_bottleneck(std::string_view text) {
  std::vector<bottleneck_class> out;
  if (auto exact = parse_bottleneck_class(text)) return {*exact};
  // "Label: explanation" (a single ':', not C++'s "::"): the label decides when it names a class.
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != ':') continue;
    if (i + 1 < text.size() && text[i + 1] == ':') {
      ++i;
      continue;
    }
    if (i > 0 && text[i - 1] != ':') {
      auto head = classify_bottleneck(text.substr(0, i));
      if (!head.empty()) return head;
    }
    break;
  }
  const std::string norm = normalize_text(text);
  for (const auto& row : keyword_table()) {
    for (const char* w : row.words) {
      if (norm.find(w) != std::string::npos) {
        out.push_back(row.cls);
        break;
      }
    }
  }
  return out;  // table is in enum order
}

const char* to_string(provenance p) {
  switch (p) {
    case provenance::rewind: return "rewind";
    case provenance::refinement: return "refinement";
    case provenance::import: return "import";
  }
  return "unknown";
}

std::optional<provenance> parse_provenance(std::string_view s) {
  if (s == "rewind") return provenance::rewind;
  if (s == "refinement" || s == "accepted_refinement") return provenance::refinement;
  if (s == "import") return provenance::import;
  return std::nullopt;
}

std::string content_id(std::string_view title, std::string_view description,
                       std::string_view bottleneck, std::string_view code_diff) {
  common::sha256 h;
  h.field(title).field(description).field(bottleneck).field(code_diff);
  return h.finish_hex();
}

std::string content_id(const experience& e) {
  return content_id(e.title, e.description, e.bottleneck, e.code_diff);
}

experience& finalize(experience& e) {
  e.id = content_id(e);
  if (e.created_ms == 0) e.created_ms = now_ms();
  return e;
}

std::vector<std::string> validate(const experience& e) {
  std::vector<std::string> problems;
  auto blank = [](const std::string& s) {
    return std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isspace(c); });
  };
  if (blank(e.title)) problems.push_back("title is empty");
  if (blank(e.bottleneck)) problems.push_back("bottleneck is empty");
  if (e.id.empty()) problems.push_back("id is empty (call finalize())");
  else if (e.id != content_id(e)) problems.push_back("id does not match the content hash of the four fields");
  if (e.evidence) {
    const auto& ev = *e.evidence;
    if (!std::isfinite(ev.slow_us) || ev.slow_us < 0) problems.push_back("evidence.slow_us must be >= 0");
    if (!std::isfinite(ev.fast_us) || ev.fast_us < 0) problems.push_back("evidence.fast_us must be >= 0");
  }
  if (e.embedding) {
    if (e.embedding->model.empty()) problems.push_back("embedding.model is empty");
    if (e.embedding->vector.empty()) problems.push_back("embedding.vector is empty");
    for (float f : e.embedding->vector) {
      if (!std::isfinite(f)) {
        problems.push_back("embedding.vector holds a non-finite value");
        break;
      }
    }
  }
  if (!e.extra.is_object()) problems.push_back("extra must be a JSON object");
  return problems;
}

nlohmann::json to_json(const experience& e) {
  nlohmann::json j = nlohmann::json::object();
  j["title"] = e.title;
  j["description"] = e.description;
  j["bottleneck"] = e.bottleneck;
  j["code_diff"] = e.code_diff;
  j["id"] = e.id;
  if (e.evidence) {
    j["evidence"] = {{"operator", e.evidence->op},
                     {"slow_us", e.evidence->slow_us},
                     {"fast_us", e.evidence->fast_us},
                     {"backend", e.evidence->backend},
                     {"profile", e.evidence->profile}};
  }
  if (!e.motif.empty()) j["motif"] = e.motif;
  j["provenance"] = to_string(e.origin);
  if (e.embedding) j["embedding"] = {{"model", e.embedding->model}, {"vector", e.embedding->vector}};
  j["created"] = format_time_ms(e.created_ms);
  if (e.extra.is_object()) {
    for (auto it = e.extra.begin(); it != e.extra.end(); ++it) {
      if (!j.contains(it.key())) j[it.key()] = it.value();
    }
  }
  return j;
}

experience experience_from_json(const nlohmann::json& j, const std::string& where,
                                provenance default_origin) {
  if (!j.is_object())
    throw aopt::error(ec::invalid_spec,
                      where + ": expected an object with the fields title, description, "
                              "bottleneck, code_diff, found " + type_name_of(j));
  experience e;
  e.title = required_string(j, "title", where, true);
  e.description = required_string(j, "description", where, false);
  e.bottleneck = required_string(j, "bottleneck", where, true);
  e.code_diff = required_string(j, "code_diff", where, false);

  if (const nlohmann::json* ev = member(j, "evidence"); ev != nullptr && !ev->is_null()) {
    if (!ev->is_object())
      field_error(where, "evidence", "expected an object, found " + type_name_of(*ev));
    experience_evidence x;
    x.op = optional_string(*ev, "operator", where);
    x.slow_us = optional_number(*ev, "slow_us", where, "evidence.slow_us");
    x.fast_us = optional_number(*ev, "fast_us", where, "evidence.fast_us");
    x.backend = optional_string(*ev, "backend", where);
    x.profile = optional_string(*ev, "profile", where);
    e.evidence = x;
  }
  e.motif = optional_string(j, "motif", where);
  e.origin = default_origin;
  if (const std::string p = optional_string(j, "provenance", where); !p.empty()) {
    auto parsed = parse_provenance(p);
    if (!parsed) field_error(where, "provenance", "'" + p + "' is not one of rewind, refinement, import");
    e.origin = *parsed;
  }
  if (const nlohmann::json* em = member(j, "embedding"); em != nullptr && !em->is_null()) {
    if (!em->is_object())
      field_error(where, "embedding", "expected an object {model, vector}, found " + type_name_of(*em));
    experience_embedding x;
    x.model = optional_string(*em, "model", where);
    const nlohmann::json* vec = member(*em, "vector");
    if (vec == nullptr || !vec->is_array())
      field_error(where, "embedding.vector", "expected an array of numbers");
    for (std::size_t i = 0; i < vec->size(); ++i) {
      const auto& f = (*vec)[i];
      if (!f.is_number())
        field_error(where, "embedding.vector[" + std::to_string(i) + "]",
                    "expected a number, found " + type_name_of(f));
      x.vector.push_back(f.get<float>());
    }
    if (x.model.empty()) field_error(where, "embedding.model", "is empty");
    e.embedding = std::move(x);
  }
  if (const std::string c = optional_string(j, "created", where); !c.empty()) {
    auto t = parse_time_ms(c);
    if (!t) field_error(where, "created", "'" + c + "' is not an ISO-8601 UTC time like 2025-01-31T12:00:00.000Z");
    e.created_ms = *t;
  }
  for (auto it = j.begin(); it != j.end(); ++it) {
    const auto& keys = known_keys();
    if (std::find(keys.begin(), keys.end(), it.key()) == keys.end()) e.extra[it.key()] = it.value();
  }
  finalize(e);
  return e;
}

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string format_time_ms(std::int64_t unix_ms) {
  std::int64_t secs = unix_ms / 1000;
  std::int64_t ms = unix_ms % 1000;
  if (ms < 0) {
    ms += 1000;
    secs -= 1;
  }
  const std::time_t t = static_cast<std::time_t>(secs);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buf;
}

std::optional<std::int64_t> parse_time_ms(std::string_view iso) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0, ms = 0;
  const std::string str(iso);
  int consumed = 0;
  if (std::sscanf(str.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &s, &consumed) != 6)
    return std::nullopt;
  std::size_t pos = static_cast<std::size_t>(consumed);
  if (pos < str.size() && str[pos] == '.') {
    ++pos;
    int digits = 0;
    while (pos < str.size() && std::isdigit(static_cast<unsigned char>(str[pos]))) {
      if (digits < 3) ms = ms * 10 + (str[pos] - '0');
      ++digits;
      ++pos;
    }
    if (digits == 0) return std::nullopt;
    for (int i = digits; i < 3; ++i) ms *= 10;
  }
  if (pos != str.size() - 1 || str[pos] != 'Z') return std::nullopt;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) return std::nullopt;
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  const std::time_t t = timegm(&tm);
  return static_cast<std::int64_t>(t) * 1000 + ms;
}

std::optional<file_format> parse_file_format(std::string_view s) {
  if (s == "auto" || s == "automatic") return file_format::automatic;
  if (s == "json") return file_format::json;
  if (s == "jsonl" || s == "ndjson") return file_format::jsonl;
  return std::nullopt;
}

namespace {

std::vector<experience> parse_json_format(const common::json_doc& doc, provenance origin) {
  const nlohmann::json value(doc.value);
  std::string array_pointer;
  const nlohmann::json* array = nullptr;
  if (value.is_array()) {
    array = &value;
  } else if (value.is_object()) {
    if (is_tuple_object(value))
      return {experience_from_json(value, doc.where("") + ": entry 0", origin)};
    static const std::vector<std::string> preferred = {"experiences", "entries", "items",
                                                       "data",        "bank",    "tuples"};
    for (const auto& key : preferred) {
      auto it = value.find(key);
      if (it != value.end() && it->is_array()) {
        array = &*it;
        array_pointer = "/" + common::pointer_token(key);
        break;
      }
    }
    if (array == nullptr) {
      for (auto it = value.begin(); it != value.end(); ++it) {
        if (it->is_array() && !it->empty() && (*it)[0].is_object()) {
          array = &*it;
          array_pointer = "/" + common::pointer_token(it.key());
          break;
        }
      }
    }
    if (array == nullptr)
      throw aopt::error(ec::invalid_spec,
                        doc.where("") + ": no array of experience entries found: expected a JSON "
                                        "array of objects with title, description, bottleneck, "
                                        "code_diff, or an object wrapping such an array");
  } else {
    throw aopt::error(ec::invalid_spec,
                      doc.where("") + ": expected a JSON array of experience entries, found " +
                          value.type_name());
  }
  std::vector<experience> out;
  out.reserve(array->size());
  for (std::size_t i = 0; i < array->size(); ++i) {
    const std::string pointer = array_pointer + "/" + std::to_string(i);
    out.push_back(experience_from_json((*array)[i], at_entry(doc, pointer, i), origin));
  }
  return out;
}

std::vector<experience> parse_jsonl_format(const std::string& text,
                                           const std::filesystem::path& file, provenance origin) {
  std::vector<experience> out;
  std::istringstream in(text);
  std::string line;
  int line_no = 0;
  std::size_t index = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#') continue;
    const std::string where = file.string() + ":" + std::to_string(line_no) + ": entry " +
                              std::to_string(index);
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (const nlohmann::json::parse_error& e) {
      throw aopt::error(ec::parse_error,
                        where + ": malformed JSON line (JSONL needs one complete object per "
                                "line): " + e.what());
    }
    out.push_back(experience_from_json(j, where, origin));
    ++index;
  }
  return out;
}

}  // namespace

std::vector<experience> parse_experience_text(const std::string& text,
                                              const std::filesystem::path& file,
                                              file_format format, provenance default_origin) {
  if (format == file_format::jsonl) return parse_jsonl_format(text, file, default_origin);
  if (format == file_format::json)
    return parse_json_format(common::parse_json_doc(text, file), default_origin);
  // automatic: whole-file JSON first, JSONL otherwise
  std::optional<common::json_doc> doc;
  try {
    doc = common::parse_json_doc(text, file);
  } catch (const aopt::error&) {
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string::npos)
      throw aopt::error(ec::invalid_spec, file.string() + ": the file is empty; expected the "
                                                         "paper's JSON array or JSONL tuples");
    if (text[first] == '[') throw;  // a broken JSON array: report the JSON error
    return parse_jsonl_format(text, file, default_origin);
  }
  return parse_json_format(*doc, default_origin);
}

std::vector<experience> read_experience_file(const std::filesystem::path& file,
                                             file_format format, provenance default_origin) {
  return parse_experience_text(common::read_text_file(file), file, format, default_origin);
}

std::string to_jsonl(const std::vector<experience>& tuples) {
  std::string out;
  for (const auto& e : tuples) {
    out += to_json(e).dump();
    out += '\n';
  }
  return out;
}

std::string to_json_array(const std::vector<experience>& tuples) {
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& e : tuples) arr.push_back(to_json(e));
  return arr.dump(2) + "\n";
}

}  // namespace aopt::vocab
