#include "bench_suite.h"

#include <cstdint>

#include <fmt/format.h>

#include "aopt/common/error.h"
#include "aopt/common/json.h"

namespace aopt::app {

std::map<std::string, real_operator> read_real_suite(const std::filesystem::path& suite) {
  const auto file = (suite / "sources.json").string();
  const auto j = common::read_json_file(suite / "sources.json");
  std::map<std::string, real_operator> out;
  if (!j.is_object() || !j.contains("operators") || !j["operators"].is_object()) {
    throw error(ec::invalid_spec, file + ": expected {\"operators\": {\"<op>\": \"<directory under --sources>\"}}");
  }
  for (const auto& [k, v] : j["operators"].items()) {
    if (!v.is_string() || v.get<std::string>().empty() || v.get<std::string>().find("..") != std::string::npos ||
        v.get<std::string>().front() == '/') {
      throw error(ec::invalid_spec, fmt::format("{}: operators.{}: expected a relative directory such as \"math/{}\"", file, k, k));
    }
    out[k].dir = v.get<std::string>();
  }
  if (!j.contains("levels")) return out;
  if (!j["levels"].is_object()) {
    throw error(ec::invalid_spec, file + ": levels: expected {\"<op>\": 1, 2 or 3, ...} (docs/real-ops.md, \"Levels\")");
  }
  for (const auto& [k, v] : j["levels"].items()) {
    const auto it = out.find(k);
    if (it == out.end()) {
      throw error(ec::invalid_spec, fmt::format("{}: levels.{}: no operator {} in \"operators\"; add its directory there or "
                                                "remove the level", file, k, k));
    }
    if (!v.is_number_integer() || v.get<std::int64_t>() < 1 || v.get<std::int64_t>() > 3) {
      throw error(ec::invalid_spec, fmt::format("{}: levels.{}: expected 1, 2 or 3 (docs/real-ops.md, \"Levels\"), got {}", file,
                                                k, v.dump()));
    }
    it->second.level = v.get<int>();
  }
  return out;
}

}  // namespace aopt::app
