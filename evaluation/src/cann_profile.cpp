// The command profile of the `cann` backend (config/cann.example.toml): reading, checking, the
// command templates, and what the CANN tools print (ACL error codes, ops-info, msprof op CSVs).
#include <algorithm>
#include <cctype>
#include <fstream>
#include <regex>
#include <sstream>

#include <toml++/toml.h>

#include "aopt/common/error.h"
#include "aopt/common/json.h"
#include "aopt/evaluation/cann.h"
#include "aopt/evaluation/result.h"

namespace aopt::evaluation {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void bad(const std::string& what) { throw error(ec::invalid_spec, what); }

std::string at(const fs::path& file, const toml::node& n) {
  return file.string() + ":" + std::to_string(n.source().begin.line) + ":" + std::to_string(n.source().begin.column);
}

// One key of the profile: checks the TOML type, reports file:line:col: [section] key.
struct key_reader {
  const fs::path& file;
  std::string section;

  [[noreturn]] void fail(const toml::node& n, const std::string& key, const std::string& what) const {
    bad(at(file, n) + ": [" + section + "] " + key + ": " + what);
  }
  std::string text(const toml::node& n, const std::string& key) const {
    if (!n.is_string()) fail(n, key, "expected a string in quotes");
    return *n.value<std::string>();
  }
  long whole(const toml::node& n, const std::string& key, long lo, long hi) const {
    if (!n.is_integer()) fail(n, key, "expected an integer");
    const auto v = *n.value<std::int64_t>();
    if (v < lo || v > hi) fail(n, key, std::to_string(v) + " is outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    return static_cast<long>(v);
  }
  double positive(const toml::node& n, const std::string& key) const {
    if (!n.is_integer() && !n.is_floating_point()) fail(n, key, "expected a number of seconds");
    const double v = *n.value<double>();
    if (!(v > 0)) fail(n, key, "must be > 0 seconds");
    return v;
  }
};

const toml::table* table_of(const toml::table& root, const char* name, const fs::path& file) {
  const toml::node* n = root.get(name);
  if (n == nullptr) return nullptr;
  if (!n->is_table()) bad(at(file, *n) + ": '" + name + "' must be a table ([" + name + "])");
  return n->as_table();
}

void unknown(const fs::path& file, const toml::key& k, const std::string& section, const char* known) {
  bad(file.string() + ":" + std::to_string(k.source().begin.line) + ": unknown key '" + std::string(k.str()) + "' in [" +
      section + "]; known keys: " + known + "; remove it or fix its spelling");
}

bool is_status(const std::string& s) {
  return std::any_of(std::begin(result_statuses), std::end(result_statuses), [&](const char* x) { return s == x; });
}

}  // namespace

std::string cann_profile::soc_short() const {
  std::string s;
  for (char c : soc_version) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // Ascend910B4 -> ascend910b, Ascend310P3 -> ascend310p: the trailing digits after the series letter go.
  std::size_t end = s.size();
  while (end > 0 && std::isdigit(static_cast<unsigned char>(s[end - 1]))) --end;
  if (end < s.size() && end > 0 && std::isalpha(static_cast<unsigned char>(s[end - 1]))) s.resize(end);
  return s;
}

void cann_profile::validate() const {
  const std::string where = file.string() + ": ";
  if (toolkit.empty()) bad(where + "[cann] toolkit is not set; give the CANN toolkit root (the directory of set_env.sh, e.g. /usr/local/Ascend/ascend-toolkit/latest)");
  if (soc_version.empty()) bad(where + "[cann] soc_version is empty; give the chip as `npu-smi info` names it, e.g. Ascend910B4");
  if (project_template.empty()) bad(where + "[cann] project_template is not set; generate the operator's project once with msopgen (docs/cann.md, step 4) and give its directory");
  for (const auto& [key, cmd] : {std::pair<const char*, const cann_command*>{"build", &build}, {"install", &install}, {"run", &run}}) {
    if (cmd->line.empty()) bad(where + "[commands] " + key + " is empty; every candidate needs it (see config/cann.example.toml)");
  }
  if (warmup < 0 || repeat < 1 || launches < 1) bad(where + "[measure] needs warmup >= 0, repeat >= 1 and launches >= 1");
  for (const auto& [code, status] : acl_status) {
    if (!is_status(status)) bad(where + "[acl_errors] " + std::to_string(code) + " = \"" + status + "\": not a status (ok, compile_error, tiling_error, runtime_error, timeout, precision_error, resource_error)");
  }
}

fs::path default_set_env(const fs::path& toolkit) {
  std::error_code e;
  for (const fs::path& f : {toolkit / "set_env.sh", toolkit.parent_path() / "set_env.sh"}) {
    if (fs::is_regular_file(f, e)) return f;
  }
  return toolkit / "set_env.sh";
}

std::vector<fs::path> default_toolkits(const std::vector<fs::path>& roots) {
  std::vector<fs::path> out;
  for (const auto& r : roots) {
    out.push_back(r / "cann");
    out.push_back(r / "ascend-toolkit" / "latest");
  }
  return out;
}

std::optional<fs::path> find_toolkit(const std::vector<fs::path>& candidates) {
  std::error_code e;
  for (const auto& t : candidates) {
    if (fs::is_regular_file(default_set_env(t), e)) return t;
  }
  return std::nullopt;
}

cann_profile load_cann_profile(const fs::path& file) {
  std::error_code e;
  if (!fs::is_regular_file(file, e)) {
    throw error(ec::not_found, file.string() + ": no such command profile; copy config/cann.example.toml and adapt it (docs/cann.md)");
  }
  toml::table root;
  try {
    root = toml::parse_file(file.string());
  } catch (const toml::parse_error& ex) {
    throw error(ec::parse_error, file.string() + ":" + std::to_string(ex.source().begin.line) + ":" +
                                     std::to_string(ex.source().begin.column) + ": " + std::string(ex.description()) +
                                     " (TOML syntax; see config/cann.example.toml)");
  }
  cann_profile p;
  p.file = fs::absolute(file).lexically_normal();
  p.name = file.stem().string();
  const fs::path base = p.file.parent_path();
  auto path_of = [&](const std::string& s) { return s.empty() ? fs::path() : (fs::path(s).is_absolute() ? fs::path(s) : base / s).lexically_normal(); };
  for (auto&& [k, v] : root) {
    const std::string key(k.str());
    if (key != "cann" && key != "commands" && key != "measure" && key != "environment" && key != "acl_errors" && key != "timeouts") {
      bad(file.string() + ":" + std::to_string(k.source().begin.line) + ": unknown section [" + key +
          "]; sections: [cann], [commands], [timeouts], [measure], [environment], [acl_errors]");
    }
  }
  if (const auto* t = table_of(root, "cann", file)) {
    const key_reader r{file, "cann"};
    for (auto&& [k, v] : *t) {
      const std::string key(k.str());
      if (key == "name") p.name = r.text(v, key);
      else if (key == "toolkit") p.toolkit = path_of(r.text(v, key));
      else if (key == "set_env") p.set_env = path_of(r.text(v, key));
      else if (key == "soc_version") p.soc_version = r.text(v, key);
      else if (key == "device") p.device = static_cast<int>(r.whole(v, key, 0, 1023));
      else if (key == "vendor") p.vendor = r.text(v, key);
      else if (key == "project_template") p.project_template = path_of(r.text(v, key));
      else if (key == "ops_info") p.ops_info = r.text(v, key);
      else if (key == "build_store") p.build_store = path_of(r.text(v, key));
      else if (key == "max_projects") p.max_projects = static_cast<std::size_t>(r.whole(v, key, 1, 64));
      else unknown(file, k, "cann", "name, toolkit, set_env, soc_version, device, vendor, project_template, ops_info, build_store, max_projects");
    }
  }
  // [commands] NAME = "line" and [timeouts] NAME = seconds, for the same names.
  const std::pair<const char*, cann_command*> commands[] = {{"build", &p.build},   {"install", &p.install},
                                                            {"run", &p.run},       {"profile", &p.profile},
                                                            {"build_tiling", &p.build_tiling}, {"build_kernel", &p.build_kernel}};
  for (const char* section : {"commands", "timeouts"}) {
    const auto* t = table_of(root, section, file);
    if (t == nullptr) continue;
    const key_reader r{file, section};
    for (auto&& [k, v] : *t) {
      const std::string key(k.str());
      cann_command* cmd = nullptr;
      for (const auto& [name, c] : commands) {
        if (key == name) cmd = c;
      }
      if (cmd == nullptr) unknown(file, k, section, "build, install, run, profile, build_tiling, build_kernel");
      else if (section == std::string("commands")) cmd->line = r.text(v, key);
      else cmd->timeout_s = r.positive(v, key);
    }
  }
  if (const auto* t = table_of(root, "measure", file)) {
    const key_reader r{file, "measure"};
    for (auto&& [k, v] : *t) {
      const std::string key(k.str());
      if (key == "warmup") p.warmup = static_cast<int>(r.whole(v, key, 0, 10000));
      else if (key == "repeat") p.repeat = static_cast<int>(r.whole(v, key, 1, 100000));
      else if (key == "launches") p.launches = static_cast<int>(r.whole(v, key, 1, 10000));
      else unknown(file, k, "measure", "warmup, repeat, launches");
    }
  }
  if (const auto* t = table_of(root, "environment", file)) {
    const key_reader r{file, "environment"};
    for (auto&& [k, v] : *t) p.environment[std::string(k.str())] = r.text(v, std::string(k.str()));
  }
  if (const auto* t = table_of(root, "acl_errors", file)) {
    const key_reader r{file, "acl_errors"};
    for (auto&& [k, v] : *t) {
      const std::string key(k.str());
      char* end = nullptr;
      const long code = std::strtol(key.c_str(), &end, 10);
      if (key.empty() || *end != '\0') {
        bad(file.string() + ":" + std::to_string(k.source().begin.line) + ": [acl_errors] key '" + key +
            "' is not an ACL error code; write it as a quoted number, e.g. \"507015\" = \"runtime_error\"");
      }
      const std::string status = r.text(v, key);
      if (!is_status(status)) r.fail(v, key, "'" + status + "' is not a status; use runtime_error, resource_error, timeout, tiling_error or compile_error");
      p.acl_status[code] = status;
    }
  }
  if (p.set_env.empty() && !p.toolkit.empty()) p.set_env = default_set_env(p.toolkit);
  p.validate();
  return p;
}

std::string expand_command(const std::string& tpl, const std::map<std::string, std::string>& vars, const std::string& where,
                           const std::set<std::string>& raw) {
  std::string out;
  for (std::size_t i = 0; i < tpl.size();) {
    if (tpl[i] != '{') {
      out += tpl[i++];
      continue;
    }
    const auto close = tpl.find('}', i);
    if (close == std::string::npos) bad(where + ": unclosed '{' at offset " + std::to_string(i) + " in \"" + tpl + "\"");
    const std::string name = tpl.substr(i + 1, close - i - 1);
    const auto it = vars.find(name);
    if (it == vars.end()) {
      std::string known;
      for (const auto& [k, v] : vars) known += (known.empty() ? "{" : ", {") + k + "}";
      bad(where + ": unknown placeholder {" + name + "}; known: " + known);
    }
    if (raw.count(name)) {
      out += it->second;
      i = close + 1;
      continue;
    }
    // Single-quoted for the shell: a path with spaces or quotes stays one word.
    std::string q = "'";
    for (char c : it->second) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += q + "'";
    i = close + 1;
  }
  return out;
}

std::optional<long> find_acl_error_code(const std::string& text) {
  // "... failed, error code 507015", "ERROR: 561103", "error code: 107001", "ret = 507033".
  static const std::regex pattern(R"((?:error code|ERROR|errorCode|ret)\s*[:=]?\s*\[?(\d{6})\]?)", std::regex::icase);
  std::smatch m;
  if (!std::regex_search(text, m, pattern)) return std::nullopt;
  return std::stol(m[1].str());
}

namespace {

// An ops-info defaultValue (often a string: "false", "1.0", "[1,2]") as a value of the attribute's
// type, so that a runner can pass it as it passes a case's attribute.
nlohmann::json typed_default(const std::string& type, const nlohmann::json& v) {
  if (!v.is_string()) return v;
  const std::string s = v.get<std::string>();
  std::string t;
  for (char c : type) t += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  try {
    if (t == "bool") return s == "true" || s == "True" || s == "1";
    if (t == "int") return std::stoll(s);
    if (t == "float") return std::stod(s);
    if (t.rfind("list", 0) == 0) {
      const auto j = nlohmann::json::parse(s.front() == '[' ? s : "[" + s + "]");
      if (t == "listbool") {
        nlohmann::json out = nlohmann::json::array();
        for (const auto& x : j) out.push_back(x.is_string() ? x == "true" : x.get<bool>());
        return out;
      }
      return j;
    }
  } catch (const std::exception&) {
    // Not a value of its type: kept as written (the runner then names the attribute).
  }
  return v;
}

}  // namespace

nlohmann::json signature_from_ops_info(const fs::path& file, const std::string& kernel) {
  const nlohmann::json j = common::read_json_file(file);
  if (!j.is_object() || j.size() != 1 || !j.begin().value().is_object()) {
    bad(file.string() + ": expected one object {\"<OpType>\": {\"input0\": ..., \"output0\": ...}} (the installed aic-<soc>-ops-info.json)");
  }
  const std::string op_type = j.begin().key();
  const auto& op = j.begin().value();
  auto split = [](const std::string& s) {
    std::vector<std::string> v;
    std::stringstream in(s);
    for (std::string x; std::getline(in, x, ',');) v.push_back(x);
    return v;
  };
  // CANN's dtype names (ge::DataType spelled as in the ops-info file) to aopt.json's.
  auto dtype_of = [&](const std::string& d) -> std::string {
    static const std::map<std::string, std::string> names = {
        {"float16", "float16"}, {"float", "float32"},  {"float32", "float32"}, {"bfloat16", "bfloat16"}, {"int8", "int8"},
        {"uint8", "uint8"},     {"int16", "int16"},    {"uint16", "uint16"},   {"int32", "int32"},       {"uint32", "uint32"},
        {"int64", "int64"},     {"uint64", "uint64"},  {"bool", "bool"}};
    const auto it = names.find(d);
    if (it == names.end()) bad(file.string() + ": " + op_type + ": dtype '" + d + "' is not one aopt knows (" + "float16, float, bfloat16, int8..int64, uint8..uint64, bool)");
    return it->second;
  };
  nlohmann::json sig = {{"op_type", op_type}, {"kernel", kernel}, {"inputs", nlohmann::json::array()},
                        {"outputs", nlohmann::json::array()}, {"attrs", nlohmann::json::array()}, {"has_tiling", true}};
  for (const char* kind : {"input", "output"}) {
    for (int i = 0;; ++i) {
      const std::string key = kind + std::to_string(i);
      if (!op.contains(key)) break;
      const auto& d = op[key];
      nlohmann::json io = {{"name", d.value("name", key)}, {"param_type", d.value("paramType", std::string("required"))},
                           {"dtypes", nlohmann::json::array()}, {"formats", nlohmann::json::array()}};
      for (const auto& t : split(d.value("dtype", std::string()))) io["dtypes"].push_back(dtype_of(t));
      for (const auto& f : split(d.value("format", std::string()))) io["formats"].push_back(f);
      sig[std::string(kind) + "s"].push_back(io);
    }
  }
  if (op.contains("attr") && op["attr"].is_object()) {
    for (const auto& name : split(op["attr"].value("list", std::string()))) {
      const auto& a = op.value("attr_" + name, nlohmann::json::object());
      nlohmann::json aj = {{"name", name}, {"type", a.value("type", std::string("float"))},
                           {"required", a.value("paramType", std::string("optional")) == "required"}};
      if (a.contains("defaultValue")) aj["default"] = typed_default(aj["type"].get<std::string>(), a["defaultValue"]);
      sig["attrs"].push_back(aj);
    }
  }
  // No output is the in-place form (the kernel writes its inputs, which are compared like
  // outputs; docs/cann.md, "In-place operators"); no input is not an operator.
  if (sig["inputs"].empty()) bad(file.string() + ": " + op_type + " declares no input0");
  return sig;
}

std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (char c : line) {
    if (c == '"') quoted = !quoted;
    else if (c == ',' && !quoted) {
      out.push_back(cur);
      cur.clear();
    } else if (c != '\r') cur += c;
  }
  out.push_back(cur);
  for (auto& f : out) {
    while (!f.empty() && f.front() == ' ') f.erase(f.begin());
    while (!f.empty() && f.back() == ' ') f.pop_back();
  }
  return out;
}

namespace {

struct csv_rows {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

bool read_csv(const fs::path& f, csv_rows& t, std::string& why) {
  std::ifstream in(f);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto fields = csv_fields(line);
    if (t.header.empty()) {
      t.header = std::move(fields);
    } else if (fields.size() != t.header.size()) {
      why = f.string() + ":" + std::to_string(n) + ": " + std::to_string(fields.size()) + " columns, the header " +
            std::to_string(t.header.size());
      return false;
    } else {
      t.rows.push_back(std::move(fields));
    }
  }
  if (t.rows.empty()) {
    why = f.string() + " has no data row";
    return false;
  }
  return true;
}

std::optional<double> number_of(const std::string& cell) {
  if (msprof_absent(cell)) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(cell.c_str(), &end);
  if (end == nullptr || *end != '\0') return std::nullopt;
  return v;
}

// A kernel-level CSV (OpBasicInfo): the first row, numbers as numbers, N/A cells absent.
void take_first_row(const csv_rows& t, nlohmann::json& into) {
  for (std::size_t i = 0; i < t.header.size(); ++i) {
    const auto& cell = t.rows.front()[i];
    if (msprof_absent(cell)) continue;
    if (const auto v = number_of(cell)) into[t.header[i]] = *v;
    else into[t.header[i]] = cell;
  }
}

// A per-core CSV (PipeUtilization): each column's mean over the cores with a value.
void take_core_rows(const csv_rows& t, nlohmann::json& into) {
  std::optional<std::size_t> core_time;
  for (const char* c : {"aiv_time(us)", "aic_time(us)"}) {
    const auto it = std::find(t.header.begin(), t.header.end(), c);
    if (!core_time && it != t.header.end()) core_time = static_cast<std::size_t>(it - t.header.begin());
  }
  for (std::size_t i = 0; i < t.header.size(); ++i) {
    const auto& name = t.header[i];
    if (name == "block_id" || name == "sub_block_id") continue;
    double sum = 0;
    int n = 0;
    std::optional<std::string> text;
    for (const auto& row : t.rows) {
      if (const auto v = number_of(row[i])) {
        sum += *v;
        ++n;
      } else if (!msprof_absent(row[i]) && !text) {
        text = row[i];
      }
    }
    if (n > 0) into[name] = sum / n;
    else if (text) into[name] = *text;
  }
  into["msprof_cores"] = t.rows.size();
  if (core_time) {
    nlohmann::json times = nlohmann::json::array();
    for (const auto& row : t.rows) {
      if (const auto v = number_of(row[*core_time])) times.push_back(*v);
    }
    if (!times.empty()) into["core_times_us"] = times;
  }
}

}  // namespace

bool msprof_absent(const std::string& cell) {
  std::string s;
  for (char c : cell) {
    if (c != ' ' && c != '\t' && c != '\r') s += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return s.empty() || s == "N/A" || s == "NA" || s == "-";
}

std::optional<nlohmann::json> read_msprof_op(const fs::path& dir, std::string& why) {
  std::error_code e;
  fs::path newest;
  if (fs::is_directory(dir, e)) {
    for (const auto& d : fs::directory_iterator(dir, e)) {
      const auto n = d.path().filename().string();
      if (n.rfind("OPPROF_", 0) == 0 && d.is_directory() && (newest.empty() || n > newest.filename().string())) newest = d.path();
    }
  }
  if (newest.empty()) {
    why = "msprof op wrote no OPPROF_* directory under " + dir.string() +
          " (no launch matched --kernel-name? msprof op matches it as a prefix of the kernel's name, e.g. AddCustom_<hash>_0: use {op_type})";
    return std::nullopt;
  }
  nlohmann::json fields = nlohmann::json::object();
  for (const char* csv : {"OpBasicInfo.csv", "PipeUtilization.csv"}) {
    if (!fs::is_regular_file(newest / csv, e)) {
      why = "msprof op wrote no " + std::string(csv) + " in " + newest.string();
      return std::nullopt;
    }
    csv_rows t;
    if (!read_csv(newest / csv, t, why)) return std::nullopt;
    if (csv == std::string("OpBasicInfo.csv")) take_first_row(t, fields);
    else take_core_rows(t, fields);
  }
  return fields;
}

std::string with_program_path(const std::string& line) {
  const auto b = line.find_first_not_of(" \t");
  if (b == std::string::npos) return line;
  const auto e = line.find_first_of(" \t", b);
  const std::string word = line.substr(b, e == std::string::npos ? std::string::npos : e - b);
  // A path already, a variable or a quoted word: as written.
  if (word.find_first_of("/$'\"`=") != std::string::npos) return line;
  const std::string q = expand_command("{w}", {{"w", word}}, "run");
  return line.substr(0, b) + "\"$(command -v " + q + " || echo " + q + ")\"" + (e == std::string::npos ? "" : line.substr(e));
}

}  // namespace aopt::evaluation
