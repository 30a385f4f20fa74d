#include "aopt/motifs/motif.h"

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

std::vector<site> sites_for(const motif& m, const source_set& src, direction d) {
  std::vector<site> out;
  for (auto& s : m.match(src)) {
    if (d == direction::forward ? s.forward : s.inverse) out.push_back(std::move(s));
  }
  return out;
}

}  // namespace aopt::motifs
