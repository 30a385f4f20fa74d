// Internal: the motif families and helpers they share.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "aopt/motifs/motif.h"
#include "text_scan.h"

namespace aopt::motifs::detail {

void add_pipeline_motifs(std::vector<std::unique_ptr<motif>>& v);  // double_buffer, pipe_all_barrier, redundant_pipe_v
void add_tiling_motifs(std::vector<std::unique_ptr<motif>>& v);    // multicore_split, tail_balance, tile_size
void add_copy_motifs(std::vector<std::unique_ptr<motif>>& v);      // merge_copies, datacopypad_tail
void add_vector_motifs(std::vector<std::unique_ptr<motif>>& v);    // vectorize_scalar_loop, fuse_vector_ops, hoist_invariant, tbuf_temps
void add_mask_motifs(std::vector<std::unique_ptr<motif>>& v);      // counter_mode_mask
void add_core_motifs(std::vector<std::unique_ptr<motif>>& v);      // stream_core_cap, spread_single_core
void add_sync_motifs(std::vector<std::unique_ptr<motif>>& v);      // enque_pipe_all, div_to_reciprocal
void add_compute_motifs(std::vector<std::unique_ptr<motif>>& v);   // sigmoid_gate_direct, inplace_to_dead_temp
void add_pass_motifs(std::vector<std::unique_ptr<motif>>& v);      // dead_vector_write, common_subexpression, sqrt_div_to_rsqrt
void add_prefetch_motifs(std::vector<std::unique_ptr<motif>>& v);  // prefetch_next_tile, prefetch_across_rows
void add_bank_motifs(std::vector<std::unique_ptr<motif>>& v);      // stagger_ub_buffers
void add_precision_motifs(std::vector<std::unique_ptr<motif>>& v); // compute_in_input_type

// A motif described by constant strings; subclasses implement match/apply.
class basic_motif : public motif {
 public:
  basic_motif(const char* id, const char* title, const char* description, search::bottleneck_class b, bool exact = true)
      : id_(id), title_(title), description_(description), bottleneck_(b), exact_(exact) {}
  std::string_view id() const override { return id_; }
  std::string_view title() const override { return title_; }
  std::string_view description() const override { return description_; }
  search::bottleneck_class bottleneck() const override { return bottleneck_; }
  bool exact_round_trip() const override { return exact_; }

 protected:
  site make_site(const std::string& path, range anchor, bool fwd, bool inv, std::string summary) const {
    return site{std::string(id_), path, anchor, fwd, inv, std::move(summary)};
  }
  // Re-finds the site `s` among the current matches (same path and anchor), for apply().
  std::optional<site> refind(const source_set& src, const site& s) const {
    for (auto& m : match(src)) {
      if (m.path == s.path && m.anchor == s.anchor) return m;
    }
    return std::nullopt;
  }

 private:
  const char* id_;
  const char* title_;
  const char* description_;
  search::bottleneck_class bottleneck_;
  bool exact_;
};

// Text of an argument of a call.
inline std::string arg_text(const source_file& f, const call_info& c, std::size_t i) {
  return std::string(f.text_of(c.args.at(i)));
}
// The whitespace/comment-free spelling of a range: two spellings that differ only in
// formatting compare equal.
inline std::string norm(const source_file& f, range r) { return squeeze(f.text_of(r)); }

// Vector operations of the count form and the tensors they write and read (by argument index).
struct vec_op_shape {
  const char* name;
  int dst;                 // index of the destination tensor
  std::vector<int> srcs;   // indices of source tensors
};
const vec_op_shape* vector_op(std::string_view callee);

// Insert `stmt` (no trailing newline) on its own line after the statement range `after`,
// indented like the line holding `after.begin`.
text_edit insert_after_statement(const source_file& f, range after, const std::string& stmt);
// Insert `stmt` on its own line before the statement range `before`.
text_edit insert_before_statement(const source_file& f, range before, const std::string& stmt);
// Delete a statement cleanly (whole lines when alone on them).
text_edit delete_statement(const source_file& f, range stmt);

// A loop variable name not used anywhere in the file: base, base1, base2, ...
std::string fresh_name(const source_file& f, const std::string& base);

// `for (<type> i = 0; i < N; ++i|i++|i += 1) { ... }` with a single simple bound.
struct counted_loop {
  int loop = -1;
  int body = -1;
  std::string var;
  range bound;             // the N expression
  range init;              // the start expression
  range step;              // the increment expression
};
std::optional<counted_loop> as_counted_loop(const source_file& f, int loop);
// The same header with any increment (`i += GetBlockNum()`): as_counted_loop without the unit step.
std::optional<counted_loop> loop_header(const source_file& f, int loop);

// vectorize_scalar_loop's general form (element_loop.cpp): an element loop of float locals and
// stores over fp32 UB tensors indexed s * i + o (s = 1, 2, 4). The summary when loop `loop`
// qualifies; the edits (the loop, a scratch TBuf in the kernel class, the host's UB reservation).
std::optional<std::string> element_loop_summary(const source_file& f, int loop);
outcome vectorize_element_loop(const source_set& src, const std::string& path, int loop);

}  // namespace aopt::motifs::detail

namespace aopt::motifs::detail {
// Kernel-side files of the set (optionally only those containing `needle`).
std::vector<std::string> kernel_paths(const source_set& src, std::string_view needle = {});
std::vector<std::string> host_paths(const source_set& src, std::string_view needle = {});
// The base tensor name of an operand ("xLocal[i * n]" -> "xLocal").
std::string base_name(std::string_view operand);
}  // namespace aopt::motifs::detail

namespace aopt::motifs::detail {
// Type spelling of the variable, field or parameter `name` declared in f (first found), or "".
std::string type_of_name(const source_file& f, const std::string& name);
// The first template argument of a type spelling ("AscendC::LocalTensor<T>" -> "T").
std::string first_template_arg(std::string_view type);
// Every for and while loop of f: the for loops in source order, then the while loops.
std::vector<int> loops_of(const source_file& f);
// Call statements directly inside compound `body`, in order.
std::vector<call_info> call_statements(const source_file& f, int body);
// True when the only uses of `name` after byte `from` in the function holding `from` are
// FreeTensor(name) calls: the tensor's content is dead after `from`.
bool dead_after(const source_file& f, const std::string& name, std::size_t from);
// Whether `s` is a plain operand: identifiers, member access, literals (no operators).
bool simple_operand(std::string_view s);
// Whether one of `words` is an identifier token of f inside r (keywords included).
bool has_token(const source_file& f, range r, std::initializer_list<std::string_view> words);
// The definition (method node with a body) of method `name` in f, or -1.
int method_definition(const source_file& f, const std::string& name);
// A call of the class's own method: unqualified or `this->`.
bool is_own_call(const call_info& k);
// The method bodies the calls of this file's methods in `r` reach (one level), but call node
// `except_node`'s.
std::vector<range> called_methods(const source_file& f, range r, int except_node);
}  // namespace aopt::motifs::detail

namespace aopt::motifs::detail {
// Adjacent statements of every compound of kernel file `f`: for each compound, its direct
// statements as calls (nullopt for anything else), so motifs can look at neighbours.
struct statement_run {
  int body = -1;
  std::vector<std::optional<call_info>> calls;
};
std::vector<statement_run> statement_runs(const source_file& f);
// fn(run, i) for every statement i of every run, in order, until fn returns true (then true).
template <typename Fn>
bool visit_run_statements(const std::vector<statement_run>& runs, Fn&& fn) {
  for (const auto& run : runs) {
    for (std::size_t i = 0; i < run.calls.size(); ++i) {
      if (fn(run, i)) return true;
    }
  }
  return false;
}
// fn(path, file, run, i) for every run statement of every kernel file (containing `needle`).
template <typename Fn>
void visit_kernel_run_statements(const source_set& src, std::string_view needle, Fn&& fn) {
  for (const auto& path : kernel_paths(src, needle)) {
    auto f = src.get(path);
    visit_run_statements(statement_runs(*f), [&](const statement_run& run, std::size_t i) {
      fn(path, *f, run, i);
      return false;
    });
  }
}
// `PipeBarrier<pipe>()` as a statement.
bool is_pipe_barrier(const std::optional<call_info>& c, std::string_view pipe);
// The value of a numeric literal spelled `1`, `-1.702`, `1.0f`, `2e-3`, `static_cast<T>(1)`,
// `(T)1`, `T(1)` (whitespace-free), or nullopt.
std::optional<double> literal_value(const std::string& s);
// Whether identifier `name` is assigned (=, op=, ++, --) in [from, to) of f.
bool assigned_in(const source_file& f, const std::string& name, std::size_t from, std::size_t to);
// The value of scalar operand `r` of file f: a literal (as literal_value), or a local variable
// of the function holding `r` declared with such a literal and never assigned again.
std::optional<double> scalar_value(const source_file& f, range r);
// Element type of a LocalTensor variable as its declaration spells it ("LocalTensor<DTYPE_X> x"
// -> "DTYPE_X"; macros are not expanded), or "".
std::string declared_element_type(const source_file& f, const std::string& name);
// A LocalTensor local of element type `elem` of the function holding byte `pos`, declared before
// it from its own buffer and named nowhere else in the function (a temporary an inverse may
// use), or "".
std::string unused_temporary(const source_file& f, std::size_t pos, const std::string& elem);
}  // namespace aopt::motifs::detail
