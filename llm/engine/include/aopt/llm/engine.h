// The LLM proposal engine: the paper's language-model roles behind search::engine, so the
// optimizer, the Stage I loop and rewind run unchanged with `--engine llm`. Each role renders
// its prompt template (prompts.h), asks the client, and validates the answer: template markers
// (balanced, code untouched, tunables inside), code edits (edits.h: apply, parse), JSON of
// distillation and diagnosis (bottleneck classes checked). A bad answer is a failed proposal
// with its reason (counted per role and kind in usage()), never an exception out of the engine.
// See docs/llm-engine.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "aopt/llm/client.h"
#include "aopt/llm/edits.h"
#include "aopt/llm/prompts.h"
#include "aopt/search/engine.h"

namespace aopt::llm {

struct llm_engine_options {
  stage1::device_limits limits;   // core count and UB of the device (prompts, domain checks)
  std::size_t proposals = 4;      // rewrites / de-optimizations asked per call. Default: 4
  std::uint64_t seed = 0;         // samples the history shown when it exceeds max_history. Default: 0
  std::size_t max_history = 24;   // Stage I history entries in a mutation prompt. Default: 24
  std::size_t max_code_bytes = 48 * 1024;  // code shown per prompt; longer files are cut. Default: 48 KiB
  edit_options edits;             // whole-file limit, whitespace-tolerant matching
  bool check_parse = true;        // libclang parse of edited files (brackets are always checked). Default: true
  // Evidence of distilled tuples (the engine does not know where a step was measured).
  std::string evidence_op;
  std::string evidence_backend = "sim";
  std::string evidence_profile = "910b4";
  void validate() const;  // throws aopt::error(invalid_argument) naming the field
};

// One failed proposal (or failed call): for reports and tests.
struct proposal_failure {
  role r = role::refinement;
  std::string kind;    // an edit_error name, or "client", "bad_json", "unknown_class", "markers", "duplicate", ...
  std::string reason;
};

class llm_engine final : public search::engine {
 public:
  llm_engine(client& c, prompt_library prompts, llm_engine_options opt = {});
  ~llm_engine() override;

  std::string name() const override { return "llm"; }
  aopt::outcome<stage1::tiling_template> synthesize_template(const stage1::synthesis_input& input) override;
  // Edits of the evolvable region (values or logic); a parameter-only change carries its
  // assignment, a logic rewrite an empty one (op "llm-rewrite") with its files.
  aopt::outcome<std::vector<stage1::tiling_proposal>> propose_tiling_variants(
      const stage1::tiling_template& tmpl, const stage1::stage1_history& history, std::size_t n) override;
  aopt::outcome<std::vector<search::deopt_step>> deoptimize(const search::file_map& kernel_files) override;
  aopt::outcome<search::experience> distill(const search::deopt_step& step) override;
  aopt::outcome<search::diagnosis> diagnose(const nlohmann::json& profile, const search::file_map& code) override;
  aopt::outcome<std::vector<search::kernel_rewrite>> rewrite_kernel(const search::file_map& files,
                                                                      const std::vector<search::experience>& tuples) override;

  // {"client": per-role usage of the client, "proposals": {role: {"ok": n, "failed": n}},
  //  "failures": {role: {kind: n}}}
  nlohmann::json usage() const;
  // Every failure so far, in order.
  const std::vector<proposal_failure>& failures() const { return failures_; }

 private:
  struct region {
    std::size_t begin = 0;  // byte range of the evolvable region in the template's host file
    std::size_t end = 0;
  };
  aopt::outcome<std::string> ask(role r, const std::map<std::string, std::string>& values);
  aopt::engine_failure fail(role r, std::string kind, std::string reason);
  void note_ok(role r, std::size_t n = 1);
  region region_of(const stage1::tiling_template& t) const;
  // The proposals of one answer: each section whose edits apply to `files` and parse (and
  // differ from the sections before) goes through `make(section, index, edited files, reject)`,
  // which returns the proposal or nullopt after calling reject(kind, why). Rejections are
  // recorded as failures; at most opt_.proposals are kept; none = a failure naming each reason.
  template <class T, class Make>
  aopt::outcome<std::vector<T>> collect(role r, const std::string& answer, const search::file_map& files,
                                          const std::string& noun, Make make);

  client& client_;
  prompt_library prompts_;
  llm_engine_options opt_;
  std::mt19937_64 rng_;
  parse_checker parse_;
  std::map<std::string, region> regions_;               // template key -> region the model marked
  std::map<std::string, std::set<std::string>> offered_;  // template key -> files keys proposed
  std::vector<proposal_failure> failures_;
  std::map<std::string, std::uint64_t> ok_by_role_;
};

}  // namespace aopt::llm
