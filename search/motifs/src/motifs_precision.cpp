// Precision motifs: compute in the input's precision where the kernel casts half up to float
// for the whole chain (compute_in_input_type).
//
// Real fp16 kernels often carry two paths chosen at compile time by the element type:
//   if constexpr (!std::is_same_v<T, float>) { Cast(f, x); <chain on float tiles>; Cast(y, f); }
//   else { <the same chain on T tiles> }
// (or the plain form `if constexpr (std::is_same_v<T, float>) { native } else ...`). On the
// vector unit an fp16 repeat holds 128 elements and an fp32 one 64, and the two Casts are passes
// of their own, so the float path costs about twice the native one for half. The forward sends
// half down the native path by widening the condition (`&& !std::is_same_v<T, half>`, or
// `|| std::is_same_v<T, half>` in the plain form); bfloat16 and other types keep the float path.
// Whether half precision is enough is the evaluation's to say (the output check against the
// reference and the tolerance), as for every motif. Inverse: the added clause removed.
#include <cctype>
#include <regex>
#include <set>

#include "flow.h"

namespace aopt::motifs::detail {
namespace {

using search::bottleneck_class;

// The end of the statement starting at `pos` (a `{...}` block, an `if` with its branches, or a
// simple statement through its `;`); npos when it cannot be found.
std::size_t statement_end(std::string_view s, std::size_t pos) {
  pos = skip_space(s, pos);
  if (pos >= s.size()) return std::string_view::npos;
  if (s[pos] == '{') {
    const std::size_t e = closing_bracket(s, pos);
    return e == std::string_view::npos ? e : e + 1;
  }
  if (s.substr(pos, 2) == "if" && (pos + 2 >= s.size() || !is_ident_char(s[pos + 2]))) {
    std::size_t p = skip_space(s, pos + 2);
    if (s.substr(p, 9) == "constexpr") p = skip_space(s, p + 9);
    if (p >= s.size() || s[p] != '(') return std::string_view::npos;
    const std::size_t c = closing_bracket(s, p);
    if (c == std::string_view::npos) return c;
    std::size_t e = statement_end(s, c + 1);
    if (e == std::string_view::npos) return e;
    const std::size_t after = skip_space(s, e);
    if (s.substr(after, 4) == "else" && (after + 4 >= s.size() || !is_ident_char(s[after + 4]))) e = statement_end(s, after + 4);
    return e;
  }
  for (std::size_t i = pos; i < s.size();) {
    const std::size_t skipped = skip_literal_or_comment(s, i);
    if (skipped != i) {
      i = skipped;
      continue;
    }
    if (s[i] == '(' || s[i] == '{' || s[i] == '[') {
      const std::size_t c = closing_bracket(s, i);
      if (c == std::string_view::npos) return c;
      i = c + 1;
      continue;
    }
    if (s[i] == ';') return i + 1;
    ++i;
  }
  return std::string_view::npos;
}

// `[!]std::is_same_v<T, F>` with F a 32-bit float spelling, squeezed; the type name and whether
// it is negated.
struct type_test {
  std::string type;
  bool negated = false;
};
std::optional<type_test> float_test(const std::string& squeezed) {
  std::string s = squeezed;
  type_test t;
  if (!s.empty() && s[0] == '!') {
    t.negated = true;
    s = s.substr(1);
  }
  for (const char* prefix : {"std::is_same_v<", "is_same_v<"}) {
    const std::string p(prefix);
    if (s.rfind(p, 0) != 0 || s.back() != '>') continue;
    const std::string inner = s.substr(p.size(), s.size() - p.size() - 1);
    const auto comma = inner.find(',');
    if (comma == std::string::npos) return std::nullopt;
    const std::string a = inner.substr(0, comma), b = inner.substr(comma + 1);
    const auto is_float = [](const std::string& x) { return x == "float" || x == "float32_t"; };
    if (is_float(b) && is_identifier(a)) t.type = a;
    else if (is_float(a) && is_identifier(b)) t.type = b;
    else return std::nullopt;
    return t;
  }
  return std::nullopt;
}

// The clause the forward appends to a condition, by form.
std::string half_clause(const type_test& t) {
  return t.negated ? " && !std::is_same_v<" + t.type + ", half>" : " || std::is_same_v<" + t.type + ", half>";
}

bool casts(std::string_view body) { return body.find("Cast(") != std::string_view::npos || body.find("Cast<") != std::string_view::npos; }

// One `if constexpr` on the element type with a float-up path and a native path.
struct type_branch {
  range cond;                     // the condition's bytes inside the parentheses
  type_test test;
  bool widened = false;           // the condition already carries the forward's clause
  std::size_t clause_begin = 0;   // widened: where the clause starts (the original ends there)
};

std::optional<type_branch> classify(const source_file& f, int if_node) {
  const range r = f.at(if_node).r;
  const std::string_view s = f.text();
  std::size_t p = skip_space(s, r.begin);
  if (s.substr(p, 2) != "if") return std::nullopt;
  p = skip_space(s, p + 2);
  if (s.substr(p, 9) != "constexpr") return std::nullopt;
  p = skip_space(s, p + 9);
  if (p >= s.size() || s[p] != '(') return std::nullopt;
  const std::size_t close = closing_bracket(s, p);
  if (close == std::string_view::npos || close > r.end) return std::nullopt;
  type_branch b;
  const auto [cb, ce] = trim(s, p + 1, close);
  b.cond = {cb, ce};
  const std::string cond(s.substr(cb, ce - cb));
  // The branches: then [close + 1, then_end), else after `else`.
  const std::size_t then_end = statement_end(s, close + 1);
  if (then_end == std::string_view::npos) return std::nullopt;
  const std::size_t e = skip_space(s, then_end);
  if (s.substr(e, 4) != "else" || (e + 4 < s.size() && is_ident_char(s[e + 4]))) return std::nullopt;
  const std::size_t else_end = statement_end(s, e + 4);
  if (else_end == std::string_view::npos) return std::nullopt;
  const std::string_view then_body = s.substr(close + 1, then_end - close - 1);
  const std::string_view else_body = s.substr(e + 4, else_end - e - 4);
  // The condition as written, or as the forward left it (the original then ends where the
  // clause starts).
  std::optional<type_test> t = float_test(squeeze(cond));
  if (!t) {
    for (const char* op : {"&&", "||"}) {
      const auto at = cond.rfind(op);
      if (at == std::string::npos) continue;
      auto orig = float_test(squeeze(cond.substr(0, at)));
      if (!orig || squeeze(cond.substr(at)) != squeeze(half_clause(*orig))) continue;
      t = orig;
      b.widened = true;
      // The clause's bytes: from the end of the original (trailing spaces included).
      std::size_t k = at;
      while (k > 0 && std::isspace(static_cast<unsigned char>(cond[k - 1]))) --k;
      b.clause_begin = cb + k;
      break;
    }
  }
  if (!t) return std::nullopt;
  b.test = *t;
  // The float-up path: then when negated, else otherwise; the other must compute natively.
  const std::string_view up = t->negated ? then_body : else_body;
  const std::string_view native = t->negated ? else_body : then_body;
  if (!casts(up) || casts(native) || native.find('(') == std::string_view::npos) return std::nullopt;
  // The native path must be generic: a float tile of the function used there (gelu_grad's
  // temporaries) would meet half tiles in one instruction, which has no such overload.
  const int fn = function_at(f, r.begin);
  if (fn >= 0) {
    static const std::regex float_tile(R"(LocalTensor\s*<\s*(float|float32_t)\s*>\s*([A-Za-z_]\w*))");
    const std::string body(f.text_of(fn));
    const std::size_t nb = static_cast<std::size_t>(native.data() - s.data());
    std::set<std::string> used;
    for (const auto& [id, pos] : identifiers(s, nb, nb + native.size())) used.insert(id);
    for (std::sregex_iterator m(body.begin(), body.end(), float_tile), end; m != end; ++m) {
      if (used.count((*m)[2].str())) return std::nullopt;
    }
    // Nor may it call a helper of the file that takes float tiles (spence's Calculate).
    static const std::regex definition(R"(\b([A-Za-z_]\w*)\s*\(([^()]*)\)\s*(const\s*)?\{)");
    static const std::regex float_param(R"(LocalTensor\s*<\s*(float|float32_t)\s*>)");
    const std::string text(s);
    for (std::sregex_iterator m(text.begin(), text.end(), definition), end; m != end; ++m) {
      if (used.count((*m)[1].str()) && std::regex_search((*m)[2].str(), float_param)) return std::nullopt;
    }
  }
  return b;
}

class compute_in_input_type final : public basic_motif {
 public:
  compute_in_input_type()
      : basic_motif("compute_in_input_type", "Compute half inputs in half precision",
                    "The kernel's half path casts the tile up to float, computes the chain there and casts back, "
                    "while the same chain on the element type is the float path: an fp32 repeat holds 64 elements "
                    "against 128 for fp16, and the two Casts are passes of their own. The `if constexpr` on the "
                    "element type is widened so that half takes the native path (bfloat16 keeps the float one); "
                    "whether half precision meets the tolerance is checked by the evaluation. Inverse: the added "
                    "clause removed.",
                    bottleneck_class::vector_bound) {}

  std::vector<site> match(const source_set& src) const override {
    std::vector<site> out;
    for (const auto& p : kernel_paths(src, "is_same")) {
      auto f = src.get(p);
      for (int n : f->find(node_kind::if_stmt)) {
        const auto b = classify(*f, n);
        if (!b) continue;
        const std::string c = std::string(f->text_of(b->cond));
        if (b->widened) {
          out.push_back(make_site(p, b->cond, false, true, "half back to the float path (" + squeeze(c) + ")"));
        } else {
          out.push_back(make_site(p, b->cond, true, false, "half computes natively (" + squeeze(c) + squeeze(half_clause(b->test)) + ")"));
        }
      }
    }
    return out;
  }

  outcome apply(const source_set& src, const site& s, direction d) const override {
    auto cur = refind(src, s);
    if (!cur || (d == direction::forward ? !cur->forward : !cur->inverse)) {
      return outcome::fail(d == direction::forward ? "no element-type branch with a float-up path here"
                                                   : "no widened element-type condition here");
    }
    auto f = src.get(s.path);
    for (int n : f->find(node_kind::if_stmt)) {
      const auto b = classify(*f, n);
      if (!b || !(b->cond == s.anchor)) continue;
      if (d == direction::forward) return outcome::success({{s.path, {b->cond.end, b->cond.end}, half_clause(b->test)}});
      return outcome::success({{s.path, {b->clause_begin, b->cond.end}, ""}});
    }
    return outcome::fail("the element-type condition moved");
  }
};

}  // namespace

void add_precision_motifs(std::vector<std::unique_ptr<motif>>& v) { v.push_back(std::make_unique<compute_in_input_type>()); }

}  // namespace aopt::motifs::detail
