#include "aopt/optimize/offline_engine.h"

#include <algorithm>
#include <exception>
#include <set>
#include <string_view>
#include <utility>

#include "aopt/common/sha256.h"
#include "aopt/search/rewind.h"

namespace aopt::optimize {

namespace {

// Tokens that a diff of each motif changes (docs/optimizer.md, "Matching imported tuples").
struct motif_tokens {
  std::string_view motif;
  std::vector<std::string_view> tokens;
};
const std::vector<motif_tokens>& token_table() {
  static const std::vector<motif_tokens> table = {
      {"double_buffer", {"BUFFER_NUM", "TQue", "InitBuffer"}},
      {"enque_pipe_all", {"PipeBarrier", "PIPE_ALL", "EnQue"}},  // before pipe_all_barrier: wins ties
      {"pipe_all_barrier", {"PipeBarrier", "PIPE_ALL"}},
      {"redundant_pipe_v", {"PipeBarrier", "PIPE_V"}},
      {"vectorize_scalar_loop", {"SetValue", "GetValue", "for"}},
      {"fuse_vector_ops", {"Axpy", "Muls"}},
      {"hoist_invariant", {"Duplicate", "Cast", "for"}},
      {"tbuf_temps", {"TBuf", "TQue", "VECCALC", "AllocTensor", "FreeTensor", "Get"}},
      {"merge_copies", {"DataCopy", "for"}},
      {"datacopypad_tail", {"DataCopyPad", "SetValue", "GetValue", "DataCopyExtParams"}},
      {"multicore_split", {"GetCoreNumAiv", "SetBlockDim"}},
      {"tail_balance", {"GetBlockNum", "GetBlockIdx"}},
      {"tile_size", {"GetCoreMemSize", "ub"}},
      {"div_to_reciprocal", {"Reciprocal", "Duplicate", "Div"}},
      {"counter_mode_mask", {"SetMaskCount", "SetVectorMask", "COUNTER", "SetMaskNorm", "ResetMask"}},
  };
  return table;
}

// Identifiers on the changed lines of a unified diff.
std::set<std::string> changed_identifiers(std::string_view diff) {
  std::set<std::string> out;
  std::size_t pos = 0;
  while (pos < diff.size()) {
    std::size_t eol = diff.find('\n', pos);
    if (eol == std::string_view::npos) eol = diff.size();
    const std::string_view line = diff.substr(pos, eol - pos);
    pos = eol + 1;
    if (line.empty() || (line[0] != '+' && line[0] != '-')) continue;
    if (line.starts_with("+++") || line.starts_with("---")) continue;
    std::string cur;
    for (char c : line.substr(1)) {
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_') {
        cur.push_back(c);
      } else if (!cur.empty()) {
        out.insert(cur);
        cur.clear();
      }
    }
    if (!cur.empty()) out.insert(cur);
  }
  return out;
}

// Applies `m` forward at every site, one after the other (re-matching after each change).
std::optional<motifs::file_set> apply_all_sites(const motifs::motif& m, const motifs::file_set& files,
                                                motifs::parser& parser, std::size_t max_sites) {
  motifs::file_set cur = files;
  std::size_t applied = 0;
  std::set<std::string> failed;  // summaries of sites that did not apply
  while (applied < max_sites) {
    motifs::source_set src(cur, parser);
    bool progressed = false;
    for (const auto& s : motifs::sites_for(m, src, motifs::direction::forward)) {
      if (failed.count(s.path + "|" + s.summary) != 0) continue;
      auto a = motifs::apply_site(m, src, s, motifs::direction::forward);
      if (!a.ok || a.files == cur) {
        failed.insert(s.path + "|" + s.summary);
        continue;
      }
      cur = std::move(a.files);
      ++applied;
      progressed = true;
      break;
    }
    if (!progressed) break;
  }
  if (applied < 2) return std::nullopt;  // one site is offered on its own
  return cur;
}

}  // namespace

const motifs::motif* motif_for(const search::experience& e, double threshold) {
  if (!e.motif.empty()) {
    if (const auto* m = motifs::find_motif(e.motif)) return m;
  }
  const auto ids = changed_identifiers(e.code_diff);
  const motifs::motif* best = nullptr;
  double best_share = 0;
  for (const auto& row : token_table()) {
    std::size_t hit = 0;
    for (auto t : row.tokens) hit += ids.count(std::string(t));
    const double share = static_cast<double>(hit) / static_cast<double>(row.tokens.size());
    if (share > best_share) {
      best_share = share;
      best = motifs::find_motif(row.motif);
    }
  }
  return best_share >= threshold ? best : nullptr;
}

offline_engine::offline_engine(offline_engine_config cfg)
    : cfg_(std::move(cfg)), root_(cfg_.seed), parser_(std::make_unique<motifs::parser>()) {
  cfg_.mutator.validate();
  cfg_.diagnosis.validate();
}

offline_engine::~offline_engine() = default;

search::outcome<stage1::tiling_template> offline_engine::synthesize_template(const stage1::synthesis_input& input) {
  stage1::synthesis_result r = stage1::synthesize(input);
  if (!r.tmpl) return search::engine_failure{r.error ? r.error->reason : "template synthesis failed"};
  return std::move(*r.tmpl);
}

search::outcome<std::vector<stage1::tiling_proposal>> offline_engine::propose_tiling_variants(
    const stage1::tiling_template& tmpl, const stage1::stage1_history& history, std::size_t n) {
  const std::string key = stage1::template_id(tmpl);
  if (key != current_key_ || !mutator_) {
    // A new template gets its own generator, forked from the root in call order.
    mutator_ = std::make_unique<stage1::mutator>(tmpl, cfg_.mutator, stage1::fork_rng(root_, "stage1.mutator"));
    current_key_ = key;
  }
  if (mutator_->mutable_tunables().empty()) {
    return search::engine_failure{"the template of " + tmpl.function_name +
                                  " has no tunable with more than one legal value: nothing to mutate"};
  }
  std::vector<stage1::tiling_proposal> out = mutator_->propose(history, n);
  for (auto& p : out) p.files = tmpl.instantiate(p.values);
  return out;
}

search::outcome<std::vector<search::deopt_step>> offline_engine::deoptimize(const search::file_map& kernel_files) {
  std::vector<search::deopt_step> out;
  motifs::source_set src(kernel_files, *parser_);
  for (const auto& m : motifs::all_motifs()) {
    for (const auto& s : motifs::sites_for(*m, src, motifs::direction::inverse)) {
      auto a = motifs::apply_site(*m, src, s, motifs::direction::inverse);
      if (!a.ok || a.files == kernel_files) continue;
      search::deopt_step st;
      st.motif = std::string(m->id());
      st.title = std::string(m->title());
      st.description = std::string(m->description()) + " (" + s.path + ": " + s.summary + ")";
      st.bottleneck = search::to_string(m->bottleneck());
      st.before = kernel_files;
      st.after = std::move(a.files);
      out.push_back(std::move(st));
    }
  }
  if (out.empty()) return search::engine_failure{"deoptimize: no inverse motif site in these files"};
  return out;
}

search::outcome<search::experience> offline_engine::distill(const search::deopt_step& step) {
  if (!step.fast_us || !step.slow_us) {
    return search::engine_failure{"distill: the step has not been measured (fast_us and slow_us are required)"};
  }
  search::rewind_step rs;
  rs.motif = step.motif;
  rs.title = step.title;
  rs.description = step.description;
  if (auto c = search::parse_bottleneck_class(step.bottleneck)) rs.bottleneck = *c;
  rs.diff = motifs::unified_diff(step.after, step.before);
  rs.fast_us = *step.fast_us;
  rs.slow_us = *step.slow_us;
  rs.fast_files = step.before;
  rs.slow_files = step.after;
  search::rewind_config rc;
  return search::distill(rs, rc);
}

search::outcome<search::diagnosis> offline_engine::diagnose(const nlohmann::json& profile, const search::file_map&) {
  try {
    return search::diagnose(profile, cfg_.diagnosis);
  } catch (const std::exception& e) {
    return search::engine_failure{std::string("diagnose: ") + e.what()};
  }
}

search::outcome<std::vector<search::kernel_rewrite>> offline_engine::rewrite_kernel(
    const search::file_map& files, const std::vector<search::experience>& tuples) {
  std::vector<search::kernel_rewrite> out;
  std::set<std::string> seen;
  std::vector<std::string> skipped;
  auto offer = [&](motifs::file_set f, std::string title, std::string rationale, std::vector<std::string> ids) {
    if (f == files) return;
    common::sha256 h;
    for (const auto& [p, c] : f) {
      h.update(p);
      h.update(std::string_view("\0", 1));
      h.update(c);
      h.update(std::string_view("\0", 1));
    }
    if (!seen.insert(common::to_hex(h.finish())).second) return;
    out.push_back({std::move(f), std::move(title), std::move(rationale), std::move(ids)});
  };
  auto use_motif = [&](const motifs::motif& m, const search::experience* tuple) {
    motifs::source_set src(files, *parser_);
    const auto sites = motifs::sites_for(m, src, motifs::direction::forward);
    if (sites.empty()) return;
    std::vector<std::string> ids;
    std::string why = std::string(m.description());
    if (tuple != nullptr) {
      ids.push_back(tuple->id);
      why = "experience \"" + tuple->title + "\" (" + tuple->bottleneck + "): motif " + std::string(m.id());
    }
    if (sites.size() > 1) {
      if (auto all = apply_all_sites(m, files, *parser_, 16)) {
        offer(std::move(*all), std::string(m.title()) + " (every site)", why, ids);
      }
    }
    for (const auto& s : sites) {
      auto a = motifs::apply_site(m, src, s, motifs::direction::forward);
      if (!a.ok) continue;
      offer(std::move(a.files), std::string(m.title()) + " (" + s.path + ": " + s.summary + ")", why, ids);
    }
  };
  if (tuples.empty()) {
    for (const auto& m : motifs::all_motifs()) use_motif(*m, nullptr);
  } else {
    for (const auto& t : tuples) {
      const motifs::motif* m = motif_for(t, cfg_.motif_match_threshold);
      if (m == nullptr) {
        skipped.push_back(t.title);
        continue;
      }
      use_motif(*m, &t);
    }
  }
  if (out.empty()) {
    std::string why = tuples.empty() ? "no forward motif site in these files"
                                     : "none of the " + std::to_string(tuples.size()) +
                                           " tuple(s) has a forward motif site in these files";
    if (!skipped.empty()) why += " (" + std::to_string(skipped.size()) + " tuple(s) match no motif)";
    return search::engine_failure{"rewrite_kernel: " + why};
  }
  return out;
}

}  // namespace aopt::optimize
