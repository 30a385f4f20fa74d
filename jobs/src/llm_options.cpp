#include "aopt/jobs/llm_options.h"

namespace aopt::jobs {

llm::llm_engine_options llm_engine_options_for(const optimize::offline_engine_config& offline,
                                               const std::string& op, const std::string& profile) {
  llm::llm_engine_options eo;
  eo.limits.core_count = offline.mutator.limits.core_count;
  eo.limits.ub_bytes = offline.mutator.limits.ub_bytes;
  eo.seed = offline.seed;
  eo.evidence_op = op;
  eo.evidence_profile = profile;
  return eo;
}

}  // namespace aopt::jobs
