// Prompt templates of the LLM engine: one editable Markdown file per role
// (config/prompts/<role>.md) with {{placeholders}}. A file has a free preamble for its editors
// (not sent), then a "## system" and a "## user" section: the two chat messages. Each role
// knows which placeholders exist and which the template must use; an unknown placeholder, a
// required one the template lacks, or a value missing at render time is an aopt::error that
// names file:line. See docs/llm-engine.md "Prompts".
#pragma once

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "aopt/llm/client.h"

namespace aopt::llm {

// The placeholders a role's template may use, and those it must use.
struct placeholder_spec {
  std::set<std::string> known;
  std::set<std::string> required;
};
const placeholder_spec& placeholders_of(role r);

// The roles that have a prompt (every role but embeddings).
const std::vector<role>& prompted_roles();

class prompt_library {
 public:
  // Loads <dir>/<role>.md for every prompted role. Throws aopt::error(not_found) for a missing
  // file, aopt::error(invalid_spec) "file:line: ..." for a bad template.
  static prompt_library load(const std::filesystem::path& dir);
  // From text in memory (tests); `name` stands for the file in messages. Roles left out have
  // no template (render throws).
  static prompt_library from_text(const std::map<role, std::string>& texts);
  // The templates shipped with aopt: $AOPT_PROMPTS_DIR when set, else the installed
  // share/aopt/prompts when it exists, else the source tree's config/prompts.
  static std::filesystem::path default_dir();

  // The system and user messages for `r` with every placeholder replaced. Throws
  // aopt::error(invalid_argument) "file:line: no value for {{x}}" when a used placeholder has no
  // value. Values are inserted verbatim (braces in code are safe).
  std::vector<message> render(role r, const std::map<std::string, std::string>& values) const;

  bool has(role r) const { return templates_.count(r) != 0; }
  const std::string& source(role r) const;  // the file (or name) the template came from

 private:
  struct piece {
    bool placeholder = false;
    std::string text;  // literal text, or the placeholder's name
    int line = 0;      // placeholder's line in the file
  };
  struct parsed {
    std::string file;
    std::vector<piece> system;
    std::vector<piece> user;
  };
  static parsed parse(role r, const std::string& text, const std::string& file);
  std::map<role, parsed> templates_;
};

}  // namespace aopt::llm
