// A real-operator suite's sources.json (examples/real-ops; docs/real-ops.md): each operator's
// directory under `aopt bench --sources` and, optionally, its level in the paper's table, declared
// by hand by the rule docs/real-ops.md writes down ("Levels"). Target `aopt_bench_suite` (linked
// by aopt and its unit test).
#pragma once

#include <filesystem>
#include <map>
#include <string>

namespace aopt::app {

struct real_operator {
  std::string dir;  // relative directory under --sources, e.g. "math/abs"
  int level = 0;    // 1-3 as declared in "levels"; 0: not declared (bench::level_of decides)
};

// Reads SUITE/sources.json: {"operators": {"<op>": "<dir>", ...}, "levels": {"<op>": 1|2|3, ...}}
// ("levels" optional, any subset of the operators). Throws aopt::error(invalid_spec) naming the
// file and the field (a directory that is not relative, a level other than 1, 2 or 3, a level for
// an operator "operators" does not list).
std::map<std::string, real_operator> read_real_suite(const std::filesystem::path& suite);

}  // namespace aopt::app
