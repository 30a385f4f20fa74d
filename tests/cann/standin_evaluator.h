// An in-process evaluator on the cann backend over the stand-in toolchain (standin_profile.h),
// for the tests that look inside one evaluation's steps (cann_partial_test, cann_inplace_test):
// the profile written under `root` with a short measurement, the seed and a private state,
// artifact cache, result cache (off) and work directory.
#pragma once

#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "aopt/evaluation/evaluator.h"
#include "standin_profile.h"

namespace aopt::testing {

inline std::filesystem::path write_standin_eval_profile(const std::filesystem::path& root, std::uint64_t seed,
                                                        std::map<std::string, std::string> environment = {},
                                                        const std::set<std::string>& without = {}) {
  const auto f = root / "site.toml";
  environment.emplace("AOPT_STANDIN_SEED", std::to_string(seed));
  environment.emplace("AOPT_STANDIN_STATE", (root / "state").string());
  environment.emplace("AOPT_ARTIFACT_CACHE", (root / "artifacts").string());
  std::filesystem::create_directories(root / "state");
  write_standin_profile(f, {.soc_version = "Ascend910B4", .warmup = 1, .repeat = 3, .timeouts = "run = 120\n", .environment = environment, .without = without});
  return f;
}

inline evaluation::eval_options standin_eval_options(const std::filesystem::path& root, const std::filesystem::path& profile) {
  evaluation::eval_options eo;
  eo.backend = "cann";
  eo.cann_config = profile;
  eo.use_cache = false;
  eo.cache_dir = root / "cache";
  eo.work_root = root / "work";
  return eo;
}

}  // namespace aopt::testing
