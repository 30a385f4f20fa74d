// The offline proposal engine (no language model): Stage I template synthesis by source
// analysis and variants from the seeded mutator; diagnosis by the rule-based Diagnoser; rewind
// (de-optimization) and kernel rewriting by the motif library (inverse and forward motifs);
// distillation by the rewind Distiller. Deterministic for a seed. See docs/optimizer.md.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>

#include "aopt/motifs/motif.h"
#include "aopt/search/diagnose.h"
#include "aopt/search/engine.h"
#include "aopt/stage1/mutator.h"

namespace aopt::optimize {

struct offline_engine_config {
  std::uint64_t seed = 0;                 // root of every random choice of this engine. Default: 0
  stage1::mutator_config mutator;         // see aopt/stage1/mutator.h
  search::diagnosis_config diagnosis;     // see aopt/search/diagnose.h
  // An imported tuple without a motif id is matched to the motif whose characteristic tokens
  // its diff shares most, when that share reaches this. Default: 0.5
  double motif_match_threshold = 0.5;
};

// The motif a tuple stands for: its `motif` field when that names a motif, else the motif whose
// characteristic tokens (docs/optimizer.md) the tuple's code_diff changed lines share most,
// when the share of that motif's tokens reaches `threshold`. nullptr when none.
const motifs::motif* motif_for(const search::experience& e, double threshold = 0.5);

class offline_engine final : public search::engine {
 public:
  explicit offline_engine(offline_engine_config cfg);
  ~offline_engine() override;

  std::string name() const override { return "offline"; }
  search::outcome<stage1::tiling_template> synthesize_template(const stage1::synthesis_input& input) override;
  search::outcome<std::vector<stage1::tiling_proposal>> propose_tiling_variants(
      const stage1::tiling_template& tmpl, const stage1::stage1_history& history, std::size_t n) override;
  // Every inverse-motif site of the files, as one step each (not yet evaluated).
  search::outcome<std::vector<search::deopt_step>> deoptimize(const search::file_map& kernel_files) override;
  // The rewind Distiller on a measured step (fast_us and slow_us required).
  search::outcome<search::experience> distill(const search::deopt_step& step) override;
  search::outcome<search::diagnosis> diagnose(const nlohmann::json& profile, const search::file_map& code) override;
  // For each tuple in order: its motif (motif_for) applied forward at all its sites at once
  // (when more than one), then at each site alone. With no tuples: the same for every motif of
  // the library (unguided). Rewrites that change nothing or repeat an earlier one are dropped.
  // `files` of each rewrite is the complete new file set.
  search::outcome<std::vector<search::kernel_rewrite>> rewrite_kernel(
      const search::file_map& files, const std::vector<search::experience>& tuples) override;

 private:
  offline_engine_config cfg_;
  std::mt19937_64 root_;
  std::string current_key_;  // content hash of the template mutator_ was made for
  std::unique_ptr<stage1::mutator> mutator_;
  std::unique_ptr<motifs::parser> parser_;
};

}  // namespace aopt::optimize
