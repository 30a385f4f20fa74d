#include "aopt/evaluation/spec.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <limits>
#include <set>

#include "aopt/common/error.h"
#include "aopt/common/fs.h"
#include "aopt/common/json.h"

namespace aopt::evaluation {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;
using common::json_doc;

std::int64_t tensor_spec::numel() const {
  std::int64_t n = 1;
  for (auto d : shape) {
    if (__builtin_mul_overflow(n, d, &n)) return std::numeric_limits<std::int64_t>::max();
  }
  return n;
}

tolerance_spec::entry tolerance_spec::for_dtype(dtype t) const {
  auto it = per_dtype.find(t);
  if (it != per_dtype.end()) return it->second;
  switch (t) {
    case dtype::float16: return {1e-3, 1e-3};
    case dtype::bfloat16: return {4e-3, 4e-3};
    case dtype::float32: return {1e-4, 1e-4};
    case dtype::complex64: return for_dtype(dtype::float32);  // per component
    default: return {0, 0};
  }
}

const case_spec* op_spec::find_case(const std::string& name) const {
  for (const auto& c : cases) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

namespace {

// A name cut to 40 bytes (on a UTF-8 boundary) for messages: a 10 MB name is not echoed whole.
std::string shown(const std::string& s) {
  if (s.size() <= 40) return s;
  std::size_t k = 40;
  while (k > 0 && (static_cast<unsigned char>(s[k]) & 0xC0) == 0x80) --k;
  return s.substr(0, k) + "... (" + std::to_string(s.size()) + " bytes)";
}

// Case and tensor names become file names (run/<case>/, out_<name>.bin): bounded, without path
// separators, blanks or control characters. Empty string when `name` is fine.
std::string name_problem(const std::string& name) {
  if (name.empty()) return "the name is empty";
  if (name.size() > max_name_bytes) {
    return "\"" + shown(name) + "\" is longer than the limit of " + std::to_string(max_name_bytes) + " bytes";
  }
  for (unsigned char c : name) {
    if (c < 0x20 || c == 0x7f || c == '/' || c == '\\' || c == ' ') {
      return "\"" + shown(name) + "\" contains a slash, a blank or a control character";
    }
  }
  return {};
}
constexpr const char* name_fix = "use at most 128 letters, digits, '-', '_' and '.'";

// Empty when the shape has at most max_tensor_elements elements (checked without overflow).
std::string shape_problem(const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (auto d : shape) {
    if (d > max_tensor_elements / n) return "the shape has more than 2^40 elements";
    n *= d;
  }
  return {};
}

std::string shape_text(const std::vector<std::int64_t>& shape) { return nlohmann::json(shape).dump(); }

std::string bytes_text(std::uint64_t b) {
  char buf[64];
  std::snprintf(buf, sizeof buf, " (%.1f GiB)", static_cast<double>(b) / double(1u << 30));
  return std::to_string(b) + " bytes" + buf;
}

nlohmann::json tensor_json(const tensor_spec& t) {
  nlohmann::json j = {{"shape", t.shape}, {"dtype", dtype_name(t.type)}};
  if (t.range) j["range"] = {t.range->first, t.range->second};
  if (!t.values.empty()) j["values"] = t.values;
  if (t.sorted) j["sorted"] = true;
  return j;
}

}  // namespace

nlohmann::json op_spec::to_json() const {
  nlohmann::json j;
  j["kernel"] = kernel;
  j["reference"] = reference_is_baseline() ? "baseline" : fs::path(reference).filename().string();
  if (seed) j["seed"] = *seed;
  if (!timed_shape.empty()) j["timed_shape"] = timed_shape;
  nlohmann::json tol = nlohmann::json::object();
  for (const auto& [t, e] : tolerance.per_dtype) tol[dtype_name(t)] = {{"rtol", e.rtol}, {"atol", e.atol}};
  tol["max_mismatch_ratio"] = tolerance.max_mismatch_ratio;
  j["tolerance"] = tol;
  j["cases"] = nlohmann::json::array();
  for (const auto& c : cases) {
    nlohmann::json cj = {{"name", c.name}, {"timed", c.timed}, {"attrs", c.attrs}};
    nlohmann::json ins = nlohmann::json::array();
    for (const auto& in : c.inputs) {
      nlohmann::json ij = {{"name", in.name}};
      if (in.is_list) {
        ij["list"] = nlohmann::json::array();
        for (const auto& t : in.tensors) ij["list"].push_back(tensor_json(t));
      } else {
        ij["tensor"] = tensor_json(in.tensors.at(0));
      }
      ins.push_back(ij);
    }
    cj["inputs"] = ins;
    nlohmann::json outs = nlohmann::json::array();
    for (const auto& o : c.outputs) {
      nlohmann::json oj = {{"name", o.name}};
      if (o.shape) oj["shape"] = *o.shape;
      if (o.type) oj["dtype"] = dtype_name(*o.type);
      if (!o.list_shapes.empty()) oj["list_shapes"] = o.list_shapes;
      outs.push_back(oj);
    }
    cj["outputs"] = outs;
    j["cases"].push_back(cj);
  }
  return j;
}

namespace {

// Validates one aopt.json document. `ptr` is the JSON pointer of a value (positions), `field`
// its human name ("cases[0].inputs.x.shape").
class spec_reader {
 public:
  explicit spec_reader(const json_doc& doc) : doc_(doc) {}

  [[noreturn]] void fail(const std::string& ptr, const std::string& field, const std::string& problem,
                         const std::string& fix) const {
    throw error(ec::invalid_spec, doc_.where(ptr) + ": field '" + field + "': " + problem + "; " + fix);
  }
  void warn_unknown(const ojson& obj, const std::string& ptr, const std::string& field,
                    const std::set<std::string>& known, std::vector<std::string>& warnings) const {
    for (auto it = obj.begin(); it != obj.end(); ++it) {
      if (!known.count(it.key())) {
        std::string list;
        for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
        warnings.push_back(doc_.where_key(ptr + "/" + common::pointer_token(it.key())) + ": unknown key '" +
                           shown(it.key()) + "' in " + (field.empty() ? "the top level" : "'" + field + "'") +
                           " is ignored (known keys: " + list + ")");
      }
    }
  }
  static std::string type_name(const ojson& v) { return v.type_name(); }

  const ojson& need_object(const ojson& v, const std::string& ptr, const std::string& field) const {
    if (!v.is_object()) fail(ptr, field, "expected an object, found " + type_name(v), "write it as {\"key\": value, ...}");
    return v;
  }
  std::string need_string(const ojson& v, const std::string& ptr, const std::string& field) const {
    if (!v.is_string()) fail(ptr, field, "expected a string, found " + type_name(v), "quote the value");
    return v.get<std::string>();
  }
  double need_number(const ojson& v, const std::string& ptr, const std::string& field) const {
    if (!v.is_number()) fail(ptr, field, "expected a number, found " + type_name(v), "write a plain number such as 0.001");
    const double d = v.get<double>();
    if (!std::isfinite(d)) fail(ptr, field, "the number is not finite", "use a finite value");
    return d;
  }
  dtype need_dtype(const ojson& v, const std::string& ptr, const std::string& field) const {
    const std::string s = need_string(v, ptr, field);
    auto t = parse_dtype(s);
    if (!t) {
      std::string list;
      for (const auto& n : dtype_names()) list += (list.empty() ? "" : " ") + n;
      fail(ptr, field, "unknown dtype \"" + s + "\"", "use one of: " + list);
    }
    return *t;
  }
  std::vector<std::int64_t> need_shape(const ojson& v, const std::string& ptr, const std::string& field) const {
    if (!v.is_array()) {
      fail(ptr, field, "the shape is not a list of positive integers (found " + type_name(v) + ")",
           "write it as a list such as [8, 2048]");
    }
    std::vector<std::int64_t> shape;
    for (std::size_t i = 0; i < v.size(); ++i) {
      const auto& d = v[i];
      const std::string dptr = ptr + "/" + std::to_string(i);
      if (!d.is_number_integer() || d.get<std::int64_t>() <= 0) {
        fail(dptr, field, "dimension " + std::to_string(i) + " is " + d.dump() +
                              ": the shape is not a list of positive integers",
             "every dimension must be an integer >= 1");
      }
      shape.push_back(d.get<std::int64_t>());
    }
    if (const auto p = shape_problem(shape); !p.empty()) fail(ptr, field, p, "use a smaller shape");
    return shape;
  }

  tensor_spec read_tensor(const ojson& v, const std::string& ptr, const std::string& field,
                          std::vector<std::string>& warnings) const {
    need_object(v, ptr, field);
    warn_unknown(v, ptr, field, {"shape", "dtype", "range", "value", "sorted"}, warnings);
    tensor_spec t;
    if (!v.contains("shape")) fail(ptr, field + ".shape", "missing", "add \"shape\": [d0, d1, ...]");
    if (!v.contains("dtype")) fail(ptr, field + ".dtype", "missing", "add \"dtype\": \"float16\" (or another dtype)");
    t.shape = need_shape(v["shape"], ptr + "/shape", field + ".shape");
    t.type = need_dtype(v["dtype"], ptr + "/dtype", field + ".dtype");
    if (v.contains("range")) {
      const auto& r = v["range"];
      const std::string rptr = ptr + "/range";
      if (!r.is_array() || r.size() != 2) {
        fail(rptr, field + ".range", "expected a list of two numbers [lo, hi], found " + r.dump(), "write e.g. [-1, 1]");
      }
      const double lo = need_number(r[0], rptr + "/0", field + ".range");
      const double hi = need_number(r[1], rptr + "/1", field + ".range");
      if (lo > hi) {
        fail(rptr, field + ".range", "range reversed: lo " + r[0].dump() + " > hi " + r[1].dump(),
             "write the smaller bound first");
      }
      t.range = std::make_pair(lo, hi);
    }
    if (v.contains("value")) t.values = read_value(v["value"], t, ptr + "/value", field + ".value");
    if (v.contains("sorted")) {
      if (!v["sorted"].is_boolean()) {
        fail(ptr + "/sorted", field + ".sorted", "expected true or false, found " + v["sorted"].dump(),
             "write \"sorted\": true for values generated non-decreasing");
      }
      t.sorted = v["sorted"].get<bool>();
      if (t.sorted && !t.values.empty()) {
        fail(ptr + "/sorted", field + ".sorted", "\"sorted\" applies to generated values, but the input gives its \"value\"",
             "drop \"sorted\" (give the values in the order wanted) or drop \"value\"");
      }
    }
    return t;
  }

  // An input's exact data ("value", as msOpST's case files): a flat list of numbers, one per
  // element in row-major order, or one number given to every element.
  std::vector<double> read_value(const ojson& v, const tensor_spec& t, const std::string& ptr, const std::string& field) const {
    const auto n = t.numel();
    if (v.is_number() || v.is_boolean()) {
      const double x = v.is_boolean() ? (v.get<bool>() ? 1.0 : 0.0) : need_number(v, ptr, field);
      return std::vector<double>(static_cast<std::size_t>(n), x);
    }
    if (!v.is_array()) {
      fail(ptr, field, "expected a number or a flat list of numbers, found " + v.dump(),
           "write one number for every element, or a list of " + std::to_string(n) + " numbers (row-major)");
    }
    if (static_cast<std::int64_t>(v.size()) != n) {
      fail(ptr, field, "the list has " + std::to_string(v.size()) + " numbers but the shape has " + std::to_string(n) + " elements",
           "give one number per element in row-major order, or one number for all");
    }
    std::vector<double> out;
    out.reserve(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
      const auto& e = v[i];
      if (e.is_boolean()) {
        out.push_back(e.get<bool>() ? 1.0 : 0.0);
        continue;
      }
      if (!e.is_number()) {
        fail(ptr + "/" + std::to_string(i), field, "element " + std::to_string(i) + " is not a number: " + e.dump(),
             "write a flat list of numbers (no nested lists)");
      }
      out.push_back(e.get<double>());
    }
    return out;
  }

  op_spec read() {
    op_spec spec;
    spec.source = doc_.file;
    const ojson& root = doc_.value;
    need_object(root, "", "(top level)");
    warn_unknown(root, "", "", {"kernel", "cases", "tolerance", "reference", "seed", "description", "version", "timed_shape", "notes"},
                 spec.warnings);
    read_header(root, spec);
    if (root.contains("reference")) spec.reference = read_reference(root["reference"]);
    if (root.contains("tolerance")) read_tolerance(root["tolerance"], spec);
    read_cases(root, spec);
    if (root.contains("timed_shape")) {
      const auto& v = root["timed_shape"];
      constexpr const char* fix = "write the timed case's shape as a list of positive integers, e.g. [64, 32768]";
      if (!v.is_array() || v.empty()) fail("/timed_shape", "timed_shape", "expected a non-empty list, found " + v.dump(), fix);
      std::vector<std::int64_t> shape;
      for (const auto& d : v) {
        if (!d.is_number_integer() || d.get<std::int64_t>() < 1) fail("/timed_shape", "timed_shape", "dimension " + d.dump() + " is not a positive integer", fix);
        shape.push_back(d.get<std::int64_t>());
      }
      set_timed_shape(spec, shape, doc_.where("/timed_shape") + ": field 'timed_shape'");
    }
    return spec;
  }

 private:
  // version, kernel, description, notes, seed.
  void read_header(const ojson& root, op_spec& spec) const {
    if (root.contains("version")) {
      const auto& v = root["version"];
      if (!v.is_number_integer() || v.get<int>() != 1) {
        fail("/version", "version", "unsupported version " + v.dump(), "this aopt reads version 1; remove the field or set it to 1");
      }
    }
    if (!root.contains("kernel")) fail("", "kernel", "missing", "add \"kernel\": \"<kernel function name>\", e.g. \"add_custom\"");
    spec.kernel = need_string(root["kernel"], "/kernel", "kernel");
    if (spec.kernel.empty() || spec.kernel.size() > max_name_bytes || spec.kernel.find_first_not_of(
                                   "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != std::string::npos) {
      fail("/kernel", "kernel", "\"" + shown(spec.kernel) + "\" is not a C identifier of at most 128 bytes",
           "use the kernel function's name");
    }
    if (root.contains("description")) need_string(root["description"], "/description", "description");
    // "notes": what a person (or `aopt init`) guessed or wants to remember; not used otherwise.
    if (root.contains("notes")) {
      const auto& v = root["notes"];
      if (!v.is_array()) fail("/notes", "notes", "expected a list of strings, found " + v.dump(), "write \"notes\": [\"...\"]");
      for (std::size_t i = 0; i < v.size(); ++i) need_string(v[i], "/notes/" + std::to_string(i), "notes");
    }
    if (root.contains("seed")) {
      const auto& s = root["seed"];
      if (!s.is_number_unsigned()) fail("/seed", "seed", "expected a non-negative integer, found " + s.dump(), "write e.g. 1");
      spec.seed = s.get<std::uint64_t>();
    }
  }

  // "baseline", or a C++ file inside the directory of aopt.json (its absolute path).
  std::string read_reference(const ojson& v) const {
    const std::string ref = need_string(v, "/reference", "reference");
    if (ref == "baseline") return ref;
    if (ref.empty()) fail("/reference", "reference", "empty", "write \"baseline\" or a path to a C++ file");
    const auto ext = fs::path(ref).extension().string();
    if (ext != ".cpp" && ext != ".cc" && ext != ".cxx") {
      fail("/reference", "reference", "\"" + shown(ref) + "\" is neither \"baseline\" nor a C++ file (.cpp/.cc)",
           "write \"baseline\" or the path, relative to aopt.json, of a .cpp implementing aopt_reference()");
    }
    // Inside the directory of aopt.json, after symbolic links, before the file is looked at:
    // the error is the same whether a file elsewhere exists or not.
    const fs::path dir = fs::absolute(doc_.file).parent_path();
    const auto p = common::resolve_under(dir, ref);
    if (!p) {
      fail("/reference", "reference", "\"" + shown(ref) + "\" is outside the directory of aopt.json (symbolic links followed)",
           "keep the reference in the package and write its path relative to aopt.json, e.g. \"reference.cpp\"");
    }
    std::error_code e;
    if (!fs::is_regular_file(*p, e)) {
      fail("/reference", "reference", "file " + shown(ref) + " does not exist in " + dir.filename().string() + "/ (or is not a regular file)",
           "create it (see evaluation/include/aopt/reference.h) or write \"baseline\"");
    }
    if (const auto size = fs::file_size(*p, e); !e && size > max_source_file_bytes) {
      fail("/reference", "reference", "file " + shown(ref) + " has " + std::to_string(size) + " bytes, more than the limit of " +
           std::to_string(max_source_file_bytes), "make the reference smaller");
    }
    return p->string();
  }

  // "tolerance": max_mismatch_ratio and {rtol, atol} per dtype.
  void read_tolerance(const ojson& v, op_spec& spec) const {
    const auto& tol = need_object(v, "/tolerance", "tolerance");
    for (auto it = tol.begin(); it != tol.end(); ++it) {
      const std::string key = it.key();
      const std::string ptr = "/tolerance/" + common::pointer_token(key);
      const std::string field = "tolerance." + key;
      if (key == "max_mismatch_ratio") {
        const double r = need_number(it.value(), ptr, field);
        if (r < 0 || r > 1) fail(ptr, field, "must be in [0, 1], found " + it.value().dump(), "write a fraction such as 0.001");
        spec.tolerance.max_mismatch_ratio = r;
        continue;
      }
      const auto t = parse_dtype(key);
      if (!t) {
        std::string list;
        for (const auto& n : dtype_names()) list += (list.empty() ? "" : " ") + n;
        throw error(ec::invalid_spec, doc_.where_key(ptr) + ": field '" + field + "': unknown dtype \"" + key +
                                          "\"; use one of: " + list + " (or max_mismatch_ratio)");
      }
      need_object(it.value(), ptr, field);
      warn_unknown(it.value(), ptr, field, {"rtol", "atol"}, spec.warnings);
      tolerance_spec::entry e = spec.tolerance.for_dtype(*t);
      for (const char* k : {"rtol", "atol"}) {
        if (!it.value().contains(k)) continue;
        const std::string kp = ptr + "/" + k;
        const double x = need_number(it.value()[k], kp, field + "." + k);
        if (x < 0) fail(kp, field + "." + k, "tolerance negative (" + it.value()[k].dump() + ")", "use a value >= 0");
        (std::string(k) == "rtol" ? e.rtol : e.atol) = x;
      }
      spec.tolerance.per_dtype[*t] = e;
    }
  }

  // "cases": a non-empty list, unique names, at least one timed.
  void read_cases(const ojson& root, op_spec& spec) const {
    if (!root.contains("cases")) fail("", "cases", "missing", "add \"cases\": [{\"name\": ..., \"timed\": true, \"inputs\": {...}}]");
    const auto& cases = root["cases"];
    if (!cases.is_array() || cases.empty()) {
      fail("/cases", "cases", "expected a non-empty list of cases, found " + (cases.is_array() ? std::string("[]") : type_name(cases)),
           "add at least one case");
    }
    std::set<std::string> names;
    for (std::size_t ci = 0; ci < cases.size(); ++ci) {
      spec.cases.push_back(read_case(cases[ci], ci, names, spec.warnings));
    }
    if (std::none_of(spec.cases.begin(), spec.cases.end(), [](const case_spec& c) { return c.timed; })) {
      fail("/cases", "cases", "missing timed case: no case has \"timed\": true",
           "mark the case whose latency should be measured with \"timed\": true");
    }
  }

  case_spec read_case(const ojson& value, std::size_t ci, std::set<std::string>& names, std::vector<std::string>& warnings) const {
    const std::string cptr = "/cases/" + std::to_string(ci);
    const std::string cfield = "cases[" + std::to_string(ci) + "]";
    const auto& c = need_object(value, cptr, cfield);
    warn_unknown(c, cptr, cfield, {"name", "timed", "inputs", "outputs", "attrs", "description"}, warnings);
    case_spec cs;
    if (!c.contains("name")) fail(cptr, cfield + ".name", "missing", "give every case a unique \"name\"");
    cs.name = need_string(c["name"], cptr + "/name", cfield + ".name");
    if (const auto p = name_problem(cs.name); !p.empty()) fail(cptr + "/name", cfield + ".name", p, name_fix);
    if (!names.insert(cs.name).second) fail(cptr + "/name", cfield + ".name", "duplicate case name \"" + cs.name + "\"", "rename one of them");
    if (c.contains("timed")) {
      if (!c["timed"].is_boolean()) fail(cptr + "/timed", cfield + ".timed", "expected true or false, found " + c["timed"].dump(), "write true or false");
      cs.timed = c["timed"].get<bool>();
    }
    if (c.contains("description")) need_string(c["description"], cptr + "/description", cfield + ".description");
    if (!c.contains("inputs")) fail(cptr, cfield + ".inputs", "missing", "add \"inputs\": {\"x\": {\"shape\": [...], \"dtype\": \"float16\"}}");
    const auto& ins = need_object(c["inputs"], cptr + "/inputs", cfield + ".inputs");
    if (ins.empty()) fail(cptr + "/inputs", cfield + ".inputs", "no inputs", "list every input of the operator");
    for (auto it = ins.begin(); it != ins.end(); ++it) {
      cs.inputs.push_back(read_input(it.key(), it.value(), cptr + "/inputs/" + common::pointer_token(it.key()),
                                     cfield + ".inputs." + shown(it.key()), warnings));
    }
    if (c.contains("outputs")) {
      const auto& outs = need_object(c["outputs"], cptr + "/outputs", cfield + ".outputs");
      for (auto it = outs.begin(); it != outs.end(); ++it) {
        cs.outputs.push_back(read_output(it.key(), it.value(), cptr + "/outputs/" + common::pointer_token(it.key()),
                                         cfield + ".outputs." + shown(it.key()), warnings));
      }
    }
    if (c.contains("attrs")) cs.attrs = nlohmann::json(need_object(c["attrs"], cptr + "/attrs", cfield + ".attrs"));
    return cs;
  }

  // One input: a tensor, or {"list": [tensor, ...]}.
  input_spec read_input(const std::string& name, const ojson& value, const std::string& iptr, const std::string& ifield,
                        std::vector<std::string>& warnings) const {
    if (const auto p = name_problem(name); !p.empty()) fail(iptr, ifield, "input name: " + p, name_fix);
    input_spec in;
    in.name = name;
    const auto& v = need_object(value, iptr, ifield);
    if (v.contains("list")) {
      in.is_list = true;
      warn_unknown(v, iptr, ifield, {"list"}, warnings);
      const auto& l = v["list"];
      if (!l.is_array() || l.empty()) {
        fail(iptr + "/list", ifield + ".list", "expected a non-empty list of tensors", "write [{\"shape\": [...], \"dtype\": \"...\"}, ...]");
      }
      for (std::size_t k = 0; k < l.size(); ++k) {
        in.tensors.push_back(read_tensor(l[k], iptr + "/list/" + std::to_string(k), ifield + ".list[" + std::to_string(k) + "]", warnings));
      }
    } else {
      in.tensors.push_back(read_tensor(v, iptr, ifield, warnings));
    }
    return in;
  }

  // One output: its shape, dtype, or (a tensor-list output) each element's shape.
  output_spec read_output(const std::string& name, const ojson& value, const std::string& optr, const std::string& ofield,
                          std::vector<std::string>& warnings) const {
    if (const auto p = name_problem(name); !p.empty()) fail(optr, ofield, "output name: " + p, name_fix);
    const auto& v = need_object(value, optr, ofield);
    warn_unknown(v, optr, ofield, {"shape", "dtype", "list"}, warnings);
    output_spec o;
    o.name = name;
    if (v.contains("shape")) o.shape = need_shape(v["shape"], optr + "/shape", ofield + ".shape");
    if (v.contains("list")) {
      const auto& l = v["list"];
      if (!l.is_array() || l.empty() || v.contains("shape")) {
        fail(optr + "/list", ofield + ".list", "expected a non-empty list of {\"shape\": [...]} (and no \"shape\" beside it)",
             "write \"list\": [{\"shape\": [...]}, ...], one per element of the output list");
      }
      for (std::size_t k = 0; k < l.size(); ++k) {
        const std::string eptr = optr + "/list/" + std::to_string(k);
        const std::string efield = ofield + ".list[" + std::to_string(k) + "]";
        const auto& e = need_object(l[k], eptr, efield);
        warn_unknown(e, eptr, efield, {"shape"}, warnings);
        if (!e.contains("shape")) fail(eptr, efield + ".shape", "missing", "give the element's shape, e.g. {\"shape\": [16, 32]}");
        o.list_shapes.push_back(need_shape(e["shape"], eptr + "/shape", efield + ".shape"));
      }
    }
    if (v.contains("dtype")) o.type = need_dtype(v["dtype"], optr + "/dtype", ofield + ".dtype");
    return o;
  }

  const json_doc& doc_;
};

// A value of an unexpected type that a check missed reaches nlohmann's get<>() as type_error:
// still the file's fault, so aopt::error(invalid_spec) naming the file, not an internal error.
template <class F>
op_spec converting_json_errors(const fs::path& file, F&& read) {
  try {
    return read();
  } catch (const nlohmann::json::exception& e) {
    throw error(ec::invalid_spec, file.string() + ": a value has an unexpected type (" + e.what() +
                                      "); compare the file with the format in docs/evaluation.md");
  }
}

}  // namespace

op_spec parse_op_spec(const std::string& text, const fs::path& file) {
  return converting_json_errors(file, [&] {
    const json_doc doc = common::parse_json_doc(text, file);
    return spec_reader(doc).read();
  });
}

op_spec load_op_spec(const fs::path& file) {
  return parse_op_spec(common::read_text_file(file, max_spec_file_bytes), file);
}

void set_timed_shape(op_spec& spec, const std::vector<std::int64_t>& shape, const std::string& origin) {
  const auto bad = [&](const std::string& problem, const std::string& fix) {
    throw error(ec::invalid_spec, origin + ": " + problem + "; " + fix);
  };
  if (shape.empty()) bad("the shape is empty", "give at least one dimension, e.g. 64x32768");
  for (auto d : shape) {
    if (d < 1) bad("dimension " + std::to_string(d) + " is below 1", "give positive dimensions, e.g. 64x32768");
  }
  if (const auto p = shape_problem(shape); !p.empty()) bad(p, "give a smaller shape");
  const auto timed = std::find_if(spec.cases.begin(), spec.cases.end(), [](const case_spec& c) { return c.timed; });
  if (timed == spec.cases.end()) bad("the spec has no timed case", "mark one case \"timed\": true");
  // The timed case's main shape: its largest input tensor's (the first of the largest).
  const std::vector<std::int64_t>* main = nullptr;
  for (const auto& in : timed->inputs) {
    for (const auto& t : in.tensors) {
      if (main == nullptr || t.numel() > tensor_spec{*main, t.type, {}}.numel()) main = &t.shape;
    }
  }
  if (main == nullptr) bad("the timed case '" + timed->name + "' has no input to scale", "scale a case with inputs");
  const std::vector<std::int64_t> from = *main;
  // A tensor's new shape, or nullopt when it keeps its own.
  const auto scaled = [&](const std::vector<std::int64_t>& s) -> std::optional<std::vector<std::int64_t>> {
    if (s == from) return shape;
    if (s.size() != from.size() || from.size() != shape.size()) return std::nullopt;
    std::vector<std::int64_t> out(s.size());
    for (std::size_t k = 0; k < s.size(); ++k) {
      if (s[k] == from[k]) out[k] = shape[k];
      else if (s[k] == 1) out[k] = 1;
      else return std::nullopt;
    }
    return out;
  };
  for (auto& in : timed->inputs) {
    for (std::size_t k = 0; k < in.tensors.size(); ++k) {
      auto& t = in.tensors[k];
      const auto to = scaled(t.shape);
      if (!to) continue;
      if (!t.values.empty()) {
        bad("input '" + in.name + "' of the timed case '" + timed->name + "' has given values",
            "scale a case whose inputs are generated, or write the shapes in aopt.json");
      }
      t.shape = *to;
    }
  }
  for (auto& o : timed->outputs) {
    if (!o.shape) continue;
    if (const auto to = scaled(*o.shape)) o.shape = *to;
  }
  spec.timed_shape = shape;
  spec.warnings.push_back(origin + ": the timed case '" + timed->name + "' runs at " + shape_text(shape) + " (written " +
                          shape_text(from) + ")");
}

std::vector<std::int64_t> parse_shape_text(const std::string& text, const std::string& what) {
  const auto bad = [&]() -> std::vector<std::int64_t> {
    throw error(ec::invalid_argument, what + " '" + shown(text) + "': not a shape; write the dimensions as 64x32768 or 64,32768");
  };
  std::string t;
  for (char c : text) {
    if (c != ' ' && c != '[' && c != ']') t += c;
  }
  std::vector<std::int64_t> out;
  std::size_t i = 0;
  while (i <= t.size()) {
    std::size_t j = t.find_first_of("x,", i);
    if (j == std::string::npos) j = t.size();
    const std::string d = t.substr(i, j - i);
    if (d.empty() || d.size() > 18 || d.find_first_not_of("0123456789") != std::string::npos) return bad();
    out.push_back(std::stoll(d));
    if (out.back() < 1) return bad();
    i = j + 1;
  }
  return out;
}

std::uint64_t case_bytes_limit(std::uint64_t address_space_bytes) { return address_space_bytes / 2; }

void check_case_memory(const op_spec& spec, std::uint64_t address_space_bytes) {
  const std::uint64_t limit = case_bytes_limit(address_space_bytes);
  for (const auto& c : spec.cases) {
    std::uint64_t total = 0, largest_bytes = 0;
    std::string largest;
    auto add = [&](const std::string& name, const std::vector<std::int64_t>& shape, dtype t) {
      std::uint64_t b = 0;
      if (__builtin_mul_overflow(static_cast<std::uint64_t>(tensor_spec{shape, t, {}}.numel()), dtype_size(t), &b) ||
          __builtin_add_overflow(total, b, &total)) {
        total = b = std::numeric_limits<std::uint64_t>::max();
      }
      if (b >= largest_bytes) {
        largest_bytes = b;
        largest = "'" + name + "' " + shape_text(shape) + " " + dtype_name(t) + ": " + bytes_text(b);
      }
    };
    for (const auto& in : c.inputs) {
      for (std::size_t k = 0; k < in.tensors.size(); ++k) {
        add(in.is_list ? in.name + "[" + std::to_string(k) + "]" : in.name, in.tensors[k].shape, in.tensors[k].type);
      }
    }
    for (const auto& o : c.outputs) {
      const dtype t = o.type ? *o.type : (c.inputs.empty() ? dtype::float32 : c.inputs.front().tensors.at(0).type);
      for (std::size_t k = 0; k < o.list_shapes.size(); ++k) add(o.name + "[" + std::to_string(k) + "]", o.list_shapes[k], t);
      if (!o.shape) continue;
      add(o.name, *o.shape, t);
    }
    if (total > limit) {
      throw error(ec::invalid_spec, spec.source.string() + ": case '" + c.name + "': its tensors take " +
                                        bytes_text(total) + ", more than the limit of " + bytes_text(limit) +
                                        " (half the run's memory limit of " + bytes_text(address_space_bytes) +
                                        "); the largest is " + largest +
                                        "; use smaller shapes, or raise the memory limit (aopt eval --memory-limit MiB)");
    }
  }
}

namespace {

std::optional<dtype> msopst_dtype(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (s.rfind("dt_", 0) == 0) s = s.substr(3);  // ge::DataType spellings: DT_FLOAT16
  if (s == "float" || s == "fp32") return dtype::float32;
  if (s == "fp16" || s == "half") return dtype::float16;
  if (s == "bf16") return dtype::bfloat16;
  if (s == "double" || s == "float64" || s == "fp64") return std::nullopt;
  return parse_dtype(s);
}

// msOpST's "value": the input's data, nested lists in row-major order; its nesting is the shape.
void flatten_values(const nlohmann::ordered_json& v, std::vector<double>& out, std::vector<std::int64_t>& shape,
                    std::size_t depth) {
  if (!v.is_array()) {
    out.push_back(v.is_boolean() ? (v.get<bool>() ? 1.0 : 0.0) : v.get<double>());
    return;
  }
  if (shape.size() <= depth) shape.push_back(static_cast<std::int64_t>(v.size()));
  for (const auto& e : v) flatten_values(e, out, shape, depth + 1);
}

bool is_literal(const nlohmann::ordered_json& v) {
  if (v.is_number() || v.is_boolean()) return true;
  if (!v.is_array() || v.empty()) return false;
  return std::all_of(v.begin(), v.end(), [](const auto& e) { return is_literal(e); });
}

bool is_fuzz_field(const nlohmann::ordered_json& v) { return v.is_string() && v.get<std::string>() == "fuzz"; }

// A case is a fuzz case when it names a fuzz_impl or leaves a field to one.
bool is_fuzz_case(const nlohmann::ordered_json& c) {
  if (c.contains("fuzz_impl")) return true;
  auto any = [](const nlohmann::ordered_json& list, std::initializer_list<const char*> keys) {
    if (!list.is_array()) return false;
    return std::any_of(list.begin(), list.end(), [&](const auto& e) {
      return e.is_object() && std::any_of(keys.begin(), keys.end(), [&](const char* k) { return e.contains(k) && is_fuzz_field(e[k]); });
    });
  };
  return any(c.value("input_desc", nlohmann::ordered_json()), {"shape", "value"}) ||
         any(c.value("output_desc", nlohmann::ordered_json()), {"shape"}) || any(c.value("attr", nlohmann::ordered_json()), {"value"});
}

// Case `c` with one fuzz call's fields written in; `fail(message)` for a field that does not fit.
template <class Fail>
nlohmann::ordered_json merge_fuzz_call(const nlohmann::ordered_json& c, const nlohmann::ordered_json& call, Fail&& fail) {
  nlohmann::ordered_json merged = c;
  if (!call.is_object()) fail("returned a " + std::string(call.type_name()) + ", not a dict with input_desc, attr and output_desc");
  struct section {
    const char* key;
    std::set<std::string> fields;
  };
  const section sections[] = {{"input_desc", {"shape", "value"}}, {"attr", {"value"}}, {"output_desc", {"shape"}}};
  for (const auto& [key, value] : call.items()) {
    const auto* sec = std::find_if(std::begin(sections), std::end(sections), [&](const section& s) { return key == s.key; });
    if (sec == std::end(sections)) fail("returned key '" + key + "'; the dict may hold input_desc, attr and output_desc");
    if (!value.is_object()) fail("returned " + key + " as a " + value.type_name() + "; it must be a dict by name");
    auto& list = merged[key];
    for (const auto& [name, fields] : value.items()) {
      auto entry = std::find_if(list.begin(), list.end(), [&](const auto& e) { return e.is_object() && e.value("name", std::string()) == name; });
      if (entry == list.end()) {
        std::string names;
        for (const auto& e : list) names += (names.empty() ? "" : ", ") + e.value("name", std::string("?"));
        fail("returned " + key + " '" + name + "', which the case does not have (its " + key + ": " + (names.empty() ? "none" : names) + ")");
      }
      if (!fields.is_object()) fail("returned " + key + " '" + name + "' as a " + fields.type_name() + "; it must be a dict");
      for (const auto& [field, v] : fields.items()) {
        if (!sec->fields.count(field)) fail("returned field '" + field + "' for " + key + " '" + name + "' (allowed: " + (key == std::string("input_desc") ? "shape, value" : key == std::string("attr") ? "value" : "shape") + ")");
        (*entry)[field] = v;
      }
    }
  }
  for (const auto& sec : sections) {
    if (!merged.contains(sec.key) || !merged[sec.key].is_array()) continue;
    for (const auto& e : merged[sec.key]) {
      for (const auto& f : sec.fields) {
        if (e.is_object() && e.contains(f) && is_fuzz_field(e[f])) {
          fail("returned no " + f + " for " + sec.key + " '" + e.value("name", std::string("?")) + "' (the case leaves it to the function)");
        }
      }
    }
  }
  return merged;
}

// A case's input shape as a concrete one. msOpST writes a dynamic dimension as -1 (-2: any
// rank) and gives the shape it runs as `typical_shape`, and each dynamic dimension's bounds in
// `shape_range` (one [low, high] per -1, in order): the typical shape when it is given, else each
// -1 at its range's low end; otherwise the error says which field to add.
std::vector<std::int64_t> concrete_msopst_shape(const nlohmann::ordered_json& in, const nlohmann::ordered_json& shape,
                                                const std::function<void(const std::string&, const std::string&)>& fail) {
  auto positive = [](const nlohmann::ordered_json& d) { return d.is_number_integer() && d.get<std::int64_t>() > 0; };
  std::vector<std::int64_t> out;
  bool dynamic = false;
  for (const auto& d : shape) {
    if (d.is_number_integer() && (d.get<std::int64_t>() == -1 || d.get<std::int64_t>() == -2)) {
      dynamic = true;
      continue;
    }
    if (!positive(d)) fail("/shape", "shape " + shape.dump() + " is not a list of positive integers (-1 marks a dynamic dimension)");
  }
  if (!dynamic) {
    for (const auto& d : shape) out.push_back(d.get<std::int64_t>());
    return out;
  }
  if (in.contains("typical_shape")) {
    const auto& ts = in["typical_shape"];
    const bool ok = ts.is_array() && !ts.empty() && std::all_of(ts.begin(), ts.end(), positive) &&
                    (ts.size() == shape.size() || shape.size() == 1);
    if (!ok) fail("/typical_shape", "typical_shape " + ts.dump() + " is not a list of positive integers of the shape's rank " + std::to_string(shape.size()));
    for (const auto& d : ts) out.push_back(d.get<std::int64_t>());
    return out;
  }
  const auto* range = in.contains("shape_range") && in["shape_range"].is_array() ? &in["shape_range"] : nullptr;
  std::size_t next = 0;
  for (const auto& d : shape) {
    if (positive(d)) {
      out.push_back(d.get<std::int64_t>());
      continue;
    }
    const bool have = d.get<std::int64_t>() == -1 && range != nullptr && next < range->size() && (*range)[next].is_array() &&
                      !(*range)[next].empty() && positive((*range)[next][0]);
    if (!have) {
      fail("/shape", "shape " + shape.dump() + " has a dynamic dimension and the case gives no typical_shape nor a shape_range [low, high] for it: add \"typical_shape\": [concrete sizes] to the input");
    }
    out.push_back((*range)[next][0].get<std::int64_t>());
    ++next;
  }
  return out;
}

op_spec read_msopst(const std::string& text, const fs::path& file, const std::string& kernel, const msopst_fuzz_outputs& fuzz) {
  const json_doc doc = common::parse_json_doc(text, file);
  std::string context;  // names the fuzz call a case came from
  auto fail = [&](const std::string& ptr, const std::string& msg) -> void {
    throw error(ec::invalid_spec, doc.where(ptr) + ": msOpST case file: " + context + msg);
  };
  op_spec spec;
  spec.kernel = kernel;
  spec.source = file;
  const auto& root = doc.value;
  if (!root.is_array() || root.empty()) fail("", "expected a non-empty list of test cases");
  // One case object (read from the file or filled in by a fuzz call) into spec.cases.
  auto add_case = [&](const nlohmann::ordered_json& c, const std::string& base, const std::string& cptr, bool from_fuzz) {
    const auto& ins = c["input_desc"];
    // Columns: `type` may be a string or a list (one case per entry, index-aligned across inputs).
    std::size_t columns = 1;
    for (const auto& in : ins) {
      if (in.contains("type") && in["type"].is_array()) columns = std::max<std::size_t>(columns, in["type"].size());
    }
    for (std::size_t col = 0; col < columns; ++col) {
      case_spec cs;
      cs.name = columns == 1 ? base : base + "_" + std::to_string(col);
      for (std::size_t ii = 0; ii < ins.size(); ++ii) {
        const std::string iptr = cptr + "/input_desc/" + std::to_string(ii);
        const auto& in = ins[ii];
        if (!in.is_object()) fail(iptr, "input_desc entry is not an object");
        input_spec is;
        is.name = in.contains("name") && in["name"].is_string() ? in["name"].get<std::string>() : "x" + std::to_string(ii);
        if (const auto p = name_problem(is.name); !p.empty()) fail(iptr + "/name", "name: " + p + "; " + name_fix);
        tensor_spec t;
        if (!in.contains("type")) fail(iptr, "input_desc entry without 'type'");
        const auto& ty = in["type"];
        std::string tname;
        if (ty.is_string()) tname = ty.get<std::string>();
        else if (ty.is_array() && !ty.empty() && ty[std::min(col, ty.size() - 1)].is_string()) tname = ty[std::min(col, ty.size() - 1)].get<std::string>();
        else fail(iptr + "/type", "'type' must be a string or a non-empty list of strings");
        // An optional input the case leaves out.
        if (tname == "UNDEFINED" || tname == "undefined") continue;
        const auto dt = msopst_dtype(tname);
        if (!dt) fail(iptr + "/type", "unknown dtype \"" + tname + "\" (known: float16/fp16/half, float/float32/fp32, bfloat16/bf16, int8..int64, uint8..uint64, bool, complex64)");
        t.type = *dt;
        if (from_fuzz && in.contains("value") && !is_literal(in["value"])) fail(iptr + "/value", "input '" + is.name + "': the value is not a number, boolean or nested list of them");
        const auto* value = in.contains("value") && is_literal(in["value"]) ? &in["value"] : nullptr;
        if (value != nullptr && value->is_array()) {
          // The data decides the shape (msOpST builds the tensor from the value).
          std::vector<std::int64_t> vshape;
          flatten_values(*value, t.values, vshape, 0);
          t.shape = vshape;
          if (from_fuzz && in.contains("shape") && in["shape"].is_array() && in["shape"] != nlohmann::ordered_json(vshape)) {
            fail(iptr + "/shape", "input '" + is.name + "': shape " + in["shape"].dump() + " but a value of shape " + shape_text(vshape));
          }
          if (t.numel() != static_cast<std::int64_t>(t.values.size())) fail(iptr + "/value", "input '" + is.name + "': the value's nested lists are ragged (not all rows of one length)");
        } else if (in.contains("shape") && in["shape"].is_array()) {
          const auto& sh = in["shape"];
          const auto& shape = (!sh.empty() && sh[0].is_array()) ? sh[std::min(col, sh.size() - 1)] : sh;
          t.shape = concrete_msopst_shape(in, shape, [&](const std::string& field, const std::string& m) { fail(iptr + field, "input '" + is.name + "': " + m); });
          if (t.shape != shape.get<std::vector<std::int64_t>>()) {
            spec.warnings.push_back(doc.where(iptr + "/shape") + ": input '" + is.name + "': the dynamic shape " + shape.dump() +
                                    " runs as " + shape_text(t.shape) + " (msOpST's typical_shape, else each -1 at the low end of its shape_range)");
          }
        } else if (!in.contains("shape")) {
          // No shape: a scalar input (one element).
        } else {
          fail(iptr + "/shape", "'shape' must be a list of positive integers");
        }
        if (value != nullptr && !value->is_array()) {
          // A scalar value: every element of the declared shape holds it.
          std::vector<std::int64_t> none;
          flatten_values(*value, t.values, none, 0);
          t.values.assign(static_cast<std::size_t>(t.numel()), t.values.front());
        }
        if (const auto p = shape_problem(t.shape); !p.empty()) fail(iptr + "/shape", p + "; use a smaller shape");
        if (in.contains("value_range")) {
          const auto& vr = in["value_range"];
          const auto& r = (!vr.empty() && vr[0].is_array()) ? vr[std::min(col, vr.size() - 1)] : vr;
          if (r.is_array() && r.size() == 2 && r[0].is_number() && r[1].is_number()) {
            if (r[0].get<double>() > r[1].get<double>()) fail(iptr + "/value_range", "value_range reversed");
            t.range = std::make_pair(r[0].get<double>(), r[1].get<double>());
          }
        }
        is.tensors.push_back(t);
        cs.inputs.push_back(std::move(is));
      }
      if (c.contains("output_desc") && c["output_desc"].is_array()) {
        for (std::size_t oi = 0; oi < c["output_desc"].size(); ++oi) {
          const auto& o = c["output_desc"][oi];
          if (!o.is_object()) continue;
          output_spec os;
          os.name = o.contains("name") && o["name"].is_string() ? o["name"].get<std::string>() : "y" + std::to_string(oi);
          const std::string optr = cptr + "/output_desc/" + std::to_string(oi);
          if (const auto p = name_problem(os.name); !p.empty()) fail(optr + "/name", "name: " + p + "; " + name_fix);
          if (o.contains("shape") && o["shape"].is_array() && !o["shape"].empty() && o["shape"][0].is_number_integer()) {
            std::vector<std::int64_t> s;
            for (const auto& d : o["shape"]) s.push_back(d.get<std::int64_t>());
            if (std::all_of(s.begin(), s.end(), [](std::int64_t d) { return d > 0; }) && shape_problem(s).empty()) os.shape = s;
          }
          if (from_fuzz && o.contains("shape") && !os.shape) fail(optr + "/shape", "output '" + os.name + "': shape " + o["shape"].dump() + " is not a list of positive integers");
          if (o.contains("type")) {
            const auto& ty = o["type"];
            std::string tname = ty.is_string() ? ty.get<std::string>()
                                : (ty.is_array() && !ty.empty() ? ty[std::min(col, ty.size() - 1)].get<std::string>() : "");
            os.type = msopst_dtype(tname);
          }
          cs.outputs.push_back(std::move(os));
        }
      }
      if (c.contains("attr") && c["attr"].is_array()) {
        for (const auto& a : c["attr"]) {
          if (a.is_object() && a.contains("name") && a.contains("value")) cs.attrs[a["name"].get<std::string>()] = nlohmann::json(a["value"]);
        }
      }
      spec.cases.push_back(std::move(cs));
    }
  };
  for (std::size_t ci = 0; ci < root.size(); ++ci) {
    const std::string cptr = "/" + std::to_string(ci);
    const auto& c = root[ci];
    if (!c.is_object()) fail(cptr, "case " + std::to_string(ci) + " is not an object");
    if (!c.contains("case_name") || !c["case_name"].is_string()) fail(cptr, "case " + std::to_string(ci) + ": missing string 'case_name'");
    if (!c.contains("input_desc") || !c["input_desc"].is_array()) fail(cptr, "case " + std::to_string(ci) + ": missing list 'input_desc'");
    const std::string base = c["case_name"].get<std::string>();
    if (const auto p = name_problem(base); !p.empty()) fail(cptr + "/case_name", "case_name: " + p + "; " + name_fix);
    if (!is_fuzz_case(c)) {
      add_case(c, base, cptr, false);
      continue;
    }
    // A fuzz case: its fields come from the calls of its fuzz_impl function (run by package
    // loading, evaluation/fuzz.h); without them it is skipped.
    const auto it = fuzz.find(ci);
    if (it == fuzz.end()) {
      spec.warnings.push_back(doc.where(cptr) + ": case " + base + " is a fuzz case (its shapes come from " +
                              c.value("fuzz_impl", std::string("a fuzz script")) + "), not run: skipped; add an aopt.json with concrete shapes");
      continue;
    }
    const auto& calls = it->second.calls;
    for (std::size_t k = 0; k < calls.size(); ++k) {
      context = "case " + base + ": " + it->second.origin + (calls.size() > 1 ? ", call " + std::to_string(k + 1) + " of " + std::to_string(calls.size()) : "") + ": ";
      const auto merged = merge_fuzz_call(c, calls[k], [&](const std::string& m) { fail(cptr, m); });
      add_case(merged, calls.size() == 1 ? base : base + "_fuzz" + std::to_string(k + 1), cptr, true);
    }
    context.clear();
    spec.warnings.push_back(doc.where(cptr) + ": case " + base + ": " + std::to_string(calls.size()) + " case" +
                            (calls.size() == 1 ? "" : "s") + " from " + it->second.origin);
  }
  if (spec.cases.empty()) fail("", "no case with concrete shapes (fuzz cases are skipped); add an aopt.json beside op_host/");
  spec.cases.front().timed = true;
  spec.warnings.push_back(file.string() + ": cases imported from msOpST; the first case (" + spec.cases.front().name +
                          ") is timed; add an aopt.json to choose");
  return spec;
}

}  // namespace

std::string msopst_fuzz_request::origin() const {
  return script.filename().string() + ":" + function + " (numpy seed " + std::to_string(seed) + ")";
}

std::vector<msopst_fuzz_request> msopst_fuzz_requests(const std::string& text, const fs::path& file) {
  std::vector<msopst_fuzz_request> out;
  const json_doc doc = common::parse_json_doc(text, file);
  if (!doc.value.is_array()) return out;  // parse_msopst_cases says what is wrong
  const fs::path dir = fs::absolute(file).lexically_normal().parent_path();
  for (std::size_t ci = 0; ci < doc.value.size(); ++ci) {
    const auto& c = doc.value[ci];
    if (!c.is_object() || !is_fuzz_case(c)) continue;
    const std::string cptr = "/" + std::to_string(ci);
    msopst_fuzz_request r;
    r.index = ci;
    r.case_name = c.contains("case_name") && c["case_name"].is_string() ? c["case_name"].get<std::string>() : "#" + std::to_string(ci);
    r.where = doc.where(cptr);
    r.seed = ci + 1;
    auto fail = [&](const std::string& ptr, const std::string& msg) {
      throw error(ec::invalid_spec, doc.where(ptr) + ": msOpST case file: case " + r.case_name + ": " + msg);
    };
    if (!c.contains("fuzz_impl")) fail(cptr, "has \"fuzz\" fields but no \"fuzz_impl\"; name the function that fills them in, e.g. \"fuzz_impl\": \"fuzz.py:fuzz_branch_001\", or write concrete values");
    const auto& impl = c["fuzz_impl"];
    const std::string text_impl = impl.is_string() ? impl.get<std::string>() : std::string();
    const auto colon = text_impl.rfind(':');
    const std::string script = colon == std::string::npos ? "" : text_impl.substr(0, colon);
    r.function = colon == std::string::npos ? "" : text_impl.substr(colon + 1);
    const fs::path sp = fs::path(script).lexically_normal();
    const bool script_ok = !script.empty() && sp.extension() == ".py" && sp.is_relative() && !sp.empty() && *sp.begin() != "..";
    const bool function_ok = !r.function.empty() && r.function.size() <= max_name_bytes && (std::isalpha(static_cast<unsigned char>(r.function[0])) || r.function[0] == '_') &&
                             std::all_of(r.function.begin(), r.function.end(), [](unsigned char ch) { return std::isalnum(ch) || ch == '_'; });
    if (!script_ok || !function_ok) {
      fail(cptr + "/fuzz_impl", "fuzz_impl " + impl.dump() + " is not \"SCRIPT.py:FUNCTION\" with SCRIPT a path inside " + dir.string() + " and FUNCTION a Python name; write e.g. \"fuzz.py:fuzz_branch_001\"");
    }
    r.script = dir / sp;
    if (c.contains("fuzz_case_num")) {
      const auto& n = c["fuzz_case_num"];
      if (!n.is_number_integer() || n.get<std::int64_t>() < 1 || n.get<std::int64_t>() > max_fuzz_case_num) {
        fail(cptr + "/fuzz_case_num", "fuzz_case_num " + n.dump() + " is not a whole number from 1 to " + std::to_string(max_fuzz_case_num) + "; write how many cases to make");
      }
      r.count = static_cast<std::uint32_t>(n.get<std::int64_t>());
    }
    out.push_back(std::move(r));
  }
  return out;
}

op_spec parse_msopst_cases(const std::string& text, const fs::path& file, const std::string& kernel,
                           const msopst_fuzz_outputs& fuzz) {
  return converting_json_errors(file, [&] { return read_msopst(text, file, kernel, fuzz); });
}

}  // namespace aopt::evaluation
