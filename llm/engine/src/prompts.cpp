#include "aopt/llm/prompts.h"

#include <cctype>
#include <cstdlib>
#include <utility>

#include "aopt/common/error.h"
#include "aopt/common/fs.h"

#ifndef AOPT_PROMPTS_SOURCE_DIR
#define AOPT_PROMPTS_SOURCE_DIR "config/prompts"
#endif
#ifndef AOPT_PROMPTS_INSTALL_DIR
#define AOPT_PROMPTS_INSTALL_DIR "/usr/local/share/aopt/prompts"
#endif

namespace aopt::llm {

const placeholder_spec& placeholders_of(role r) {
  static const std::map<role, placeholder_spec> specs = {
      {role::template_synthesis,
       {{"signature", "function", "files", "kernel_constants", "tunables", "paths", "edit_format"}, {"files"}}},
      {role::tiling_mutation, {{"function", "region", "tunables", "history", "n", "device", "edit_format"}, {"region", "n"}}},
      {role::rewind, {{"code", "n", "classes", "edit_format"}, {"code"}}},
      {role::distillation,
       {{"diff", "fast_us", "slow_us", "slowdown", "step_title", "step_description", "step_bottleneck", "classes"}, {"diff"}}},
      {role::diagnosis, {{"profile", "code", "classes"}, {"profile"}}},
      {role::refinement, {{"code", "tuples", "n", "edit_format"}, {"code", "tuples"}}},
      {role::embeddings, {{}, {}}},
  };
  return specs.at(r);
}

const std::vector<role>& prompted_roles() {
  static const std::vector<role> roles = {role::template_synthesis, role::tiling_mutation, role::rewind,
                                          role::distillation,       role::diagnosis,       role::refinement};
  return roles;
}

namespace {

std::string lower_trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())) != 0) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())) != 0) s.remove_suffix(1);
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

}  // namespace

prompt_library::parsed prompt_library::parse(role r, const std::string& text, const std::string& file) {
  parsed out;
  out.file = file;
  const placeholder_spec& spec = placeholders_of(r);
  // Section of each line: 0 preamble, 1 system, 2 user.
  int section = 0;
  bool seen_user = false;
  std::set<std::string> used;
  std::string known_list;
  for (const auto& k : spec.known) known_list += (known_list.empty() ? "" : ", ") + ("{{" + k + "}}");
  std::size_t pos = 0;
  int line = 0;
  std::vector<piece>* target = nullptr;
  while (pos <= text.size()) {
    std::size_t eol = text.find('\n', pos);
    const bool last = eol == std::string::npos;
    if (last) eol = text.size();
    std::string_view l(text.data() + pos, eol - pos);
    ++line;
    const std::string h = lower_trim(l);
    if (h == "## system") {
      if (section != 0) {
        throw aopt::error(ec::invalid_spec, file + ":" + std::to_string(line) + ": '## system' must come before '## user', once");
      }
      section = 1;
      target = &out.system;
    } else if (h == "## user") {
      if (seen_user) throw aopt::error(ec::invalid_spec, file + ":" + std::to_string(line) + ": a second '## user' section");
      section = 2;
      seen_user = true;
      target = &out.user;
    } else if (target != nullptr) {
      // Literal text and {{name}} placeholders ("{{" not followed by a name and "}}" is text).
      std::size_t i = 0;
      std::string lit;
      while (i < l.size()) {
        if (l.compare(i, 2, "{{") == 0) {
          std::size_t j = i + 2;
          while (j < l.size() && l[j] == ' ') ++j;
          const std::size_t name_begin = j;
          while (j < l.size() && ident_char(l[j])) ++j;
          const std::size_t name_end = j;
          while (j < l.size() && l[j] == ' ') ++j;
          if (name_end > name_begin && l.compare(j, 2, "}}") == 0) {
            const std::string name(l.substr(name_begin, name_end - name_begin));
            if (spec.known.count(name) == 0) {
              throw aopt::error(ec::invalid_spec, file + ":" + std::to_string(line) + ":" + std::to_string(i + 1) +
                                                      ": unknown placeholder {{" + name + "}} for role " + to_string(r) +
                                                      " (known: " + known_list + ")");
            }
            if (!lit.empty()) target->push_back({false, std::move(lit), line});
            lit.clear();
            target->push_back({true, name, line});
            used.insert(name);
            i = j + 2;
            continue;
          }
        }
        lit.push_back(l[i]);
        ++i;
      }
      if (!last) lit.push_back('\n');
      if (!lit.empty()) target->push_back({false, std::move(lit), line});
    }
    if (last) break;
    pos = eol + 1;
  }
  if (!seen_user) {
    throw aopt::error(ec::invalid_spec, file + ":" + std::to_string(line) +
                                            ": no '## user' section: the template needs a line '## user' before the message text");
  }
  for (const auto& req : spec.required) {
    if (used.count(req) == 0) {
      throw aopt::error(ec::invalid_spec, file + ":1: the template never uses {{" + req + "}}, which role " + to_string(r) +
                                              " needs: add it to the '## user' section");
    }
  }
  return out;
}

prompt_library prompt_library::load(const std::filesystem::path& dir) {
  prompt_library lib;
  for (role r : prompted_roles()) {
    const auto file = dir / (std::string(to_string(r)) + ".md");
    if (!std::filesystem::exists(file)) {
      throw aopt::error(ec::not_found, "prompt template " + file.string() + " is missing: every role (" + to_string(r) +
                                           " here) needs one; copy it from the source tree's config/prompts");
    }
    lib.templates_[r] = parse(r, common::read_text_file(file), file.string());
  }
  return lib;
}

prompt_library prompt_library::from_text(const std::map<role, std::string>& texts) {
  prompt_library lib;
  for (const auto& [r, text] : texts) lib.templates_[r] = parse(r, text, std::string("<") + to_string(r) + ".md>");
  return lib;
}

std::filesystem::path prompt_library::default_dir() {
  if (const char* env = std::getenv("AOPT_PROMPTS_DIR"); env != nullptr && *env != '\0') return env;
  std::error_code ec;
  if (std::filesystem::is_directory(AOPT_PROMPTS_INSTALL_DIR, ec)) return AOPT_PROMPTS_INSTALL_DIR;
  return AOPT_PROMPTS_SOURCE_DIR;
}

const std::string& prompt_library::source(role r) const {
  auto it = templates_.find(r);
  if (it == templates_.end()) throw aopt::error(ec::not_found, std::string("no prompt template for role ") + to_string(r));
  return it->second.file;
}

std::vector<message> prompt_library::render(role r, const std::map<std::string, std::string>& values) const {
  auto it = templates_.find(r);
  if (it == templates_.end()) {
    throw aopt::error(ec::not_found, std::string("no prompt template for role ") + to_string(r) +
                                         ": load the prompt directory (config/prompts) with every role");
  }
  const parsed& p = it->second;
  auto fill = [&](const std::vector<piece>& pieces) {
    std::string out;
    for (const auto& pc : pieces) {
      if (!pc.placeholder) {
        out += pc.text;
        continue;
      }
      auto v = values.find(pc.text);
      if (v == values.end()) {
        throw aopt::error(ec::invalid_argument, p.file + ":" + std::to_string(pc.line) + ": no value for {{" + pc.text + "}}");
      }
      out += v->second;
    }
    // Blank lines around a section are the file's layout, not the message.
    const auto b = out.find_first_not_of(" \t\r\n");
    if (b == std::string::npos) return std::string();
    const auto e = out.find_last_not_of(" \t\r\n");
    return out.substr(b, e - b + 1);
  };
  std::vector<message> msgs;
  const std::string sys = fill(p.system);
  if (!sys.empty()) msgs.push_back({"system", sys});
  msgs.push_back({"user", fill(p.user)});
  return msgs;
}

}  // namespace aopt::llm
