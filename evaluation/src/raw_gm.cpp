#include "aopt/evaluation/raw_gm.h"

#include <regex>
#include <set>

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

// `name[`, `name->`, or a unary `*name` / `*(name` (the `*` follows an operator, an opening
// bracket, a separator or `return`: not a multiplication).
bool dereferenced(const std::string& source, const std::string& name) {
  const std::regex use("\\b" + name + "\\s*(\\[|->)|(^|[=(,;{}!?:\\[]|\\breturn)\\s*\\*\\s*\\(?\\s*" + name + "\\b");
  return std::regex_search(source, use);
}

// The source without its comments (string literals are left alone: kernels rarely hold code in them).
std::string without_comments(const std::string& source) {
  static const std::regex comments(R"(//[^\n]*|/\*[\s\S]*?\*/)");
  return std::regex_replace(source, comments, " ");
}

}  // namespace

bool dereferences_raw_gm(const std::string& source) {
  if (source.find("__gm__") == std::string::npos && source.find("GM_ADDR") == std::string::npos) return false;
  const std::string code = without_comments(source);
  for (const auto& name : raw_gm_names(code))
    if (dereferenced(code, name)) return true;
  return false;
}

const std::vector<std::string>& raw_gm_trace_flags() {
  static const std::vector<std::string> flags = {"-fsanitize=kernel-address",
                                                 "--param", "asan-instrumentation-with-call-threshold=0",
                                                 "--param", "asan-stack=0",
                                                 "--param", "asan-globals=0"};
  return flags;
}

}  // namespace aopt::evaluation
