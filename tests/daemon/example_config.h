// Test helpers: the configuration keys config/aoptd.example.toml and the docs name, and the
// example with every key set (its commented-out keys and tables too), so that tests can check
// that aoptd reads and starts with each of them.
#pragma once

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "aopt/common/fs.h"

namespace aopt::testing {

// A key as the docs or the example name it: its table ("daemon", "devices", ...) and name.
using config_key = std::pair<std::string, std::string>;

// One TOML value as the example writes it, without a trailing comment.
inline std::string example_value(const std::string& rest) {
  if (rest.empty()) return rest;
  const char open = rest.front();
  if (open == '"' || open == '[') {
    const auto close = rest.find(open == '"' ? '"' : ']', 1);
    return rest.substr(0, close + 1);
  }
  const auto end = rest.find_first_of(" \t#");
  return rest.substr(0, end);
}

// The example with every key and table set: "# [[devices]]" and "# key = value" lines are
// uncommented; `set` replaces the value of a key (table, key) wherever it is; with `npu` false the
// npu device's table is left out (it needs the cann backend's toolchain to start).
struct example_line {
  std::string table, key, value, text;  // text: the whole line (a header, a key line, or a comment)
};

inline std::vector<example_line> example_lines(const std::filesystem::path& example) {
  std::vector<example_line> out;
  std::istringstream in(common::read_text_file(example));
  const std::regex header(R"(^#?\s*\[\[?([a-z_]+)\]\]?\s*$)");
  const std::regex key(R"(^#?\s*([a-z_]+)\s*=\s*(.*)$)");
  std::string line, table;
  for (std::smatch m; std::getline(in, line);) {
    if (std::regex_match(line, m, header)) {
      table = m[1];
      out.push_back({table, "", "", line.substr(line.find('['))});
    } else if (std::regex_match(line, m, key)) {
      out.push_back({table, m[1], example_value(m[2]), ""});
    } else {
      out.push_back({table, "", "", line});
    }
  }
  return out;
}

inline std::string example_with_every_key(const std::filesystem::path& example, const std::map<config_key, std::string>& set,
                                          bool npu) {
  std::string out;
  const auto lines = example_lines(example);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto& l = lines[i];
    if (!npu && l.text.starts_with("[[devices]]")) {
      bool is_npu = false;
      for (std::size_t j = i + 1; j < lines.size() && !lines[j].text.starts_with("["); ++j) {
        is_npu |= lines[j].key == "kind" && lines[j].value == "\"npu\"";
      }
      if (is_npu) {
        while (i + 1 < lines.size() && !lines[i + 1].text.starts_with("[")) ++i;
        continue;
      }
    }
    if (l.key.empty()) {
      out += (l.text.starts_with("[") ? l.text : std::string()) + "\n";
      continue;
    }
    const auto it = set.find({l.table, l.key});
    out += l.key + " = " + (it != set.end() ? it->second : l.value) + "\n";
  }
  return out;
}

// Every key of the example (set or commented out).
inline std::set<config_key> example_keys(const std::filesystem::path& example) {
  std::set<config_key> out;
  for (const auto& l : example_lines(example)) {
    if (!l.key.empty()) out.insert({l.table, l.key});
  }
  return out;
}

// Every aoptd key the docs name, with where: "[table] key" and "`table.key`" for the daemon's
// own tables ([llm] is aopt's table, read by its own reader: docs/llm.md).
inline std::map<config_key, std::string> documented_keys(const std::vector<std::filesystem::path>& files) {
  std::map<config_key, std::string> out;
  const std::string tables = "daemon|metrics|jobs|limits|nodes";
  const std::regex bracket("\\[(" + tables + ")\\]`? `?([a-z_]+)");
  const std::regex dotted("`(" + tables + ")\\.([a-z_]+)`");
  for (const auto& f : files) {
    const std::string text = common::read_text_file(f);
    for (const auto* re : {&bracket, &dotted}) {
      for (std::sregex_iterator it(text.begin(), text.end(), *re), end; it != end; ++it) {
        const std::string key = (*it)[2];
        if (key == "table" || key == "tables") continue;  // "the [metrics] table"
        if (key == "h" || key == "cpp" || key == "md" || key == "toml" || key == "yml") continue;  // `metrics.h`
        const auto line = std::count(text.begin(), text.begin() + it->position(), '\n') + 1;
        out.emplace(config_key{(*it)[1], key}, f.filename().string() + ":" + std::to_string(line));
      }
    }
  }
  return out;
}

}  // namespace aopt::testing
