// The llm engine's options for a job, as both `aopt` and `aoptd` set them: the device limits and
// seed of the offline engine's config (offline_config(profile, seed)), the operator and profile
// as tuple evidence.
#pragma once

#include <string>

#include "aopt/llm/engine.h"
#include "aopt/optimize/offline_engine.h"

namespace aopt::jobs {

llm::llm_engine_options llm_engine_options_for(const optimize::offline_engine_config& offline,
                                               const std::string& op, const std::string& profile);

}  // namespace aopt::jobs
