#include "aopt/stage1/offline_engine.h"

#include <exception>

namespace aopt::stage1 {

offline_engine::offline_engine(offline_engine_config cfg) : cfg_(std::move(cfg)), root_(cfg_.seed) {
  cfg_.mutator.validate();
  cfg_.diagnosis.validate();
}

search::outcome<tiling_template> offline_engine::synthesize_template(const synthesis_input& input) {
  synthesis_result r = synthesize(input);
  if (!r.tmpl) return search::engine_failure{r.error ? r.error->reason : "template synthesis failed"};
  return std::move(*r.tmpl);
}

search::outcome<std::vector<tiling_proposal>> offline_engine::propose_tiling_variants(const tiling_template& tmpl,
                                                                                      const stage1_history& history,
                                                                                      std::size_t n) {
  if (current_ != &tmpl || !mutator_) {
    // A new template gets its own generator, forked from the root in call order.
    mutator_ = std::make_unique<mutator>(tmpl, cfg_.mutator, fork_rng(root_, "stage1.mutator"));
    current_ = &tmpl;
  }
  if (mutator_->mutable_tunables().empty()) {
    return search::engine_failure{"the template of " + tmpl.function_name +
                                  " has no tunable with more than one legal value: nothing to mutate"};
  }
  std::vector<tiling_proposal> out = mutator_->propose(history, n);
  for (auto& p : out) p.files = tmpl.instantiate(p.values);
  return out;
}

search::outcome<std::vector<search::deopt_step>> offline_engine::deoptimize(const search::file_map&) {
  return search::engine_failure{"deoptimize: not provided by this engine yet (the motif library supplies it)"};
}

search::outcome<search::experience> offline_engine::distill(const search::deopt_step&) {
  return search::engine_failure{"distill: not provided by this engine yet (the motif library supplies it)"};
}

search::outcome<search::diagnosis> offline_engine::diagnose(const nlohmann::json& profile, const search::file_map&) {
  try {
    return search::diagnose(profile, cfg_.diagnosis);
  } catch (const std::exception& e) {
    return search::engine_failure{std::string("diagnose: ") + e.what()};
  }
}

search::outcome<std::vector<search::kernel_rewrite>> offline_engine::rewrite_kernel(
    const search::file_map&, const std::vector<search::experience>&) {
  return search::engine_failure{"rewrite_kernel: not provided by this engine yet (the motif library supplies it)"};
}

}  // namespace aopt::stage1
