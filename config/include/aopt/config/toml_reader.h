// Reading typed keys from TOML (toml++) with errors that name the file, the line, the column,
// the table and the key: "aoptd.toml:3:15: [jobs] max_running: expected an integer, got a
// string". Shared by every config file reader (the [llm] table, aoptd's config).
#pragma once

#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>

#include <toml++/toml.h>

#include "aopt/common/error.h"

namespace aopt::config {

// "file:line:col".
inline std::string position(const std::filesystem::path& file, const toml::source_region& src) {
  return file.string() + ":" + std::to_string(src.begin.line) + ":" + std::to_string(src.begin.column);
}

inline const char* type_name(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a float";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    default: return "a date/time";
  }
}

// Readers of one key of table `section` of `file`; each checks the TOML type (and range) and
// throws aopt::error(invalid_spec) "file:line:col: [section] key: what" otherwise.
struct toml_reader {
  const std::filesystem::path& file;
  std::string section;

  [[noreturn]] void fail(const toml::node& n, const std::string& key, const std::string& what) const {
    throw error(ec::invalid_spec, position(file, n.source()) + ": [" + section + "] " + key + ": " + what);
  }
  std::string str(const toml::node& n, const std::string& key) const {
    if (!n.is_string()) fail(n, key, std::string("expected a string, got ") + type_name(n) + "; quote the value");
    return *n.value<std::string>();
  }
  std::int64_t integer(const toml::node& n, const std::string& key, std::int64_t lo, std::int64_t hi) const {
    if (!n.is_integer()) fail(n, key, std::string("expected an integer, got ") + type_name(n));
    const auto v = *n.value<std::int64_t>();
    if (v < lo || v > hi) {
      fail(n, key, "value " + std::to_string(v) + " is outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    }
    return v;
  }
  int int32(const toml::node& n, const std::string& key, std::int64_t lo = std::numeric_limits<int>::min()) const {
    return static_cast<int>(integer(n, key, lo, std::numeric_limits<int>::max()));
  }
  double number(const toml::node& n, const std::string& key) const {
    // An integer is a fine number here: "temperature = 0" should not be an error.
    if (!n.is_floating_point() && !n.is_integer()) fail(n, key, std::string("expected a number, got ") + type_name(n));
    return *n.value<double>();
  }
  bool boolean(const toml::node& n, const std::string& key) const {
    if (!n.is_boolean()) fail(n, key, std::string("expected true or false, got ") + type_name(n));
    return *n.value<bool>();
  }
};

}  // namespace aopt::config
