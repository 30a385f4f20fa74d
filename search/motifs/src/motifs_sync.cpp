// Kernel motifs on adjacent statements of a stage function: a full-pipeline barrier before a
// queue hand-off (enque_pipe_all) and a reciprocal computed as a division of a tensor of ones
// (div_to_reciprocal).
#include "motifs_impl.h"

namespace aopt::motifs::detail {
namespace {

using search::bottleneck_class;

bool is_enque(const std::optional<call_info>& c) { return c && c->callee == "EnQue" && c->args.size() == 1 && !c->object().empty(); }

// ---- enque_pipe_all ------------------------------------------------------------------------------

class enque_pipe_all final : public basic_motif {
 public:
  enque_pipe_all()
      : basic_motif("enque_pipe_all", "Remove a full-pipeline barrier before a queue hand-off",
                    "PipeBarrier<PIPE_ALL>() right before EnQue drains every pipe (including the copies of other "
                    "tiles in flight) at the end of each compute stage, although EnQue/DeQue already make the "
                    "consumer wait for exactly this producer. The barrier is removed. Inverse: a PIPE_ALL barrier "
                    "between the last vector instruction of a stage and its EnQue.",
                    bottleneck_class::serialized_pipes) {}

  std::vector<site> match(const source_set& src) const override {
    std::vector<site> out;
    visit_kernel_run_statements(src, "EnQue", [&](const std::string& path, const source_file&, const statement_run& run, std::size_t i) {
      if (i + 1 >= run.calls.size() || !is_enque(run.calls[i + 1])) return;
      const auto& a = run.calls[i];
      const auto& b = run.calls[i + 1];
      if (is_pipe_barrier(a, "PIPE_ALL")) {
        out.push_back(make_site(path, a->statement, true, false, "remove the PIPE_ALL barrier before " + b->object() + ".EnQue"));
      } else if (a && vector_op(a->callee) != nullptr) {
        out.push_back(make_site(path, b->statement, false, true, "PIPE_ALL barrier before " + b->object() + ".EnQue"));
      }
    });
    return out;
  }

  outcome apply(const source_set& src, const site& s, direction d) const override {
    auto cur = refind(src, s);
    if (!cur || (d == direction::forward ? !cur->forward : !cur->inverse)) {
      return outcome::fail(d == direction::forward ? "no PIPE_ALL barrier right before an EnQue here"
                                                   : "no EnQue right after a vector instruction here");
    }
    auto f = src.get(s.path);
    if (d == direction::forward) return outcome::success({delete_statement(*f, s.anchor)});
    return outcome::success({insert_before_statement(*f, s.anchor, f->api_prefix() + "PipeBarrier<PIPE_ALL>();")});
  }
};

// ---- div_to_reciprocal -----------------------------------------------------------------------------

// `1`, `1.0f`, `static_cast<T>(1)`, `(T)1`, `T(1)` (whitespace-free).
bool is_one(const std::string& s) { return literal_value(s) == 1.0; }

struct reciprocal_div {
  range span;          // Duplicate statement through Div statement
  std::string dst, src, count;
};

// `Duplicate(a, 1, n); [PipeBarrier<PIPE_V>();] Div(y, a, x, n);` with a dead afterwards (or a == y).
std::optional<reciprocal_div> as_reciprocal_div(const source_file& f, const statement_run& run, std::size_t i) {
  const auto& dup = run.calls[i];
  if (!dup || dup->callee != "Duplicate" || dup->args.size() != 3 || !dup->template_args.empty()) return std::nullopt;
  if (!is_one(norm(f, dup->args[1]))) return std::nullopt;
  std::size_t j = i + 1;
  if (j < run.calls.size() && is_pipe_barrier(run.calls[j], "PIPE_V")) ++j;
  if (j >= run.calls.size()) return std::nullopt;
  const auto& div = run.calls[j];
  if (!div || div->callee != "Div" || div->args.size() != 4 || !div->template_args.empty()) return std::nullopt;
  const std::string ones = norm(f, dup->args[0]);
  const std::string y = norm(f, div->args[0]), x = norm(f, div->args[2]);
  if (norm(f, div->args[1]) != ones || x == ones || norm(f, div->args[3]) != norm(f, dup->args[2])) return std::nullopt;
  if (!simple_operand(ones) || base_name(x) == base_name(ones)) return std::nullopt;
  if (y != ones && !dead_after(f, base_name(ones), div->statement.end)) return std::nullopt;
  return reciprocal_div{{dup->statement.begin, div->statement.end}, arg_text(f, *div, 0), arg_text(f, *div, 2), arg_text(f, *div, 3)};
}

class div_to_reciprocal final : public basic_motif {
 public:
  div_to_reciprocal()
      : basic_motif("div_to_reciprocal", "Reciprocal instead of dividing a tensor of ones",
                    "1 / x written as Duplicate(ones, 1, n) then Div(y, ones, x, n) fills a UB tile with ones on "
                    "every tile and runs a two-input division; Reciprocal(y, x, n) is one single-input vector pass. "
                    "Applies when the ones tensor is dead afterwards. Inverse: Reciprocal becomes Duplicate of ones "
                    "into its destination, a PIPE_V barrier and an in-place Div.",
                    bottleneck_class::vector_bound) {}

  std::vector<site> match(const source_set& src) const override {
    std::vector<site> out;
    visit_kernel_run_statements(src, {}, [&](const std::string& path, const source_file& f, const statement_run& run, std::size_t i) {
      if (auto r = as_reciprocal_div(f, run, i)) out.push_back(make_site(path, r->span, true, false, "Duplicate(1) + Div -> Reciprocal(" + r->dst + ", ...)"));
      if (inverse_ok(f, run.calls[i])) out.push_back(make_site(path, run.calls[i]->statement, false, true, "Reciprocal -> Duplicate(1) + Div"));
    });
    return out;
  }

  outcome apply(const source_set& src, const site& s, direction d) const override {
    auto cur = refind(src, s);
    if (!cur || (d == direction::forward ? !cur->forward : !cur->inverse)) {
      return outcome::fail(d == direction::forward ? "no Duplicate(1) + Div pair at this site" : "no Reciprocal call at this site");
    }
    auto f = src.get(s.path);
    const std::string p = f->api_prefix();
    for (const auto& run : statement_runs(*f)) {
      for (std::size_t i = 0; i < run.calls.size(); ++i) {
        if (d == direction::forward) {
          auto r = as_reciprocal_div(*f, run, i);
          if (r && r->span == s.anchor) return outcome::success({{s.path, s.anchor, p + "Reciprocal(" + r->dst + ", " + r->src + ", " + r->count + ");"}});
        } else if (inverse_ok(*f, run.calls[i]) && run.calls[i]->statement == s.anchor) {
          const call_info& c = *run.calls[i];
          const std::string y = arg_text(*f, c, 0), x = arg_text(*f, c, 1), n = arg_text(*f, c, 2);
          const std::string t = element_type(*f, y);
          const std::string ind = f->indent_at(c.r.begin);
          return outcome::success({{s.path, s.anchor,
                                    p + "Duplicate(" + y + ", static_cast<" + t + ">(1), " + n + ");\n" + ind + p + "PipeBarrier<PIPE_V>();\n" + ind + p +
                                        "Div(" + y + ", " + y + ", " + x + ", " + n + ");"}});
        }
      }
    }
    return outcome::fail("the statements changed");
  }

 private:
  // Element type of a LocalTensor operand ("yLocal" declared LocalTensor<T> -> "T"), or "".
  static std::string element_type(const source_file& f, const std::string& operand) {
    return first_template_arg(type_of_name(f, base_name(operand)));
  }
  static bool inverse_ok(const source_file& f, const std::optional<call_info>& c) {
    if (!c || c->callee != "Reciprocal" || c->args.size() != 3 || !c->template_args.empty()) return false;
    const std::string y = norm(f, c->args[0]), x = norm(f, c->args[1]);
    if (!simple_operand(y) || base_name(y) == base_name(x)) return false;
    return !element_type(f, y).empty();
  }
};

}  // namespace

void add_sync_motifs(std::vector<std::unique_ptr<motif>>& v) {
  v.push_back(std::make_unique<enque_pipe_all>());
  v.push_back(std::make_unique<div_to_reciprocal>());
}

}  // namespace aopt::motifs::detail
