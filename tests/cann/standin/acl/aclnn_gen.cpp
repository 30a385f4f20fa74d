// See aclnn_gen.h. The parameter types and names follow what msOpGen writes into the installed
// aclnn_*.h headers: an optional input or a pointer-typed optional attr is called <name>Optional,
// a single output `out`, several outputs <name>Out; float attrs are double, int attrs int64_t,
// string attrs char *; an input that is also an output is `aclTensor *<name>Ref` (in place), a
// ValueDepend input `const aclIntArray *` (integer dtypes) or `const aclFloatArray *`.
#include "aclnn_gen.h"

#include <cctype>
#include <set>
#include <stdexcept>
#include <vector>

namespace aopt::standin {
namespace {

struct param {
  std::string c_type, c_name;  // as declared
  std::string name, kind;      // the signature's name; the aopt_standin_kind enumerator
  bool by_address = false;     // a scalar attr, passed to the runtime as a pointer
  std::string comment;         // required / optional
};

std::vector<param> params_of(const nlohmann::json& sig) {
  std::vector<param> ps;
  const auto outs_all = sig.value("outputs", nlohmann::json::array());
  auto is_output = [&](const std::string& n) {
    for (const auto& o : outs_all) {
      if (o.value("name", "") == n) return true;
    }
    return false;
  };
  for (const auto& in : sig.value("inputs", nlohmann::json::array())) {
    const std::string n = in.value("name", ""), type = in.value("param_type", "required");
    bool float_values = false;
    for (const auto& d : in.value("dtypes", nlohmann::json::array())) float_values = float_values || d.get<std::string>().find("float") != std::string::npos;
    // An input that is also an output (the same name in the OpDef) is written in place: one
    // non-const `aclTensor *<name>Ref` parameter. A ValueDepend input is passed as its values.
    if (is_output(n)) ps.push_back({"aclTensor *", n + "Ref", n, "aopt_standin_input_ref", false, "required"});
    else if (in.value("value_depend", false) && float_values) ps.push_back({"const aclFloatArray *", n, n, "aopt_standin_value_floats", false, type});
    else if (in.value("value_depend", false)) ps.push_back({"const aclIntArray *", n, n, "aopt_standin_value_ints", false, type});
    else if (type == "dynamic") ps.push_back({"const aclTensorList *", n, n, "aopt_standin_input_list", false, "dynamic"});
    else if (type == "optional") ps.push_back({"const aclTensor *", n + "Optional", n, "aopt_standin_input", false, "optional"});
    else ps.push_back({"const aclTensor *", n, n, "aopt_standin_input", false, "required"});
  }
  for (const auto& a : sig.value("attrs", nlohmann::json::array())) {
    const std::string n = a.value("name", ""), t = a.value("type", "float");
    const bool optional = !a.value("required", false);
    const std::string opt = optional ? "Optional" : "", comment = optional ? "optional" : "required";
    if (t == "float") ps.push_back({"double ", n, n, "aopt_standin_float", true, comment});
    else if (t == "int" || t == "data_type") ps.push_back({"int64_t ", n, n, "aopt_standin_int", true, comment});
    else if (t == "bool") ps.push_back({"bool ", n, n, "aopt_standin_bool", true, comment});
    else if (t == "string") ps.push_back({"char *", n + opt, n, "aopt_standin_string", false, comment});
    else if (t == "list_int") ps.push_back({"const aclIntArray *", n + opt, n, "aopt_standin_list_int", false, comment});
    else if (t == "list_float") ps.push_back({"const aclFloatArray *", n + opt, n, "aopt_standin_list_float", false, comment});
    else if (t == "list_bool") ps.push_back({"const aclBoolArray *", n + opt, n, "aopt_standin_list_bool", false, comment});
    else throw std::runtime_error("attr " + n + " has a type aclnn has no parameter for: " + t);
  }
  // The outputs of their own (not written in place into an input).
  nlohmann::json outs = nlohmann::json::array();
  std::set<std::string> inputs;
  for (const auto& in : sig.value("inputs", nlohmann::json::array())) inputs.insert(in.value("name", ""));
  for (const auto& o : outs_all) {
    if (!inputs.count(o.value("name", ""))) outs.push_back(o);
  }
  for (const auto& o : outs) {
    const std::string n = o.value("name", ""), type = o.value("param_type", "required");
    std::string c_name = outs.size() == 1 ? "out" : n + "Out";
    if (type == "optional" && outs.size() > 1) c_name += "Optional";
    if (type == "dynamic") ps.push_back({"const aclTensorList *", c_name, n, "aopt_standin_output_list", false, "dynamic"});
    else ps.push_back({"const aclTensor *", c_name, n, "aopt_standin_output", false, type});
  }
  return ps;
}

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string get_workspace_decl(const std::string& op, const std::vector<param>& ps) {
  std::string s = "aclnnStatus aclnn" + op + "GetWorkspaceSize(\n";
  for (const auto& p : ps) s += "    " + p.c_type + p.c_name + ",\n";
  return s + "    uint64_t *workspaceSize,\n    aclOpExecutor **executor)";
}

std::string launch_decl(const std::string& op) {
  return "aclnnStatus aclnn" + op + "(\n    void *workspace,\n    uint64_t workspaceSize,\n    aclOpExecutor *executor,\n    aclrtStream stream)";
}

}  // namespace

std::string snake_case(const std::string& op) {
  std::string s;
  for (std::size_t i = 0; i < op.size(); ++i) {
    const auto c = static_cast<unsigned char>(op[i]);
    if (std::isupper(c) && i > 0) {
      const auto prev = static_cast<unsigned char>(op[i - 1]);
      const bool next_lower = i + 1 < op.size() && std::islower(static_cast<unsigned char>(op[i + 1]));
      // A word starts at an upper-case letter after a lower-case one or a digit, or at the last
      // capital of an acronym ("RMSNorm": R M S | Norm).
      if (std::islower(prev) || std::isdigit(prev) || (std::isupper(prev) && next_lower)) s += '_';
    }
    s += static_cast<char>(std::tolower(c));
  }
  return s;
}

std::string aclnn_header(const nlohmann::json& sig) {
  const std::string op = sig.value("op_type", std::string());
  const auto ps = params_of(sig);
  const std::string guard = "ACLNN_" + upper(snake_case(op)) + "_H_";
  std::string s = "/*\n * Written by the stand-in of msOpGen (aopt tests/cann/standin), laid out as the header CANN\n"
                  " * generates and installs under op_api/include/.\n */\n\n";
  s += "#ifndef " + guard + "\n#define " + guard + "\n\n#include \"aclnn/acl_meta.h\"\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  s += "/* aclnn" + op + "GetWorkspaceSize, parameters:\n";
  for (const auto& p : ps) s += " * " + p.c_name + " : " + p.comment + "\n";
  s += " * workspaceSize : the workspace the launch needs (output)\n * executor : the launch's executor (output)\n */\n";
  s += "__attribute__((visibility(\"default\")))\n" + get_workspace_decl(op, ps) + ";\n\n";
  s += "/* aclnn" + op + ": launches the executor on the stream, with a workspace of workspaceSize bytes. */\n";
  s += "__attribute__((visibility(\"default\")))\n" + launch_decl(op) + ";\n\n";
  s += "#ifdef __cplusplus\n}\n#endif\n\n#endif\n";
  return s;
}

std::string aclnn_source(const nlohmann::json& sig) {
  const std::string op = sig.value("op_type", std::string());
  const auto ps = params_of(sig);
  std::string s = "// Written by aopt-standin-device build: aclnn" + op + " over the stand-in CANN runtime\n"
                  "// (tests/cann/standin/acl/standin_acl.h), compiled into libcust_opapi.so by build.sh.\n";
  s += "#include \"aclnn_" + snake_case(op) + ".h\"\n\n";
  // The runtime finds this library (and its package) from this array's address.
  s += "static const char op_type[] = \"" + op + "\";\n\n";
  s += get_workspace_decl(op, ps) + " {\n  const aopt_standin_param params[] = {\n";
  for (const auto& p : ps) s += "      {\"" + p.name + "\", " + p.kind + ", " + (p.by_address ? "&" : "") + p.c_name + "},\n";
  s += "  };\n  return aopt_standin_get_workspace(op_type, params, sizeof params / sizeof params[0], workspaceSize, executor);\n}\n\n";
  s += launch_decl(op) + " {\n  return aopt_standin_launch(workspace, workspaceSize, executor, stream);\n}\n";
  return s;
}

}  // namespace aopt::standin
