// The proposal-engine seam: every step where the optimizer proposes something (a tiling
// template, tiling variants, a de-optimization, a distilled experience, a diagnosis, a kernel
// rewrite) goes through this interface, so the offline engine (rules and mutators) and an LLM
// engine are interchangeable. Each method returns data or a recorded failure reason; a failure
// is a result, not an exception (exceptions are for system faults).
//
// This header uses the Stage I types: link `aopt_stage1` (search/tiling), which carries the
// include directories of both.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "aopt/common/file_map.h"
#include "aopt/common/outcome.h"
#include "aopt/search/diagnose.h"
#include "aopt/search/experience.h"
#include "aopt/stage1/mutator.h"
#include "aopt/stage1/tiling_template.h"

namespace aopt::search {

// The shared vocabulary (common/outcome.h, common/file_map.h), named in this namespace too.
using aopt::engine_failure;
using aopt::file_map;
using aopt::outcome;

// One de-optimization step of a seed kernel (rewind): the kernel before and after.
struct deopt_step {
  std::string motif;        // motif id when a rule made it
  std::string title;
  std::string description;
  std::string bottleneck;   // what the step makes worse (a bottleneck_class name or free text)
  file_map before;          // the faster kernel
  file_map after;           // the slower kernel
  std::optional<double> fast_us;  // measured latencies, once evaluated
  std::optional<double> slow_us;
};

// One kernel rewrite proposed from retrieved experience.
struct kernel_rewrite {
  file_map files;                     // replaced kernel files
  std::string title;
  std::string rationale;
  std::vector<std::string> experience_ids;  // tuples it applied
};

class engine {
 public:
  virtual ~engine() = default;
  virtual std::string name() const = 0;  // "offline", "llm"

  // Stage I: the evolvable template of the operator's tiling function.
  virtual outcome<stage1::tiling_template> synthesize_template(const stage1::synthesis_input& input) = 0;
  // Stage I: up to n new tiling variants (none already in `history`), files instantiated.
  virtual outcome<std::vector<stage1::tiling_proposal>> propose_tiling_variants(
      const stage1::tiling_template& tmpl, const stage1::stage1_history& history, std::size_t n) = 0;
  // Rewind: de-optimization steps of a strong seed kernel.
  virtual outcome<std::vector<deopt_step>> deoptimize(const file_map& kernel_files) = 0;
  // Rewind: an experience tuple from one measured step.
  virtual outcome<experience> distill(const deopt_step& step) = 0;
  // Stage II: the bottleneck(s) of a kernel from its profile (msprof field names) and code.
  virtual outcome<diagnosis> diagnose(const nlohmann::json& profile, const file_map& code) = 0;
  // Stage II: kernel rewrites that apply the retrieved tuples.
  virtual outcome<std::vector<kernel_rewrite>> rewrite_kernel(const file_map& files,
                                                              const std::vector<experience>& tuples) = 0;
};

}  // namespace aopt::search
