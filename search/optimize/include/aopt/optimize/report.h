// report.md and report.json of an optimize job: speedup, trajectory, every accepted change as a
// diff with its measured effect and what produced it, the profile before and after. Pure
// (strings and JSON); the command writes the files.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "aopt/optimize/optimizer.h"

namespace aopt::optimize {

struct report_context {
  std::string op_dir;        // the operator package optimized
  std::string out_dir;       // where the optimized package was written
  std::string backend;       // "sim": latencies are simulated and labelled so
  std::string profile;       // device profile
  std::uint64_t seed = 0;    // engine seed
  optimizer_config config;
  double wall_seconds = 0;
  std::string command;       // the command line that produced the report
  // The engine's own accounting (the llm engine: per-role requests, tokens, seconds, failed
  // proposals by kind); null when the engine keeps none (offline).
  nlohmann::json engine_usage;
};

nlohmann::json report_json(const optimize_result& r, const report_context& ctx);
std::string report_markdown(const optimize_result& r, const report_context& ctx);

}  // namespace aopt::optimize
