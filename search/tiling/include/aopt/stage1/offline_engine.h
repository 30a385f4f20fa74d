// The offline engine's Stage I (and diagnosis) steps: template synthesis by source analysis,
// variants from the seeded mutator (files instantiated), diagnosis by the rule-based Diagnoser.
// De-optimization, distillation and kernel rewriting come from the motif library; until it is
// wired here they report "not provided by this engine".
#pragma once

#include <cstdint>
#include <memory>
#include <random>

#include "aopt/search/diagnose.h"
#include "aopt/search/engine.h"
#include "aopt/stage1/mutator.h"

namespace aopt::stage1 {

struct offline_engine_config {
  std::uint64_t seed = 0;              // root of every random choice of this engine. Default: 0
  mutator_config mutator;              // see mutator.h
  search::diagnosis_config diagnosis;  // see aopt/search/diagnose.h
};

class offline_engine final : public search::engine {
 public:
  explicit offline_engine(offline_engine_config cfg);

  std::string name() const override { return "offline"; }
  search::outcome<tiling_template> synthesize_template(const synthesis_input& input) override;
  search::outcome<std::vector<tiling_proposal>> propose_tiling_variants(const tiling_template& tmpl,
                                                                        const stage1_history& history,
                                                                        std::size_t n) override;
  search::outcome<std::vector<search::deopt_step>> deoptimize(const search::file_map& kernel_files) override;
  search::outcome<search::experience> distill(const search::deopt_step& step) override;
  search::outcome<search::diagnosis> diagnose(const nlohmann::json& profile, const search::file_map& code) override;
  search::outcome<std::vector<search::kernel_rewrite>> rewrite_kernel(
      const search::file_map& files, const std::vector<search::experience>& tuples) override;

 private:
  offline_engine_config cfg_;
  std::mt19937_64 root_;
  const tiling_template* current_ = nullptr;  // the template mutator_ was made for
  std::unique_ptr<mutator> mutator_;
};

}  // namespace aopt::stage1
