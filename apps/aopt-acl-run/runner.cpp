#include "runner.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

namespace fs = std::filesystem;

namespace aopt::acl_run {
namespace {

// The text without comments (string literals do not occur in a declaration header's prototypes).
std::string without_comments(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s.compare(i, 2, "//") == 0) {
      while (i < s.size() && s[i] != '\n') ++i;
      out += '\n';
    } else if (s.compare(i, 2, "/*") == 0) {
      const auto end = s.find("*/", i + 2);
      i = end == std::string::npos ? s.size() : end + 1;
      out += ' ';
    } else {
      out += s[i];
    }
  }
  return out;
}

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::string trimmed(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

// "const  aclTensor*" -> "const aclTensor *": one space between words, " *" before stars.
std::string normalized_type(const std::string& t) {
  std::string out;
  for (char c : t) {
    if (c == '*') {
      while (!out.empty() && out.back() == ' ') out.pop_back();
      out += out.empty() || out.back() == '*' ? "*" : " *";
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += c;
    }
  }
  return trimmed(out);
}

std::optional<param_kind> kind_of(const std::string& type) {
  std::string base = type;
  if (base.rfind("const ", 0) == 0) base = base.substr(6);
  static const std::map<std::string, param_kind> kinds = {
      {"aclTensor *", param_kind::tensor},           {"aclTensorList *", param_kind::tensor_list},
      {"aclScalar *", param_kind::scalar},           {"aclIntArray *", param_kind::int_array},
      {"aclFloatArray *", param_kind::float_array},  {"aclBoolArray *", param_kind::bool_array},
      {"double", param_kind::f64},                   {"float", param_kind::f32},
      {"int64_t", param_kind::i64},                  {"int32_t", param_kind::i32},
      {"int", param_kind::i32},                      {"bool", param_kind::boolean},
      {"char *", param_kind::string},                {"uint64_t *", param_kind::workspace_size},
      {"aclOpExecutor **", param_kind::executor}};
  const auto it = kinds.find(base);
  if (it == kinds.end()) return std::nullopt;
  return it->second;
}

// A header parameter CANN names "<name>Optional": an optional input or pointer-typed attribute
// (nullptr takes the operator's default).
bool optional_name(const std::string& name) { return name.size() > 8 && name.ends_with("Optional"); }

// A header parameter `aclTensor *<name>Ref`: an input written in place.
bool ref_name(const std::string& name) { return name.size() > 3 && name.ends_with("Ref"); }

// The name without case, underscores and the "Optional" / "Ref" suffixes, to match a header
// parameter with a request's input, output or attribute.
std::string folded(const std::string& name) {
  std::string base = optional_name(name) ? name.substr(0, name.size() - 8) : name;
  if (ref_name(base)) base.resize(base.size() - 3);
  std::string s;
  for (char c : base) {
    if (c != '_') s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return s;
}

tensor_arg tensor_from(const nlohmann::json& t, const std::string& where) {
  tensor_arg a;
  if (!t.contains("name") || !t["name"].is_string()) throw request_error(where + " has no \"name\"");
  a.name = t["name"].get<std::string>();
  if (!t.contains("dtype") || !t["dtype"].is_string() || !acl_dtype(t["dtype"].get<std::string>())) {
    throw request_error(where + " (" + a.name + "): \"dtype\" missing or not one of float16, float32, bfloat16, int8, uint8, int16, "
                                                 "uint16, int32, uint32, int64, uint64, bool");
  }
  a.dtype = t["dtype"].get<std::string>();
  if (t.contains("shape")) {
    if (!t["shape"].is_array()) throw request_error(where + " (" + a.name + "): \"shape\" is not an array");
    for (const auto& d : t["shape"]) {
      if (!d.is_number_integer() || d.get<std::int64_t>() < 0) throw request_error(where + " (" + a.name + "): a dimension is not a non-negative integer");
      a.shape.push_back(d.get<std::int64_t>());
    }
  }
  if (!t.contains("file") || !t["file"].is_string()) throw request_error(where + " (" + a.name + ") has no \"file\"");
  a.file = t["file"].get<std::string>();
  return a;
}

}  // namespace

std::vector<aclnn_param> parse_aclnn_header(const std::string& text, const std::string& function, const std::string& where) {
  const std::string code = without_comments(text);
  std::size_t at = 0;
  while ((at = code.find(function, at)) != std::string::npos) {
    const bool starts = at == 0 || !ident_char(code[at - 1]);
    std::size_t p = at + function.size();
    while (p < code.size() && std::isspace(static_cast<unsigned char>(code[p]))) ++p;
    if (starts && p < code.size() && code[p] == '(') {
      at = p;
      break;
    }
    at += function.size();
  }
  if (at == std::string::npos) throw request_error(where + " does not declare " + function);
  const auto close = code.find(')', at);
  if (close == std::string::npos) throw request_error(where + ": the declaration of " + function + " has no closing parenthesis");
  std::vector<aclnn_param> params;
  std::stringstream list(code.substr(at + 1, close - at - 1));
  std::string piece;
  while (std::getline(list, piece, ',')) {
    piece = trimmed(piece);
    if (piece.empty() || piece == "void") continue;
    std::size_t e = piece.size();
    std::size_t b = e;
    while (b > 0 && ident_char(piece[b - 1])) --b;
    aclnn_param prm;
    prm.name = piece.substr(b, e - b);
    prm.type = normalized_type(piece.substr(0, b));
    if (prm.name.empty() || prm.type.empty()) throw request_error(where + ": cannot read the parameter '" + piece + "' of " + function);
    const auto k = kind_of(prm.type);
    if (!k) {
      throw request_error(where + ": parameter '" + prm.name + "' of " + function + " has the type '" + prm.type +
                          "', which aopt-acl-run cannot pass (docs/cann.md, \"The runner\")");
    }
    prm.kind = *k;
    prm.in_place = prm.kind == param_kind::tensor && prm.type.rfind("const ", 0) != 0 && ref_name(prm.name);
    params.push_back(prm);
  }
  const auto n = params.size();
  if (n < 2 || params[n - 2].kind != param_kind::workspace_size || params[n - 1].kind != param_kind::executor) {
    throw request_error(where + ": " + function + " does not end with (uint64_t *workspaceSize, aclOpExecutor **executor)");
  }
  return params;
}

std::string snake_case(const std::string& op_type) {
  std::string s;
  for (std::size_t i = 0; i < op_type.size(); ++i) {
    const char c = op_type[i];
    if (std::isupper(static_cast<unsigned char>(c))) {
      const bool after_lower = i > 0 && (std::islower(static_cast<unsigned char>(op_type[i - 1])) ||
                                         std::isdigit(static_cast<unsigned char>(op_type[i - 1])));
      const bool before_lower = i > 0 && i + 1 < op_type.size() && std::isupper(static_cast<unsigned char>(op_type[i - 1])) &&
                                std::islower(static_cast<unsigned char>(op_type[i + 1]));
      if (after_lower || before_lower) s += '_';
      s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      s += c;
    }
  }
  return s;
}

fs::path find_aclnn_header(const fs::path& include_dir, const std::string& op_type) {
  const fs::path named = include_dir / ("aclnn_" + snake_case(op_type) + ".h");
  std::error_code e;
  if (fs::is_regular_file(named, e)) return named;
  const std::string fn = "aclnn" + op_type + "GetWorkspaceSize";
  if (fs::is_directory(include_dir, e)) {
    std::vector<fs::path> headers;
    for (const auto& d : fs::directory_iterator(include_dir, e)) {
      const auto f = d.path().filename().string();
      if (f.rfind("aclnn_", 0) == 0 && d.path().extension() == ".h") headers.push_back(d.path());
    }
    std::sort(headers.begin(), headers.end());
    for (const auto& h : headers) {
      std::ifstream in(h);
      std::stringstream ss;
      ss << in.rdbuf();
      if (ss.str().find(fn) != std::string::npos) return h;
    }
  }
  throw request_error("no header declaring " + fn + " in " + include_dir.string() +
                      " (the installed package's op_api/include/; is the install step's package the operator's?)");
}

std::optional<dtype_info> acl_dtype(const std::string& name) {
  static const std::map<std::string, dtype_info> table = {
      {"float16", {ACL_FLOAT16, 2}}, {"float32", {ACL_FLOAT, 4}},  {"float", {ACL_FLOAT, 4}},
      {"bfloat16", {ACL_BF16, 2}},   {"int8", {ACL_INT8, 1}},      {"uint8", {ACL_UINT8, 1}},
      {"int16", {ACL_INT16, 2}},     {"uint16", {ACL_UINT16, 2}},  {"int32", {ACL_INT32, 4}},
      {"uint32", {ACL_UINT32, 4}},   {"int64", {ACL_INT64, 8}},    {"uint64", {ACL_UINT64, 8}},
      {"bool", {ACL_BOOL, 1}},       {"double", {ACL_DOUBLE, 8}},  {"float64", {ACL_DOUBLE, 8}}};
  const auto it = table.find(name);
  if (it == table.end()) return std::nullopt;
  return it->second;
}

std::vector<std::int64_t> strides_of(const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> s(shape.size(), 1);
  for (std::size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
  return s;
}

std::int64_t numel(const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

namespace {

bool tensorish(const aclnn_param& p) { return p.kind == param_kind::tensor || p.kind == param_kind::tensor_list; }

// One request's binding to the header's parameters, phase by phase (bind_request).
struct binder {
  const std::vector<aclnn_param>& params;
  nlohmann::json inputs, attrs;
  bound_call call;
  std::vector<std::vector<std::size_t>> groups;  // which tensors of call.inputs each request input holds
  std::vector<bool> output_in_place;             // an output named like a `<name>Ref` parameter
  std::size_t input_params = 0;                  // tensor parameters that take inputs
  std::vector<int> param_group;                  // the request input a parameter takes by name
  std::vector<bool> value_depend;
  std::vector<bool> taken;
  std::vector<std::string> used_attrs;
  std::size_t next_output = 0;

  binder(const std::vector<aclnn_param>& p, const nlohmann::json& request)
      : params(p), inputs(request.value("inputs", nlohmann::json::array())), attrs(request.value("attrs", nlohmann::json::object())) {
    read_inputs();
    read_outputs(request.value("outputs", nlohmann::json::array()));
  }

  // 1. Inputs: each a tensor or a "list" of tensors; `groups` keeps which tensors one input holds.
  void read_inputs() {
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      const auto& in = inputs[i];
      const std::string where = "the request's inputs[" + std::to_string(i) + "]";
      std::vector<std::size_t> g;
      if (in.contains("list")) {
        for (const auto& t : in["list"]) {
          nlohmann::json named = t;
          named["name"] = in.value("name", std::string());
          auto a = tensor_from(named, where);
          if (!t.contains("shape")) throw request_error(where + " (" + a.name + "): a list tensor has no \"shape\"");
          g.push_back(call.inputs.size());
          call.inputs.push_back(a);
        }
      } else {
        auto a = tensor_from(in, where);
        if (!in.contains("shape")) throw request_error(where + " (" + a.name + ") has no \"shape\"");
        g.push_back(call.inputs.size());
        call.inputs.push_back(a);
      }
      groups.push_back(g);
    }
  }

  void read_outputs(const nlohmann::json& outputs) {
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      auto a = tensor_from(outputs[i], "the request's outputs[" + std::to_string(i) + "]");
      if (!outputs[i].contains("shape")) {
        // aclnn takes outputs allocated by the caller. Without a shape in the case, the first
        // input's (elementwise operators); result.json says so and the backend warns.
        if (call.inputs.empty()) throw request_error("output '" + a.name + "' has no shape and the operator has no input to take one from");
        a.shape = call.inputs.front().shape;
        a.shape_assumed = true;
      }
      call.outputs.push_back(a);
    }
  }

  bool attr_named(const std::string& name) const {
    for (const auto& [key, v] : attrs.items()) {
      if (folded(key) == folded(name)) return true;
    }
    return false;
  }

  bool take_named(std::size_t k) {
    for (std::size_t g = 0; g < groups.size(); ++g) {
      if (!taken[g] && folded(inputs[g].value("name", std::string())) == folded(params[k].name)) {
        param_group[k] = static_cast<int>(g);
        taken[g] = true;
        return true;
      }
    }
    return false;
  }

  // 2. Which tensor parameters are inputs, and the inputs taken by name.
  void match_inputs() {
    // An output named like an in-place parameter (`<name>Ref`) is that parameter's tensor: it
    // takes no output parameter of its own.
    output_in_place.assign(call.outputs.size(), false);
    for (std::size_t o = 0; o < call.outputs.size(); ++o) {
      for (const auto& p : params) {
        if (p.in_place && folded(p.name) == folded(call.outputs[o].name)) output_in_place[o] = true;
      }
    }
    const auto separate_outputs = static_cast<std::size_t>(std::count(output_in_place.begin(), output_in_place.end(), false));
    // The header lists inputs, attributes, outputs: the last `separate_outputs` tensor parameters
    // are the outputs (named "out" or "<name>Out"), the others inputs ("<name>", "<name>Optional",
    // "<name>Ref").
    std::size_t tensor_params = 0;
    for (const auto& p : params) tensor_params += tensorish(p);
    if (tensor_params < separate_outputs) {
      throw request_error("the header has " + std::to_string(tensor_params) + " tensor parameter(s) for the request's " +
                          std::to_string(separate_outputs) + " output(s)");
    }
    input_params = tensor_params - separate_outputs;
    // Input parameters by name first (an absent optional input passes nullptr), the rest in order.
    // An aclIntArray / aclFloatArray parameter named like an input (and no attribute) is a
    // ValueDepend input.
    param_group.assign(params.size(), -1);
    value_depend.assign(params.size(), false);
    taken.assign(groups.size(), false);
    std::size_t seen = 0;
    for (std::size_t k = 0; k < params.size(); ++k) {
      const auto& p = params[k];
      if (tensorish(p)) {
        if (seen++ < input_params) take_named(k);
      } else if ((p.kind == param_kind::int_array || p.kind == param_kind::float_array) && !attr_named(p.name) && take_named(k)) {
        value_depend[k] = true;
        if (inputs[param_group[k]].contains("list")) {
          throw request_error("parameter '" + p.name + "' (" + p.type + ") is a ValueDepend input and takes one tensor's values, but the request's input '" +
                              inputs[param_group[k]].value("name", std::string()) + "' is a list");
        }
      }
    }
  }

  // 3a. An input tensor parameter: its request input by name, else the next one left.
  void bind_input(std::size_t k, bound_param& b) {
    const auto& p = params[k];
    int g = param_group[k];
    if (g < 0 && !optional_name(p.name)) {
      for (std::size_t u = 0; u < groups.size(); ++u) {
        if (!taken[u]) {
          g = static_cast<int>(u);
          taken[u] = true;
          break;
        }
      }
    }
    if (g < 0 && !optional_name(p.name)) {
      throw request_error("parameter '" + p.name + "' (" + p.type + ") has no tensor left in the request: it has " +
                          std::to_string(groups.size()) + " input(s)");
    }
    if (g < 0) return;
    const bool list = inputs[g].contains("list");
    if (list != (p.kind == param_kind::tensor_list)) {
      throw request_error("parameter '" + p.name + "' (" + p.type + ") takes " + (list ? "one tensor" : "a tensor list") +
                          " but the request's input '" + inputs[g].value("name", std::string()) + "' is " + (list ? "a list" : "one tensor"));
    }
    b.tensors = groups[g];
  }

  // 3b. An output tensor parameter: the next output that is not written in place.
  void bind_output(const aclnn_param& p, bound_param& b) {
    if (p.kind == param_kind::tensor_list) {
      throw request_error("parameter '" + p.name + "' is a tensor-list output (a dynamic output), which aopt-acl-run does not allocate yet");
    }
    while (next_output < output_in_place.size() && output_in_place[next_output]) ++next_output;
    b.tensors = {call.inputs.size() + next_output++};
  }

  // 3c. A ValueDepend input: the array of one input's values, of a fitting dtype.
  void bind_value_depend(std::size_t k, bound_param& b) const {
    const auto& p = params[k];
    b.value_input = groups[param_group[k]].front();
    const auto& t = call.inputs[*b.value_input];
    const bool ints = p.kind == param_kind::int_array;
    const std::string d = t.dtype;
    const bool fits = ints ? (d.find("int") != std::string::npos || d == "bool") : (d == "float32" || d == "float" || d == "float64" || d == "double");
    if (!fits) {
      throw request_error("parameter '" + p.name + "' (" + p.type + ") is a ValueDepend input; the request's input '" + t.name + "' is " + d +
                          ", give it as " + (ints ? "int64 or int32" : "float32") + " values");
    }
  }

  // 3d. An attribute: the request's attribute of that name, of the header's type.
  void bind_attribute(const aclnn_param& p, bound_param& b) {
    const nlohmann::json* found = nullptr;
    for (const auto& [key, v] : attrs.items()) {
      if (folded(key) == folded(p.name)) {
        found = &v;
        used_attrs.push_back(key);
      }
    }
    const bool pointer = p.kind == param_kind::string || p.kind == param_kind::scalar || p.kind == param_kind::int_array ||
                         p.kind == param_kind::float_array || p.kind == param_kind::bool_array;
    if (found == nullptr && !(pointer && optional_name(p.name))) {
      throw request_error("parameter '" + p.name + "' (" + p.type + ") is an attribute the request's \"attrs\" does not give" +
                          ((p.kind == param_kind::int_array || p.kind == param_kind::float_array)
                               ? " (nor an input of that name, as a ValueDepend input would be)"
                               : ""));
    }
    if (found == nullptr) return;
    b.attr = *found;
    const bool ok = p.kind == param_kind::f64 || p.kind == param_kind::f32    ? found->is_number()
                    : p.kind == param_kind::i64 || p.kind == param_kind::i32  ? found->is_number_integer()
                    : p.kind == param_kind::boolean                           ? found->is_boolean()
                    : p.kind == param_kind::string                            ? found->is_string()
                    : p.kind == param_kind::scalar                            ? found->is_number() || found->is_boolean()
                                                                              : found->is_array();
    if (!ok) throw request_error("attribute '" + p.name + "' is " + found->dump() + ", not a value of the header's type " + p.type);
    if (!found->is_array()) return;
    for (const auto& x : *found) {
      const bool elem_ok = p.kind == param_kind::int_array     ? x.is_number_integer()
                           : p.kind == param_kind::float_array ? x.is_number()
                                                               : x.is_boolean();
      if (x.is_array()) {
        throw request_error("attribute '" + p.name + "' is a list of lists (" + found->dump() + "); the header passes it as " + p.type +
                            ", one flat list, and aclnn documents no list-of-lists parameter: give the attribute as the flat list the "
                            "operator's tiling reads, or run this operator with a runner of its own ([commands] run)");
      }
      if (!elem_ok) throw request_error("attribute '" + p.name + "' holds " + x.dump() + ", not an element of the header's type " + p.type);
    }
  }

  // 3. Every parameter in header order.
  void bind_params() {
    std::size_t seen = 0;
    for (std::size_t k = 0; k < params.size(); ++k) {
      const auto& p = params[k];
      bound_param b;
      b.param = p;
      if (tensorish(p) && seen++ < input_params) bind_input(k, b);
      else if (tensorish(p)) bind_output(p, b);
      else if (value_depend[k]) bind_value_depend(k, b);
      else if (p.kind != param_kind::workspace_size && p.kind != param_kind::executor) bind_attribute(p, b);
      call.params.push_back(b);
    }
  }

  // 4. Nothing of the request left over.
  void check_all_used() const {
    for (std::size_t g = 0; g < groups.size(); ++g) {
      if (!taken[g]) {
        throw request_error("the request's input '" + inputs[g].value("name", std::string()) + "' is no parameter of the header (it takes " +
                            std::to_string(input_params) + " input(s); the request has " + std::to_string(groups.size()) + ")");
      }
    }
    for (const auto& [k, v] : attrs.items()) {
      if (std::find(used_attrs.begin(), used_attrs.end(), k) == used_attrs.end()) {
        throw request_error("the request's attribute '" + k + "' is no parameter of the operator's aclnn function");
      }
    }
  }

  // 5. In-place outputs: the tensor of their `<name>Ref` parameter.
  void resolve_in_place() {
    for (std::size_t o = 0; o < call.outputs.size(); ++o) {
      if (!output_in_place[o]) continue;
      for (const auto& b : call.params) {
        if (!b.param.in_place || folded(b.param.name) != folded(call.outputs[o].name)) continue;
        if (b.tensors.empty()) {
          throw request_error("output '" + call.outputs[o].name + "' is written in place into parameter '" + b.param.name +
                              "', but the request gives no input '" + call.outputs[o].name + "'");
        }
        auto& out = call.outputs[o];
        out.in_place_of = b.tensors.front();
        const auto& in = call.inputs[b.tensors.front()];
        if (out.shape_assumed || out.shape.empty()) out.shape = in.shape;
        out.shape_assumed = false;
        if (out.dtype != in.dtype) {
          throw request_error("output '" + out.name + "' (" + out.dtype + ") is written in place into input '" + in.name + "' (" + in.dtype +
                              "): the dtypes must agree");
        }
      }
    }
  }
};

}  // namespace

bound_call bind_request(const std::vector<aclnn_param>& params, const nlohmann::json& request) {
  binder b(params, request);
  b.match_inputs();
  b.bind_params();
  b.check_all_used();
  b.resolve_in_place();
  return std::move(b.call);
}

namespace {

template <class T>
std::vector<T> elements_as(const std::string& bytes, const tensor_arg& t) {
  const auto info = acl_dtype(t.dtype);
  const std::size_t n = info->bytes == 0 ? 0 : bytes.size() / info->bytes;
  std::vector<T> out;
  out.reserve(n);
  auto take = [&]<class S>(S) {
    for (std::size_t i = 0; i < n; ++i) {
      S v;
      std::memcpy(&v, bytes.data() + i * sizeof(S), sizeof(S));
      out.push_back(static_cast<T>(v));
    }
  };
  const std::string& d = t.dtype;
  if (d == "int64") take(std::int64_t{});
  else if (d == "int32") take(std::int32_t{});
  else if (d == "int16") take(std::int16_t{});
  else if (d == "int8") take(std::int8_t{});
  else if (d == "uint64") take(std::uint64_t{});
  else if (d == "uint32") take(std::uint32_t{});
  else if (d == "uint16") take(std::uint16_t{});
  else if (d == "uint8" || d == "bool") take(std::uint8_t{});
  else if (d == "float32" || d == "float") take(float{});
  else if (d == "float64" || d == "double") take(double{});
  else throw request_error("input '" + t.name + "' (" + d + ") cannot be read as ValueDepend values");
  return out;
}

}  // namespace

std::vector<std::int64_t> int_values(const std::string& bytes, const tensor_arg& t) { return elements_as<std::int64_t>(bytes, t); }
std::vector<float> float_values(const std::string& bytes, const tensor_arg& t) { return elements_as<float>(bytes, t); }

}  // namespace aopt::acl_run
