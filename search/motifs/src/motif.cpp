#include "aopt/motifs/motif.h"

#include <algorithm>
#include <mutex>
#include <unordered_map>

#include "aopt/common/fast_hash.h"
#include "motifs_impl.h"

namespace aopt::motifs {

const char* to_string(direction d) { return d == direction::forward ? "forward" : "inverse"; }

const std::vector<std::unique_ptr<motif>>& all_motifs() {
  static const std::vector<std::unique_ptr<motif>> list = [] {
    std::vector<std::unique_ptr<motif>> v;
    detail::add_pipeline_motifs(v);
    detail::add_tiling_motifs(v);
    detail::add_copy_motifs(v);
    detail::add_vector_motifs(v);
    detail::add_mask_motifs(v);
    detail::add_core_motifs(v);
    detail::add_sync_motifs(v);
    detail::add_compute_motifs(v);
    detail::add_pass_motifs(v);
    detail::add_prefetch_motifs(v);
    detail::add_bank_motifs(v);
    detail::add_precision_motifs(v);
    return v;
  }();
  return list;
}

const motif* find_motif(std::string_view id) {
  for (const auto& m : all_motifs()) {
    if (m->id() == id) return m.get();
  }
  return nullptr;
}

applied apply_site(const motif& m, const source_set& src, const site& s, direction d) {
  applied a;
  a.files = src.files();
  outcome o = m.apply(src, s, d);
  if (!o.ok) {
    a.reason = std::move(o.reason);
    return a;
  }
  a.files = apply_edits(src.files(), o.edits);
  a.diff = unified_diff(src.files(), a.files);
  a.edits = std::move(o.edits);
  a.ok = true;
  return a;
}

namespace {

// The sites of each of the fixed motifs (all_motifs) on a file set, by the parser's identity and
// the files' content: an engine asks every motif about the same kernel round after round (the
// best kernel changes only when a rewrite is accepted), and matching is text analysis over the
// parsed files. A motif made elsewhere (not in the fixed list) is matched every time.
std::vector<site> matched(const motif& m, const source_set& src) {
  const auto& fixed = all_motifs();
  const bool memo = std::any_of(fixed.begin(), fixed.end(), [&](const auto& f) { return f.get() == &m; });
  if (!memo) return m.match(src);
  std::uint64_t h = common::fast_hash64(m.id().data(), m.id().size(), src.parser_id());
  for (const auto& [path, text] : src.files()) {
    h = common::fast_hash64(path.data(), path.size(), h);
    h = common::fast_hash64(text.data(), text.size(), h);
  }
  static std::mutex mu;
  static std::unordered_map<std::uint64_t, std::vector<site>> known;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (const auto it = known.find(h); it != known.end()) return it->second;
  }
  auto sites = m.match(src);
  std::lock_guard<std::mutex> lock(mu);
  if (known.size() > 4096) known.clear();
  known.emplace(h, sites);
  return sites;
}

}  // namespace

std::vector<site> sites_for(const motif& m, const source_set& src, direction d) {
  std::vector<site> out;
  for (auto& s : matched(m, src)) {
    if (d == direction::forward ? s.forward : s.inverse) out.push_back(std::move(s));
  }
  return out;
}

}  // namespace aopt::motifs
