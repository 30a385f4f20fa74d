// Template synthesis on the token stream of the host tiling source (see docs/stage1.md for the
// rules and why a token-level analysis rather than a full AST: the tiling code is macro-heavy,
// rewriting must preserve the text exactly, and the analysis must work on half-correct code).
#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "aopt/stage1/lexer.h"
#include "aopt/stage1/tiling_template.h"

namespace aopt::stage1 {
namespace {

using tokens = std::vector<token>;

std::string upper(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return r;
}
bool contains_any(const std::string& up, std::initializer_list<const char*> words) {
  for (const char* w : words) {
    if (up.find(w) != std::string::npos) return true;
  }
  return false;
}
bool is_pow2(std::int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

// A file-scope integer constant: `constexpr T NAME = 32;`, `const T NAME = 32;`, `#define NAME 32`.
struct constant_def {
  std::string name;
  std::size_t file = 0;
  std::size_t offset = 0;  // of the value literal
  std::size_t length = 0;
  std::string text;        // the value literal
  std::int64_t value = 0;
  bool macro = false;
};

// Constants of one lexed file, skipping the token range [skip_b, skip_e) (the tiling body).
void collect_constants(const std::string& src, const tokens& t, std::size_t file,
                       std::size_t skip_b, std::size_t skip_e, std::vector<constant_def>& out) {
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (i >= skip_b && i < skip_e) continue;
    if (t[i].kind == token_kind::directive) {
      // #define NAME VALUE [comment]
      std::string_view d = t[i].text;
      std::size_t p = 1;
      auto skip_ws = [&] { while (p < d.size() && (d[p] == ' ' || d[p] == '\t')) ++p; };
      skip_ws();
      if (d.substr(p, 6) != "define") continue;
      p += 6;
      skip_ws();
      const std::size_t nb = p;
      while (p < d.size() && (std::isalnum(static_cast<unsigned char>(d[p])) || d[p] == '_')) ++p;
      if (p == nb || (p < d.size() && d[p] == '(')) continue;
      const std::string name(d.substr(nb, p - nb));
      skip_ws();
      const std::size_t vb = p;
      while (p < d.size() && (std::isalnum(static_cast<unsigned char>(d[p])) || d[p] == '\'')) ++p;
      const std::string_view val = d.substr(vb, p - vb);
      skip_ws();
      if (p < d.size() && d.substr(p, 2) != "//" && d.substr(p, 2) != "/*") continue;
      const auto v = parse_integer_literal(val);
      if (!v) continue;
      out.push_back({name, file, t[i].offset + vb, val.size(), std::string(val), *v, true});
      continue;
    }
    // NAME = NUMBER ;  with `constexpr` or `const` earlier in the same declaration.
    if (!t[i].is_ident() || i + 3 >= t.size() || !t[i + 1].is("=") ||
        t[i + 2].kind != token_kind::number || !t[i + 3].is(";")) {
      continue;
    }
    bool is_const = false;
    for (std::size_t j = i; j-- > 0;) {
      if (t[j].is(";") || t[j].is("{") || t[j].is("}") || t[j].is(",") || t[j].is("(") ||
          t[j].kind == token_kind::directive) {
        break;
      }
      if (t[j].is("constexpr") || t[j].is("const")) is_const = true;
    }
    if (!is_const) continue;
    const auto v = parse_integer_literal(t[i + 2].text);
    if (!v) continue;
    (void)src;
    out.push_back({std::string(t[i].text), file, t[i + 2].offset, t[i + 2].length,
                   std::string(t[i + 2].text), *v, false});
  }
}

std::size_t match_forward(const tokens& t, std::size_t open) {
  const std::string_view o = t[open].text;
  const std::string_view c = o == "(" ? ")" : o == "[" ? "]" : "}";
  int depth = 0;
  for (std::size_t i = open; i < t.size(); ++i) {
    if (t[i].text == o) ++depth;
    else if (t[i].text == c && --depth == 0) return i;
  }
  return t.size();
}

// The opening bracket matching the closing one at `close` ("}" or ")"), scanning backwards;
// t.size() when there is none.
std::size_t match_backward(const tokens& t, std::size_t close) {
  const std::string_view c = t[close].text;
  const std::string_view o = c == ")" ? "(" : c == "]" ? "[" : "{";
  int depth = 0;
  for (std::size_t i = close + 1; i-- > 0;) {
    if (t[i].text == c) ++depth;
    else if (t[i].text == o && --depth == 0) return i;
  }
  return t.size();
}

bool names_a_data_type(const tokens& t, std::size_t b, std::size_t e) {
  for (std::size_t i = b; i < e && i < t.size(); ++i) {
    if (t[i].is_ident() && t[i].text.substr(0, 3) == "DT_") return true;
  }
  return false;
}

// Whether token `at` sits in a branch chosen by the data type: the innermost block around it is
// the body of an `if` / `else if` whose condition names a `ge::DT_` type, the `else` of such a
// chain, or a switch whose nearest `case` label before `at` names one.
bool in_data_type_branch(const tokens& t, std::size_t at) {
  std::size_t open = t.size();
  int depth = 0;
  for (std::size_t i = at; i-- > 0;) {
    if (t[i].is("}")) {
      ++depth;
    } else if (t[i].is("{") && depth-- == 0) {
      open = i;
      break;
    }
  }
  if (open == t.size() || open == 0) return false;
  if (t[open - 1].is(")")) {
    const std::size_t lp = match_backward(t, open - 1);
    if (lp == t.size() || lp == 0) return false;
    std::size_t kw = lp - 1;
    if (t[kw].is("constexpr") && kw > 0) --kw;
    if (t[kw].is("if")) return names_a_data_type(t, lp + 1, open - 1);
    if (t[kw].is("switch")) {
      for (std::size_t i = at; i > open; --i) {
        if (!t[i].is("case")) continue;
        std::size_t colon = i;
        while (colon < at && !t[colon].is(":")) ++colon;
        return names_a_data_type(t, i + 1, colon);
      }
    }
    return false;
  }
  // `else {`: the end of a chain; any of the chain's conditions naming a type.
  std::size_t k = open - 1;
  while (t[k].is("else") && k > 0 && t[k - 1].is("}")) {
    const std::size_t prev_open = match_backward(t, k - 1);
    if (prev_open == t.size() || prev_open == 0 || !t[prev_open - 1].is(")")) return false;
    const std::size_t lp = match_backward(t, prev_open - 1);
    if (lp == t.size() || lp == 0 || !t[lp - 1].is("if")) return false;
    if (names_a_data_type(t, lp + 1, prev_open - 1)) return true;
    if (lp < 2) return false;
    k = lp - 2;  // the `else` of an `else if`, or what precedes the chain's first `if`
  }
  return false;
}

// Whether the kernel learns its data types from the build (DTYPE_X / ORIG_DTYPE_X macros): if
// not, and it serves several types, the tiling key is how it learns them.
bool kernel_has_dtype_macros(const std::vector<tokens>& kernel) {
  for (const auto& t : kernel) {
    for (const auto& k : t) {
      if (k.is_ident() && (k.text.substr(0, 6) == "DTYPE_" || k.text.substr(0, 11) == "ORIG_DTYPE_")) return true;
    }
  }
  return false;
}

bool is_assign_op(const token& k) {
  static const std::set<std::string_view> ops = {"=",  "+=", "-=", "*=", "/=", "%=",
                                                 "&=", "|=", "^=", "<<=", ">>="};
  return k.kind == token_kind::punct && ops.count(k.text) > 0;
}
bool is_compare(const token& k) {
  return k.is("==") || k.is("!=") || k.is("<") || k.is(">") || k.is("<=") || k.is(">=");
}

enum class stmt_kind : std::uint8_t { simple, condition, other };
struct statement {
  stmt_kind kind = stmt_kind::other;
  std::size_t b = 0, e = 0;  // token range (for a condition: inside the parentheses)
};

// Splits the body tokens (b, e) into statements.
std::vector<statement> split_statements(const tokens& t, std::size_t b, std::size_t e) {
  std::vector<statement> out;
  std::size_t i = b;
  while (i < e) {
    const token& k = t[i];
    if (k.is("{") || k.is("}") || k.is("else") || k.is("do") || k.is(";") ||
        k.kind == token_kind::directive) {
      ++i;
      continue;
    }
    if ((k.is("if") || k.is("while") || k.is("switch") || k.is("for")) && i + 1 < e) {
      std::size_t open = i + 1;
      if (t[open].is("constexpr")) ++open;
      if (open < e && t[open].is("(")) {
        const std::size_t close = std::min(match_forward(t, open), e);
        out.push_back({k.is("for") ? stmt_kind::other : stmt_kind::condition, open + 1, close});
        i = close + 1;
        continue;
      }
    }
    if (k.is("case") || k.is("default")) {
      while (i < e && !t[i].is(":")) ++i;
      ++i;
      continue;
    }
    // A simple statement runs to the `;` at depth 0.
    const std::size_t sb = i;
    int depth = 0;
    while (i < e) {
      if (t[i].is("(") || t[i].is("[") || t[i].is("{")) ++depth;
      else if (t[i].is(")") || t[i].is("]") || t[i].is("}")) --depth;
      else if (t[i].is(";") && depth == 0) break;
      if (depth < 0) break;
      ++i;
    }
    const bool ret = t[sb].is("return");
    out.push_back({ret ? stmt_kind::other : stmt_kind::simple, sb, i});
    if (i < e && t[i].is(";")) ++i;
  }
  return out;
}

// The Matmul tiling API's calls whose arguments shape the TCubeTiling (matmul_tiling::
// MatmulApiTiling / MultiCoreMatmulTiling): each literal argument is a tunable named after the
// parameter, with the domain of that parameter.
struct matmul_param {
  const char* name;
  tunable_kind kind;
  domain_kind dom;
  std::int64_t lo, hi;
};
const std::vector<matmul_param>* matmul_call_params(std::string_view callee) {
  static const std::map<std::string_view, std::vector<matmul_param>> calls = {
      // base blocks: multiples of the 16-row fractal, powers of two up to what L0 can hold
      {"SetFixSplit",
       {{"baseM", tunable_kind::size, domain_kind::pow2, 16, 256},
        {"baseN", tunable_kind::size, domain_kind::pow2, 16, 256},
        {"baseK", tunable_kind::size, domain_kind::pow2, 16, 512}}},
      {"SetDim", {{"matmul_dim", tunable_kind::block_dim, domain_kind::cores, 1, 0}}},
      {"SetSingleShape",
       {{"singleCoreM", tunable_kind::size, domain_kind::log_range, 16, 65536},
        {"singleCoreN", tunable_kind::size, domain_kind::log_range, 16, 65536},
        {"singleCoreK", tunable_kind::size, domain_kind::log_range, 16, 65536}}},
      {"SetBufferSpace",
       {{"l1Size", tunable_kind::size, domain_kind::log_range, 16384, 524288},
        {"l0CSize", tunable_kind::size, domain_kind::log_range, 16384, 131072},
        {"ubSize", tunable_kind::size, domain_kind::log_range, 16384, 196608},
        {"btSize", tunable_kind::size, domain_kind::log_range, 256, 4096}}},
      {"SetSplitRange",
       {{"maxBaseM", tunable_kind::size, domain_kind::pow2, 16, 256},
        {"maxBaseN", tunable_kind::size, domain_kind::pow2, 16, 256},
        {"maxBaseK", tunable_kind::size, domain_kind::pow2, 16, 512},
        {"minBaseM", tunable_kind::size, domain_kind::pow2, 16, 256},
        {"minBaseN", tunable_kind::size, domain_kind::pow2, 16, 256},
        {"minBaseK", tunable_kind::size, domain_kind::pow2, 16, 512}}},
  };
  const auto it = calls.find(callee);
  return it == calls.end() ? nullptr : &it->second;
}

bool is_sink_callee(std::string_view n) {
  return n == "SetBlockDim" || n == "SetTilingKey" || (n.size() > 4 && n.substr(0, 4) == "set_") ||
         matmul_call_params(n) != nullptr;
}

// What a simple statement does.
struct stmt_info {
  enum class role : std::uint8_t { none, assign, member_write, sink_call, check } r = role::none;
  std::string target;          // assigned variable, written field, or sink callee
  std::size_t rhs_b = 0, rhs_e = 0;  // the expression whose values matter
  bool decl = false;
};

stmt_info analyse(const tokens& t, const statement& s) {
  stmt_info info;
  int depth = 0;
  std::size_t assign = s.e;
  std::size_t first_call = s.e;
  for (std::size_t i = s.b; i < s.e; ++i) {
    if (t[i].is("(") || t[i].is("[") || t[i].is("{")) {
      if (t[i].is("(") && depth == 0 && first_call == s.e) first_call = i;
      ++depth;
    } else if (t[i].is(")") || t[i].is("]") || t[i].is("}")) {
      --depth;
    } else if (depth == 0 && is_assign_op(t[i])) {
      assign = i;
      break;
    }
  }
  if (assign < s.e) {
    bool member = false, subscript = false;
    std::string last;
    std::size_t idents = 0;
    for (std::size_t i = s.b; i < assign; ++i) {
      if (t[i].is("->") || t[i].is(".")) member = true;
      if (t[i].is("[")) subscript = true;
      if (t[i].is_ident()) {
        last = std::string(t[i].text);
        ++idents;
      }
    }
    if (subscript || last.empty()) return info;
    info.r = member ? stmt_info::role::member_write : stmt_info::role::assign;
    info.target = last;
    info.decl = !member && idents > 1;
    info.rhs_b = assign + 1;
    info.rhs_e = s.e;
    return info;
  }
  if (first_call < s.e && first_call > s.b && t[first_call - 1].is_ident()) {
    const std::string_view callee = t[first_call - 1].text;
    const std::size_t close = std::min(match_forward(t, first_call), s.e);
    if (is_sink_callee(callee)) {
      info.r = stmt_info::role::sink_call;
      info.target = std::string(callee);
      info.rhs_b = first_call + 1;
      info.rhs_e = close;
      return info;
    }
    const std::string up = upper(callee);
    if (up == std::string(callee)) info.r = stmt_info::role::check;  // OP_TILING_CHECK(...), ...
  }
  return info;
}

// Callees through which a literal still reaches the result unchanged in kind.
bool transparent_callee(std::string_view n) {
  return n == "static_cast" || n == "min" || n == "max" || n == "uint32_t" || n == "uint64_t" ||
         n == "int64_t" || n == "int32_t" || n == "size_t" || is_sink_callee(n);
}

// The innermost `(` or `[` left open before token j, within [b, j); npos when none.
std::size_t enclosing_open(const tokens& t, std::size_t b, std::size_t j) {
  int depth = 0;
  for (std::size_t i = j; i-- > b;) {
    if (t[i].is(")") || t[i].is("]")) {
      ++depth;
    } else if (t[i].is("(") || t[i].is("[")) {
      if (depth == 0) return i;
      --depth;
    }
  }
  return std::string_view::npos;
}

// The name called by the `(` at `open` (skipping template arguments: static_cast<T>(, GetAttrPointer<float>(),
// within [b, open); npos when the parenthesis follows no name (a grouping one).
std::size_t callee_of(const tokens& t, std::size_t b, std::size_t open) {
  if (open <= b) return std::string_view::npos;
  std::size_t q = open - 1;
  if (t[q].is(">")) {
    int ad = 0;
    while (q > b) {
      if (t[q].is(">")) ++ad;
      else if (t[q].is("<") && --ad == 0) break;
      --q;
    }
    if (q == b) return std::string_view::npos;
    --q;
  }
  return t[q].is_ident() ? q : std::string_view::npos;
}

// True when token j sits inside a call that consumes it opaquely (GetDim(1), GetInputShape(0)),
// or inside a subscript, within [b, j).
bool opaque_context(const tokens& t, std::size_t b, std::size_t j) {
  for (std::size_t i = enclosing_open(t, b, j); i != std::string_view::npos; i = enclosing_open(t, b, i)) {
    if (t[i].is("[")) return true;
    if (i == b) return false;
    const token& p = t[i - 1];
    if (p.is_ident()) {
      if (p.is("if") || p.is("while") || p.is("return") || p.is("sizeof")) continue;
      if (!transparent_callee(p.text)) return true;
      continue;
    }
    if (p.is(">")) {  // static_cast<T>( ... ), std::min<T>( ... )
      const std::size_t c = callee_of(t, b, i);
      if (c != std::string_view::npos && transparent_callee(t[c].text)) continue;
      return true;
    }
    // a grouping parenthesis
  }
  return false;
}

// True when token j is an argument of a context getter that takes an index (GetInputShape(X_IDX),
// attrs->GetAttrPointer<float>(EPS_IDX), shape.GetDim(DIM0)) or a subscript (outputSize[DIM0]): it
// names which input, output, attribute, dimension or element is read, never a tiling choice.
bool index_argument(const tokens& t, std::size_t b, std::size_t j) {
  const std::size_t open = enclosing_open(t, b, j);
  if (open == std::string_view::npos) return false;
  if (t[open].is("[")) return true;  // a subscript (`outputSize[DIM0]`): which element, not a choice
  const std::size_t c = callee_of(t, b, open);
  if (c == std::string_view::npos) return false;
  static const std::set<std::string_view> getters{
      "GetInputShape", "GetInputDesc", "GetInputTensor", "GetOptionalInputShape", "GetOptionalInputDesc",
      "GetOptionalInputTensor", "GetRequiredInputShape", "GetRequiredInputDesc", "GetRequiredInputTensor",
      "GetDynamicInputShape", "GetDynamicInputDesc", "GetDynamicInputTensor", "GetOutputShape", "GetOutputDesc",
      "GetInputInstanceInfo", "GetOutputInstanceInfo", "GetAttrPointer", "GetInt", "GetFloat", "GetBool",
      "GetStr", "GetListInt", "GetListFloat", "GetDim", "GetInputDataType", "GetOutputDataType"};
  return getters.count(t[c].text) > 0;
}

bool core_member_name(std::string_view n) {
  const std::string up = upper(n);
  return up == "CORENUM" || up == "CORE_NUM" || up == "CORECOUNT" || up == "CORE_COUNT" ||
         up == "AIVNUM" || up == "AIV_NUM" || up == "TOTALCORENUM" || up == "CORENUMAIV";
}

struct builder {
  const synthesis_input& in;
  std::vector<std::string> file_text;     // template files (host file first, then kernel files)
  std::vector<std::string> file_path;
  std::vector<tunable> tunables;
  std::vector<std::string> notes;
  std::set<std::string> names;

  std::string unique_name(std::string base) {
    if (base.empty()) base = "tunable";
    std::string n = base;
    for (int k = 2; names.count(n); ++k) n = base + "_" + std::to_string(k);
    names.insert(n);
    return n;
  }
  std::string where(std::size_t file, std::size_t offset) const {
    return file_path[file] + ":" + std::to_string(line_of(file_text[file], offset));
  }
};

std::string statement_text(const std::string& src, const tokens& t, std::size_t b, std::size_t e) {
  if (b >= e) return {};
  std::string s = src.substr(t[b].offset, t[e - 1].offset + t[e - 1].length - t[b].offset);
  std::string r;
  bool space = false;
  for (char c : s) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = true;
      continue;
    }
    if (space && !r.empty()) r += ' ';
    space = false;
    r += c;
  }
  return r;
}

domain size_domain(std::int64_t v) {
  domain d;
  d.kind = domain_kind::log_range;
  if (v <= 0) {
    d.lo = 32;
    d.hi = 16384;
    d.allow_zero = true;
  } else {
    d.lo = std::max<std::int64_t>(1, v / 16);
    d.hi = v * 16;
  }
  return d;
}
domain count_domain(std::int64_t v) {
  // Counts that share out the UB (queues, work buffers, divisors of a tile) never go below
  // their written value: the kernel is fixed, and fewer shares would overflow the buffer.
  domain d;
  d.kind = domain_kind::range;
  d.lo = std::max<std::int64_t>(0, v);
  d.hi = std::max<std::int64_t>(v * 4, v + 4);
  return d;
}
domain alignment_domain(std::int64_t v) {
  domain d;
  if (is_pow2(v)) {
    d.kind = domain_kind::pow2;
    d.lo = v;  // the written alignment is the smallest legal one
    d.hi = v * 16;
  } else {
    d = count_domain(v);
  }
  return d;
}
domain choices_domain(std::vector<std::int64_t> c) {
  std::sort(c.begin(), c.end());
  c.erase(std::unique(c.begin(), c.end()), c.end());
  domain d;
  d.kind = domain_kind::choices;
  d.choices = std::move(c);
  if (!d.choices.empty()) {
    d.lo = d.choices.front();
    d.hi = d.choices.back();
  }
  return d;
}

// Kind and domain of a named constant from its name and value.
std::pair<tunable_kind, domain> classify_constant(const std::string& name, std::int64_t v) {
  const std::string up = upper(name);
  if (contains_any(up, {"BUFFER_NUM", "BUF_NUM", "BUFFERNUM", "DOUBLE_BUF", "DB_NUM", "BUFFER_COUNT"})) {
    std::vector<std::int64_t> c = {1, 2};
    if (v > 0) c.push_back(v);
    return {tunable_kind::buffer_num, choices_domain(c)};
  }
  if (contains_any(up, {"ALIGN", "BLOCK_BYTES", "BLOCK_SIZE", "BLOCKBYTES", "BLOCK_LEN", "GRANULE", "BLK"})) {
    return {tunable_kind::alignment, alignment_domain(v)};
  }
  if (contains_any(up, {"CORE", "BLOCK_DIM", "BLOCKDIM"})) {  // a count of cores (SetBlockDim's argument)
    domain d;
    d.kind = domain_kind::range;
    d.lo = 1;
    d.hi = 0;  // resolved to the device core count (see domain::contains)
    return {tunable_kind::block_dim, d};
  }
  if (contains_any(up, {"QUEUE", "COUNT", "BUFFERS", "TILES", "CNT", "NUM"})) {
    return {tunable_kind::count, count_domain(v)};
  }
  if (contains_any(up, {"RESERVE", "SIZE", "LEN", "BYTES", "TILE", "MAX", "BATCH", "CAP"}) || v > 16) {
    return {tunable_kind::size, size_domain(v)};
  }
  return {tunable_kind::count, count_domain(v)};
}

}  // namespace

namespace {

// 1. The tiling function's name: the argument of a member call `.SetTiling(...)` /
// `->SetTiling(...)` (OpDef's AICore().SetTiling) or `.Tiling(...)` (IMPL_OP_OPTILING(...).Tiling)
// in any host source, in order of appearance; a free function of the operator's own that happens
// to be called SetTiling (`SetTiling(params, tiling)`) names nothing. TilingFunc when none does.
std::vector<std::string> tiling_function_names(const std::vector<tokens>& host_toks) {
  std::vector<std::string> names;
  for (const tokens& t : host_toks) {
    for (std::size_t i = 1; i + 2 < t.size(); ++i) {
      const bool member = t[i - 1].is(".") || t[i - 1].is("->");
      if (!member || !(t[i].is("SetTiling") || t[i].is("Tiling")) || !t[i + 1].is("(")) continue;
      const std::size_t close = match_forward(t, i + 1);
      if (close < t.size() && close > i + 2 && t[close - 1].is_ident()) {
        std::string name(t[close - 1].text);
        if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(std::move(name));
      }
    }
  }
  if (names.empty()) names.emplace_back("TilingFunc");
  return names;
}

// Where the tiling function is defined: its host file, its name token, its body's braces.
struct definition {
  std::size_t host = 0;
  std::size_t def_tok = 0;
  std::size_t body_b = 0, body_e = 0;
};

// A definition whose name is token i: NAME ( ... ) [const|noexcept|override]* { ... }.
std::optional<definition> definition_at(const tokens& t, std::size_t file, std::size_t i) {
  if (i + 1 >= t.size() || !t[i + 1].is("(")) return std::nullopt;
  std::size_t j = match_forward(t, i + 1) + 1;
  while (j < t.size() && (t[j].is("const") || t[j].is("noexcept") || t[j].is("override"))) ++j;
  if (j >= t.size() || !t[j].is("{")) return std::nullopt;
  const std::size_t body_e = match_forward(t, j);
  if (body_e >= t.size()) return std::nullopt;
  return definition{file, i, j, body_e};
}

// A name token preceded by a member access, an argument list or an assignment is a use.
bool used_not_defined(const tokens& t, std::size_t i) {
  return i > 0 && (t[i - 1].is(".") || t[i - 1].is("->") || t[i - 1].is("(") || t[i - 1].is(",") ||
                   t[i - 1].is("=") || t[i - 1].is("return"));
}

// 2. Its definition: NAME ( ... ) {  not preceded by a member access or argument list (nor `::`:
// the tiling function is a free function).
std::optional<definition> find_definition(const std::vector<tokens>& host_toks, const std::string& func_name) {
  for (std::size_t fi = 0; fi < host_toks.size(); ++fi) {
    const tokens& t = host_toks[fi];
    for (std::size_t i = 0; i + 1 < t.size(); ++i) {
      if (!t[i].is(func_name) || used_not_defined(t, i) || (i > 0 && t[i - 1].is("::"))) continue;
      if (auto d = definition_at(t, fi, i)) return d;
    }
  }
  return std::nullopt;
}

// The functions the tiling function calls that its own file defines, transitively: free helpers
// and the methods of a tiling class (`AngleV2Tiling::Init()` called as `obj.Init()`). Their
// statements join the slice: a tiling object's members carry a value from the method that
// computes it to the sink in another (`coreNum` set in Init, given to SetBlockDim in Run).
// Names are matched by spelling, so a same-named function of another class is followed too:
// over-inclusion only widens the slice. At most 32 bodies.
bool control_keyword(const token& k) {
  return k.is("if") || k.is("while") || k.is("for") || k.is("switch") || k.is("return") || k.is("sizeof") ||
         k.is("catch") || k.is("static_cast") || k.is("reinterpret_cast") || k.is("const_cast") ||
         k.is("dynamic_cast") || k.is("decltype") || k.is("alignof") || k.is("static_assert");
}

// Every definition of a file, by name (file: the index the definitions carry).
std::multimap<std::string_view, definition> definitions_of(const tokens& t, std::size_t file) {
  std::multimap<std::string_view, definition> defs;
  for (std::size_t i = 0; i + 1 < t.size(); ++i) {
    if (!t[i].is_ident() || control_keyword(t[i]) || used_not_defined(t, i)) continue;
    if (auto d = definition_at(t, file, i)) defs.emplace(t[i].text, *d);
  }
  return defs;
}

// The names a body calls: NAME ( inside its braces.
std::set<std::string_view> called_names(const tokens& t, const definition& d) {
  std::set<std::string_view> out;
  for (std::size_t i = d.body_b + 1; i + 1 < d.body_e; ++i) {
    if (t[i].is_ident() && !control_keyword(t[i]) && t[i + 1].is("(")) out.insert(t[i].text);
  }
  return out;
}

std::vector<definition> callee_definitions(const tokens& t, const definition& root) {
  const auto defs = definitions_of(t, root.host);
  std::vector<definition> out;
  std::set<std::size_t> seen{root.body_b};
  std::vector<definition> todo{root};
  while (!todo.empty() && out.size() < 32) {
    const definition d = todo.back();
    todo.pop_back();
    for (std::size_t i = d.body_b + 1; i + 1 < d.body_e; ++i) {
      if (!t[i].is_ident() || control_keyword(t[i]) || !t[i + 1].is("(")) continue;
      const auto [lo, hi] = defs.equal_range(t[i].text);
      for (auto it = lo; it != hi && out.size() < 32; ++it) {
        const definition& c = it->second;
        if (c.body_b >= root.body_b && c.body_b <= root.body_e) continue;  // inside the tiling function
        if (!seen.insert(c.body_b).second) continue;
        out.push_back(c);
        todo.push_back(c);
      }
    }
  }
  std::sort(out.begin(), out.end(), [](const definition& a, const definition& b) { return a.body_b < b.body_b; });
  return out;
}

// A statement that chooses the tiling key: `key = LITERAL|IDENT;` for a variable that reaches
// SetTilingKey, or SetTilingKey(LITERAL|CONSTANT).
struct key_site {
  std::size_t stmt;
  std::size_t tok;
  std::string var;
};

// Steps 3 to 4c over one tiling function: its constants, the backward slice from its sinks, and
// the tunables of the sliced statements.
class synthesizer {
 public:
  synthesizer(const synthesis_input& input, const std::vector<tokens>& host_toks, const definition& def)
      : input_(input), host_toks_(host_toks), def_(def), t_(host_toks[def.host]),
        src_(input.host_files[def.host].content), bld_{input, {}, {}, {}, {}, {}},
        callees_(callee_definitions(host_toks[def.host], def)) {
    bld_.file_text.push_back(src_);
    bld_.file_path.push_back(input.host_files[def.host].path);
  }

  void run() {
    collect_all_constants();
    slice();
    auto sites = drop_placeholder_keys(drop_typed_keys(key_sites()));
    add_key_tunables(sites);
    for (std::size_t si = 0; si < infos_.size(); ++si) scan_statement(si);
    constant_tunables();
    note_foreign_constants();
  }

  tiling_template finish(const std::string& func_name) {
    // Function start: back to the start of the declaration (after the previous ; } or directive);
    // the region spans the helpers it calls too (note: the tiling function and its callees).
    auto decl_begin = [&](std::size_t decl_b) {
      while (decl_b > 0 && !t_[decl_b - 1].is(";") && !t_[decl_b - 1].is("}") && !t_[decl_b - 1].is("{") &&
             t_[decl_b - 1].kind != token_kind::directive) {
        --decl_b;
      }
      return decl_b;
    };
    std::size_t decl_b = decl_begin(def_.def_tok), body_e = def_.body_e;
    for (const definition& c : callees_) {
      decl_b = std::min(decl_b, decl_begin(c.def_tok));
      body_e = std::max(body_e, c.body_e);
    }
    tiling_template tmpl;
    for (std::size_t i = 0; i < bld_.file_text.size(); ++i) tmpl.files.push_back({bld_.file_path[i], bld_.file_text[i]});
    tmpl.function_name = func_name;
    tmpl.function_begin = t_[decl_b].offset;
    tmpl.function_end = t_[body_e].offset + 1;
    // Order tunables by their first occurrence in the host file (constants first, as written).
    std::stable_sort(bld_.tunables.begin(), bld_.tunables.end(), [](const tunable& a, const tunable& b) {
      return a.occurrences.front().offset < b.occurrences.front().offset;
    });
    tmpl.tunables = std::move(bld_.tunables);
    tmpl.notes = std::move(bld_.notes);
    if (tmpl.tunables.empty()) tmpl.notes.push_back("no tunable found in " + func_name + ": Stage I has nothing to mutate");
    return tmpl;
  }

 private:
  // 3. Constants: of the host file (outside the body), of the other host files, of the kernel.
  void collect_all_constants() {
    collect_constants(src_, t_, 0, def_.body_b, def_.body_e + 1, host_consts_);
    // A constant local to a callee's body is a statement of the slice, as in the tiling function.
    std::erase_if(host_consts_, [&](const constant_def& c) {
      return std::any_of(callees_.begin(), callees_.end(), [&](const definition& d) {
        return c.offset >= t_[d.body_b].offset && c.offset <= t_[d.body_e].offset;
      });
    });
    for (std::size_t fi = 0; fi < host_toks_.size(); ++fi) {
      if (fi != def_.host) collect_constants(input_.host_files[fi].content, host_toks_[fi], fi, 0, 0, other_consts_);
    }
    for (std::size_t k = 0; k < input_.kernel_files.size(); ++k) {
      kernel_toks_.push_back(lex(input_.kernel_files[k].content));
      collect_constants(input_.kernel_files[k].content, kernel_toks_.back(), k, 0, 0, kernel_consts_);
    }
    for (const auto& c : host_consts_) host_const_by_name_.emplace(c.name, &c);
    typed_by_key_ = !kernel_toks_.empty() && !kernel_has_dtype_macros(kernel_toks_);
  }

  // 4. Statements and the backward slice from the sinks.
  void slice() {
    stmts_ = split_statements(t_, def_.body_b + 1, def_.body_e);
    for (const definition& c : callees_) {
      auto more = split_statements(t_, c.body_b + 1, c.body_e);
      stmts_.insert(stmts_.end(), more.begin(), more.end());
    }
    if (!callees_.empty()) {
      std::string names;
      for (const definition& c : callees_) names += (names.empty() ? "" : ", ") + std::string(t_[c.def_tok].text);
      bld_.notes.push_back("the tiling function calls " + std::to_string(callees_.size()) +
                           " function(s) its file defines (" + names + "): their statements are sliced with it");
    }
    for (const auto& s : stmts_) infos_.push_back(s.kind == stmt_kind::simple ? analyse(t_, s) : stmt_info{});
    // Every analysed statement with its tokens: the file's own, then the other files' callees'.
    std::vector<std::pair<const tokens*, const stmt_info*>> all;
    for (const auto& in : infos_) all.emplace_back(&t_, &in);
    foreign_slice();
    for (const auto& [tok, in] : foreign_infos_) all.emplace_back(tok, &in);
    for (const auto& [tok, in] : all) {
      if (in->r == stmt_info::role::sink_call || in->r == stmt_info::role::member_write) {
        for (std::size_t i = in->rhs_b; i < in->rhs_e; ++i) {
          if ((*tok)[i].is_ident()) {
            tainted_.insert(std::string((*tok)[i].text));
            if (in->target == "SetTilingKey") key_vars_.insert(std::string((*tok)[i].text));
          }
        }
      }
    }
    close_over_assignments(all, tainted_);
    typed_key_constants(all);
  }

  // Adds to `names` every name assigned from them, until nothing changes (the backward slice).
  static void close_over_assignments(const std::vector<std::pair<const tokens*, const stmt_info*>>& all,
                                     std::set<std::string>& names) {
    for (bool changed = true; changed;) {
      changed = false;
      for (const auto& [tok, in] : all) {
        if (in->r != stmt_info::role::assign || !names.count(in->target)) continue;
        for (std::size_t i = in->rhs_b; i < in->rhs_e; ++i) {
          if ((*tok)[i].is_ident() && names.insert(std::string((*tok)[i].text)).second) changed = true;
        }
      }
    }
  }

  // The constants a data-type branch assigns to a part of the tiling key (`case ge::DT_FLOAT16:
  // dtypeKey = DTYPE_KEY_FP16;`, the key later `dtypeKey * 10 + modeKey`) when the kernel is typed
  // by its key (no DTYPE_ macro: `TILING_KEY_IS(12)` instantiates its class with half): each names
  // one type's kernel paths, so another value runs another type's code on this data, wherever the
  // constant is also written (a default before the branch, a comparison). Not tunables (4c).
  void typed_key_constants(const std::vector<std::pair<const tokens*, const stmt_info*>>& all) {
    if (!typed_by_key_) return;
    std::set<std::string> key_parts = key_vars_;
    close_over_assignments(all, key_parts);
    for (const auto& [tok, in] : all) {
      if (in->r != stmt_info::role::assign || !key_parts.count(in->target)) continue;
      for (std::size_t i = in->rhs_b; i < in->rhs_e; ++i) {
        const std::string name((*tok)[i].text);
        if ((*tok)[i].is_ident() && host_const_by_name_.count(name) && in_data_type_branch(*tok, i)) {
          typed_key_consts_.insert(name);
        }
      }
    }
  }

  // The functions of the package's other sources that the tiling function and its callees call,
  // transitively (a tiling class's methods defined in its header: `FillTilingData()` writing every
  // `set_<field>(member)`), matched by name. Their statements carry what reaches the tiling data
  // into the slice (a member a method of this file computes and the header's method writes); no
  // tunable is taken from them. Kernel sources (op_kernel/, kernel/) are not searched: their
  // same-named methods (a kernel class's Init) write no tiling data. At most 32 bodies.
  void foreign_slice() {
    std::vector<std::pair<const tokens*, std::multimap<std::string_view, definition>>> files;
    for (std::size_t fi = 0; fi < host_toks_.size(); ++fi) {
      if (fi != def_.host) files.emplace_back(&host_toks_[fi], definitions_of(host_toks_[fi], fi));
    }
    for (std::size_t k = 0; k < kernel_toks_.size(); ++k) {
      const std::string& path = input_.kernel_files[k].path;
      if (path.find("op_kernel/") != std::string::npos || path.find("/kernel/") != std::string::npos) continue;
      files.emplace_back(&kernel_toks_[k], definitions_of(kernel_toks_[k], host_toks_.size() + k));
    }
    std::set<std::string_view> names = called_names(t_, def_);
    for (const definition& c : callees_) {
      const auto more = called_names(t_, c);
      names.insert(more.begin(), more.end());
    }
    std::vector<std::string_view> todo(names.begin(), names.end());
    std::set<std::pair<std::size_t, std::size_t>> seen;
    std::vector<std::string> found;
    while (!todo.empty() && found.size() < 32) {
      const std::string_view name = todo.back();
      todo.pop_back();
      for (const auto& [tok, defs] : files) {
        const auto [lo, hi] = defs.equal_range(name);
        for (auto it = lo; it != hi && found.size() < 32; ++it) {
          const definition& d = it->second;
          if (!seen.insert({d.host, d.body_b}).second) continue;
          found.push_back(std::string(name));
          for (const auto& s : split_statements(*tok, d.body_b + 1, d.body_e)) {
            if (s.kind == stmt_kind::simple) foreign_infos_.emplace_back(tok, analyse(*tok, s));
          }
          for (std::string_view n : called_names(*tok, d)) {
            if (names.insert(n).second) todo.push_back(n);
          }
        }
      }
    }
    if (!found.empty()) {
      std::string list;
      for (const auto& n : found) list += (list.empty() ? "" : ", ") + n;
      bld_.notes.push_back("the tiling function's code calls " + std::to_string(found.size()) +
                           " function(s) of other sources (" + list +
                           "): sliced for what reaches the tiling data; no tunable is taken from them");
    }
  }

  bool relevant(const stmt_info& in) const {
    return in.r == stmt_info::role::sink_call || in.r == stmt_info::role::member_write ||
           (in.r == stmt_info::role::assign && tainted_.count(in.target));
  }
  bool dtype_fact(const stmt_info& in) const {
    for (std::size_t i = in.rhs_b; i < in.rhs_e; ++i) {
      if (t_[i].is_ident() && (t_[i].text.substr(0, 3) == "DT_" || t_[i].is("GetDataType"))) return true;
    }
    return false;
  }

  void add_literal(std::string base, tunable_kind kind, domain dom, std::vector<std::pair<std::size_t, std::int64_t>> occ,
                   std::int64_t value, const std::string& ctx) {
    tunable tu;
    tu.name = bld_.unique_name(std::move(base));
    tu.kind = kind;
    tu.value = value;
    tu.dom = std::move(dom);
    for (auto [ti, delta] : occ) {
      tu.occurrences.push_back({0, t_[ti].offset, t_[ti].length, std::string(t_[ti].text), delta});
      consumed_.insert(ti);
    }
    tu.origin = "literal " + std::string(t_[occ.front().first].text) + " (" + bld_.where(0, t_[occ.front().first].offset) + ")";
    tu.context = ctx;
    bld_.tunables.push_back(std::move(tu));
  }

  // 4a. Tiling-key sites: `key = LITERAL|IDENT;` for variables that reach SetTilingKey, and a
  // literal or constant written directly in SetTilingKey(...).
  std::vector<key_site> key_sites() const {
    std::vector<key_site> sites;
    for (std::size_t si = 0; si < infos_.size(); ++si) {
      const auto& in = infos_[si];
      if (in.r == stmt_info::role::assign && key_vars_.count(in.target) && in.rhs_e == in.rhs_b + 1 &&
          (t_[in.rhs_b].kind == token_kind::number || t_[in.rhs_b].is_ident())) {
        sites.push_back({si, in.rhs_b, in.target});
      }
      if (in.r == stmt_info::role::sink_call && in.target == "SetTilingKey" && in.rhs_e == in.rhs_b + 1 &&
          (t_[in.rhs_b].kind == token_kind::number || host_const_by_name_.count(std::string(t_[in.rhs_b].text)))) {
        sites.push_back({si, in.rhs_b, "tiling"});
      }
    }
    return sites;
  }

  // A key chosen in a branch of the data type (`if (dt == ge::DT_FLOAT16) { key = 1; }`, a `case
  // ge::DT_INT32:`) of a kernel without DTYPE_ macros names that type's kernel path (the key is how
  // the kernel learns the type): another value runs another type's code on this data. Not a
  // choice. (With DTYPE_X the paths are generic over the input type, e.g. compute in the input
  // type or in float32, and the key stays a choice.)
  // The initial value of a key variable the type branches assign is the default type's key.
  std::vector<key_site> drop_typed_keys(std::vector<key_site> sites) {
    if (!typed_by_key_) return sites;
    std::set<std::string> typed_vars;
    std::vector<bool> typed(sites.size());
    for (std::size_t i = 0; i < sites.size(); ++i) {
      typed[i] = in_data_type_branch(t_, sites[i].tok);
      if (typed[i]) typed_vars.insert(sites[i].var);
    }
    std::vector<key_site> kept;
    for (std::size_t i = 0; i < sites.size(); ++i) {
      const auto& k = sites[i];
      if (typed[i] || (infos_[k.stmt].decl && typed_vars.count(k.var))) {
        bld_.notes.push_back("tiling key '" + std::string(t_[k.tok].text) + "' at " + bld_.where(0, t_[k.tok].offset) +
                             " is chosen by the data type and the kernel has no DTYPE_ macro: not a tunable");
        continue;
      }
      kept.push_back(k);
    }
    return kept;
  }

  // A zero initial value of a key variable that is assigned again is a placeholder, not a choice.
  std::vector<key_site> drop_placeholder_keys(std::vector<key_site> sites) {
    std::map<std::string, int> sites_per_var;
    for (const auto& k : sites) ++sites_per_var[k.var];
    std::vector<key_site> kept;
    for (const auto& k : sites) {
      const bool zero_init = infos_[k.stmt].decl && t_[k.tok].kind == token_kind::number &&
                             parse_integer_literal(t_[k.tok].text) == 0;
      if (zero_init && sites_per_var[k.var] > 1) {
        bld_.notes.push_back("key variable '" + k.var + "' initialised to 0 at " + bld_.where(0, t_[k.tok].offset) +
                             " and assigned again: the initial value is not a tunable");
        continue;
      }
      kept.push_back(k);
    }
    return kept;
  }

  // A key constant the kernel defines as well (`constexpr int KEY_FP16 = 1;` in both files, the
  // kernel testing TILING_KEY_IS(KEY_FP16)) names a kernel path: renumbering it in both files
  // selects nothing new and can make two paths share a number. Its sites choose among the
  // spellings instead, like any other named key.
  bool kernel_key(const std::string& name) const {
    const auto it = host_const_by_name_.find(name);
    if (it == host_const_by_name_.end()) return false;
    for (const auto& kc : kernel_consts_) {
      if (kc.name == name && kc.value == it->second->value) return true;
    }
    return false;
  }

  // Each key site a tunable: a literal among the key values, a host constant (the constant itself
  // becomes the tunable, 4c), or a choice among the spellings.
  void add_key_tunables(const std::vector<key_site>& sites) {
    for (const auto& k : sites) {
      const std::string txt(t_[k.tok].text);
      if (t_[k.tok].kind == token_kind::number) {
        if (auto v = parse_integer_literal(txt)) key_values_.push_back(*v);
      } else if (auto it = host_const_by_name_.find(txt); it != host_const_by_name_.end() && !kernel_key(txt)) {
        key_values_.push_back(it->second->value);
      } else if (std::find(key_spellings_.begin(), key_spellings_.end(), txt) == key_spellings_.end()) {
        key_spellings_.push_back(txt);
      }
    }
    for (const auto& k : sites) {
      const std::string txt(t_[k.tok].text);
      const std::string ctx = statement_text(src_, t_, stmts_[k.stmt].b, stmts_[k.stmt].e);
      std::string lower_var = k.var;
      for (char& ch : lower_var) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      const std::string key_name = lower_var.find("key") != std::string::npos ? k.var : k.var + "_key";
      if (t_[k.tok].kind == token_kind::number) {
        add_literal(key_name, tunable_kind::key, choices_domain(key_values_), {{k.tok, 0}}, *parse_integer_literal(txt), ctx);
      } else if (host_const_by_name_.count(txt) && !kernel_key(txt)) {
        key_constant_names_.insert(txt);  // the constant itself becomes the tunable (4c)
      } else {
        std::vector<std::int64_t> idx;
        for (std::size_t i = 0; i < key_spellings_.size(); ++i) idx.push_back(static_cast<std::int64_t>(i));
        const auto pos = std::find(key_spellings_.begin(), key_spellings_.end(), txt) - key_spellings_.begin();
        add_literal(key_name, tunable_kind::key, choices_domain(idx), {{k.tok, 0}}, pos, ctx);
        bld_.tunables.back().spellings = key_spellings_;
        bld_.tunables.back().origin = "key choice " + txt + " (" + bld_.where(0, t_[k.tok].offset) + ")";
      }
    }
  }

  // 4b. Literals, idioms, constants and core counts of one relevant statement.
  void scan_statement(std::size_t si) {
    const auto& in = infos_[si];
    if (!relevant(in) || dtype_fact(in)) return;
    const std::string ctx = statement_text(src_, t_, stmts_[si].b, stmts_[si].e);
    const std::size_t b = in.rhs_b, e = in.rhs_e;
    for (std::size_t j = b; j < e; ++j) {
      if (consumed_.count(j)) continue;
      const token& k = t_[j];
      if (k.is_ident()) {
        // Core counts: obj.GetCoreNumAiv() / obj->GetCoreNum() / info->coreNum.
        if ((k.is("GetCoreNumAiv") || k.is("GetCoreNum") || k.is("GetCoreNumAic") || core_member_name(k.text)) &&
            j >= b + 2 && (t_[j - 1].is(".") || t_[j - 1].is("->")) && t_[j - 2].is_ident()) {
          core_count_at(in, ctx, j);
        } else {
          constant_use_at(in, ctx, j);
        }
        continue;
      }
      if (k.kind != token_kind::number) continue;
      if (in.r == stmt_info::role::sink_call) {
        if (const auto* params = matmul_call_params(in.target)) {
          matmul_argument_at(*params, in, ctx, j);
          continue;
        }
      }
      literal_at(si, ctx, j);
    }
  }

  // A core count expression at token j (its method or member name): one tunable per expression
  // text, with an occurrence at each place it is written.
  void core_count_at(const stmt_info& in, const std::string& ctx, std::size_t j) {
    const token& k = t_[j];
    const std::size_t e = in.rhs_e;
    std::size_t end = j + 1;
    const bool call = end + 1 < e + 1 && end < t_.size() && t_[end].is("(");
    if (call) {
      if (end + 1 >= t_.size() || !t_[end + 1].is(")")) return;
      end += 2;
    } else if (!core_member_name(k.text)) {
      return;
    }
    const std::size_t eb = j - 2;
    const std::string expr = statement_text(src_, t_, eb, end);
    const std::size_t len = t_[end - 1].offset + t_[end - 1].length - t_[eb].offset;
    occurrence oc{0, t_[eb].offset, len, src_.substr(t_[eb].offset, len), 0};
    auto it = core_tunable_.find(expr);
    if (it == core_tunable_.end()) {
      tunable tu;
      tu.name = bld_.unique_name("core_count");
      tu.kind = tunable_kind::block_dim;
      tu.value = 0;
      tu.dom.kind = domain_kind::cores;
      tu.dom.lo = 1;
      tu.origin = "core count " + expr + " (" + bld_.where(0, t_[eb].offset) + ")";
      tu.context = ctx;
      bld_.tunables.push_back(std::move(tu));
      it = core_tunable_.emplace(expr, bld_.tunables.size() - 1).first;
    }
    bld_.tunables[it->second].occurrences.push_back(oc);
    for (std::size_t q = eb; q < end; ++q) consumed_.insert(q);
  }

  // A host constant used by the statement (not a member named like one): a tunable in 4c.
  void constant_use_at(const stmt_info& in, const std::string& ctx, std::size_t j) {
    const std::string name(t_[j].text);
    const bool key_call = in.r == stmt_info::role::sink_call && in.target == "SetTilingKey";
    const bool key_assign = in.r == stmt_info::role::assign && key_vars_.count(in.target) > 0;
    if ((key_call || key_assign) && typed_by_key_ && in_data_type_branch(t_, j)) return;  // the data type's key (4a)
    if (index_argument(t_, in.rhs_b, j)) return;  // which input or attribute is read, not a choice
    if (host_const_by_name_.count(name) && !(j > in.rhs_b && (t_[j - 1].is(".") || t_[j - 1].is("->")))) {
      if (used_constant_names_.insert(name).second) used_constants_.push_back({ctx, host_const_by_name_[name]});
      if (key_call) key_constant_names_.insert(name);
    }
  }

  // A Matmul tiling call's literal argument: the parameter it is (by top-level commas before it),
  // with that parameter's domain; -1 ("let GetTiling choose") is no tunable.
  void matmul_argument_at(const std::vector<matmul_param>& params, const stmt_info& in, const std::string& ctx,
                          std::size_t j) {
    const std::size_t b = in.rhs_b, e = in.rhs_e;
    std::size_t arg = 0;
    int depth = 0;
    for (std::size_t q = b; q < j; ++q) {
      if (t_[q].is("(") || t_[q].is("[") || t_[q].is("{")) ++depth;
      if (t_[q].is(")") || t_[q].is("]") || t_[q].is("}")) --depth;
      if (depth == 0 && t_[q].is(",")) ++arg;
    }
    const auto v = parse_integer_literal(t_[j].text);
    const bool negative = j > b && t_[j - 1].is("-");
    const bool alone = (j == b || t_[j - 1].is(",") || negative) && (j + 1 == e || t_[j + 1].is(","));
    if (!v || negative || !alone || arg >= params.size() || *v <= 0) return;
    const matmul_param& mp = params[arg];
    domain d;
    d.kind = mp.dom;
    d.lo = mp.lo;
    d.hi = mp.hi;
    if (d.kind == domain_kind::log_range || d.kind == domain_kind::pow2) {
      d.lo = std::min(d.lo, *v);
      d.hi = std::max(d.hi, *v);
    }
    add_literal(mp.name, mp.kind, d, {{j, 0}}, *v, ctx);
  }

  // A literal of statement si at token j: an alignment idiom, a block dim, a written field, a
  // cap, a size or a count.
  void literal_at(std::size_t si, const std::string& ctx, std::size_t j) {
    const auto& in = infos_[si];
    const std::size_t b = in.rhs_b, e = in.rhs_e;
    const bool whole = e == b + 1;
    const token& k = t_[j];
    // Literals of a key variable's other assignments (key = a ? 1 : 2) are not sizes.
    if (in.r == stmt_info::role::assign && key_vars_.count(in.target)) return;
    const auto v = parse_integer_literal(k.text);
    if (!v) return;
    if (opaque_context(t_, b, j)) return;
    if ((j > b && is_compare(t_[j - 1])) || (j + 1 < e && is_compare(t_[j + 1]))) return;
    const std::string target = in.target;
    if (alignment_idiom_at(in, ctx, j, *v)) return;
    if (whole && in.r == stmt_info::role::sink_call && in.target == "SetBlockDim") {
      domain d;
      d.kind = domain_kind::range;
      d.lo = 1;
      d.hi = 0;
      add_literal("block_dim", tunable_kind::block_dim, d, {{j, 0}}, *v, ctx);
      return;
    }
    if (whole && (in.r == stmt_info::role::sink_call || in.r == stmt_info::role::member_write)) {
      const std::string field = in.r == stmt_info::role::sink_call ? target.substr(4) : target;
      if (*v == 0 || *v == 1) {
        add_literal(field + "_flag", tunable_kind::flag, choices_domain({0, 1}), {{j, 0}}, *v, ctx);
      } else {
        add_literal(field, *v > 16 ? tunable_kind::size : tunable_kind::count,
                    *v > 16 ? size_domain(*v) : count_domain(*v), {{j, 0}}, *v, ctx);
      }
      return;
    }
    if (*v == 0 || *v == 1) return;
    // Cap idiom: if (x > L) { x = L; }: the condition's L is the same tunable.
    std::vector<std::pair<std::size_t, std::int64_t>> occ = {{j, 0}};
    if (whole && in.r == stmt_info::role::assign && si > 0 && stmts_[si - 1].kind == stmt_kind::condition) {
      const statement& c = stmts_[si - 1];
      if (c.e == c.b + 3 && t_[c.b].text == target && (t_[c.b + 1].is(">") || t_[c.b + 1].is(">=")) &&
          t_[c.b + 2].text == k.text) {
        occ.push_back({c.b + 2, 0});
        add_literal(target + "_cap", *v > 16 ? tunable_kind::size : tunable_kind::count,
                    *v > 16 ? size_domain(*v) : count_domain(*v), occ, *v, ctx);
        return;
      }
    }
    const bool divisor = j > b && t_[j - 1].is("/");
    if (*v > 16 && !divisor) {
      add_literal(target + "_size", tunable_kind::size, size_domain(*v), occ, *v, ctx);
    } else {
      add_literal(target + "_count", tunable_kind::count, count_domain(*v), occ, *v, ctx);
    }
  }

  // Round-up idioms: (x + A) / L * L with A = L - 1, and (x + L - 1) / L * L; round-down: x / L * L.
  // The literal v at token j starts one: its alignment tunable is added.
  bool alignment_idiom_at(const stmt_info& in, const std::string& ctx, std::size_t j, std::int64_t v) {
    const std::size_t b = in.rhs_b, e = in.rhs_e;
    const token& k = t_[j];
    const std::string& target = in.target;
    if (j + 5 < e && t_[j + 1].is(")") && t_[j + 2].is("/") && t_[j + 4].is("*") &&
        t_[j + 3].text == t_[j + 5].text && j > b && t_[j - 1].is("+")) {
      const auto l = parse_integer_literal(t_[j + 3].text);
      if (l && *l == v + 1) {
        add_literal(target + "_align", tunable_kind::alignment, alignment_domain(*l), {{j + 3, 0}, {j + 5, 0}, {j, -1}}, *l, ctx);
        return true;
      }
    }
    if (j + 7 < e && t_[j + 1].is("-") && t_[j + 2].is("1") && t_[j + 3].is(")") && t_[j + 4].is("/") &&
        t_[j + 6].is("*") && t_[j + 5].text == k.text && t_[j + 7].text == k.text) {
      add_literal(target + "_align", tunable_kind::alignment, alignment_domain(v), {{j, 0}, {j + 5, 0}, {j + 7, 0}}, v, ctx);
      return true;
    }
    if (j > b && t_[j - 1].is("/") && j + 2 < e && t_[j + 1].is("*") && t_[j + 2].text == k.text) {
      add_literal(target + "_align", tunable_kind::alignment, alignment_domain(v), {{j, 0}, {j + 2, 0}}, v, ctx);
      return true;
    }
    return false;
  }

  // 4c. Constants used by the slice: one tunable each, at its definition, linked to a kernel
  // constant of the same name and value.
  void constant_tunables() {
    for (const auto& [ctx, c] : used_constants_) {
      if (typed_key_consts_.count(c->name)) {
        bld_.notes.push_back("constant " + c->name + " (" + bld_.where(0, c->offset) +
                             ") is a data type's part of the tiling key (a branch of the data type assigns it; the "
                             "kernel's key paths are typed): not a tunable");
        continue;
      }
      tunable tu;
      tu.name = bld_.unique_name(c->name);
      if (key_constant_names_.count(c->name)) {
        tu.kind = tunable_kind::key;
        std::vector<std::int64_t> kv = key_values_;
        kv.push_back(c->value);
        tu.dom = choices_domain(kv);
      } else {
        auto [kind, dom] = classify_constant(c->name, c->value);
        tu.kind = kind;
        tu.dom = dom;
      }
      tu.value = c->value;
      tu.occurrences.push_back({0, c->offset, c->length, c->text, 0});
      tu.origin = std::string(c->macro ? "#define " : "constexpr ") + c->name + " (" + bld_.where(0, c->offset) + ")";
      tu.context = ctx;
      link_kernel_constant(tu, *c);
      if (tu.kernel_linked && tu.kind == tunable_kind::count) tu.dom.lo = 1;  // the kernel follows
      bld_.tunables.push_back(std::move(tu));
    }
  }

  // The kernel's constant of the same name and value moves with the host's (an occurrence in the
  // kernel file); one of another value is a note.
  void link_kernel_constant(tunable& tu, const constant_def& c) {
    for (const auto& kc : kernel_consts_) {
      if (kc.name != c.name) continue;
      if (kc.value != c.value) {
        bld_.notes.push_back("constant " + c.name + " is " + std::to_string(c.value) + " in " + bld_.file_path[0] +
                             " but " + std::to_string(kc.value) + " in " + input_.kernel_files[kc.file].path +
                             ": not linked");
        continue;
      }
      std::size_t fidx = 0;
      for (std::size_t q = 1; q < bld_.file_path.size(); ++q) {
        if (bld_.file_path[q] == input_.kernel_files[kc.file].path) fidx = q;
      }
      if (fidx == 0) {
        bld_.file_text.push_back(input_.kernel_files[kc.file].content);
        bld_.file_path.push_back(input_.kernel_files[kc.file].path);
        fidx = bld_.file_text.size() - 1;
      }
      tu.occurrences.push_back({fidx, kc.offset, kc.length, kc.text, 0});
      tu.kernel_linked = true;
      tu.origin += ", linked to " + bld_.where(fidx, kc.offset);
    }
  }

  // A constant of another host file the slice uses is not a tunable: a note says so.
  void note_foreign_constants() {
    for (const auto& c : other_consts_) {
      if (host_const_by_name_.count(c.name)) continue;
      for (std::size_t si = 0; si < infos_.size(); ++si) {
        if (!relevant(infos_[si])) continue;
        bool uses = false;
        for (std::size_t j = infos_[si].rhs_b; j < infos_[si].rhs_e; ++j) uses |= t_[j].is(c.name);
        if (uses) {
          bld_.notes.push_back("constant " + c.name + " used by the tiling function is defined in " +
                               input_.host_files[c.file].path + ", not in the tiling file: not a tunable");
          break;
        }
      }
    }
  }

  const synthesis_input& input_;
  const std::vector<tokens>& host_toks_;
  const definition def_;
  const tokens& t_;
  const std::string& src_;
  builder bld_;
  std::vector<definition> callees_;  // helpers and tiling-class methods it calls, in file order
  std::vector<constant_def> host_consts_, other_consts_, kernel_consts_;
  std::vector<tokens> kernel_toks_;
  std::map<std::string, const constant_def*> host_const_by_name_;
  bool typed_by_key_ = false;
  std::vector<statement> stmts_;
  std::vector<stmt_info> infos_;
  std::vector<std::pair<const tokens*, stmt_info>> foreign_infos_;  // other sources' callees (foreign_slice)
  std::set<std::string> tainted_, key_vars_;
  std::set<std::string> typed_key_consts_;  // typed_key_constants()
  std::set<std::size_t> consumed_;  // token indexes already part of a tunable
  std::vector<std::pair<std::string, const constant_def*>> used_constants_;  // in order of use
  std::set<std::string> used_constant_names_;
  std::set<std::string> key_constant_names_;
  std::vector<std::int64_t> key_values_;
  std::vector<std::string> key_spellings_;
  std::map<std::string, std::size_t> core_tunable_;  // expression text -> tunable index
};

}  // namespace

synthesis_result synthesize(const synthesis_input& input) {
  synthesis_result result;
  // 1. Lex every host source and find the tiling function's name.
  std::vector<tokens> host_toks;
  for (const auto& f : input.host_files) host_toks.push_back(lex(f.content));
  // 2. Find its definition: the first registered name the host sources define.
  const std::vector<std::string> names = tiling_function_names(host_toks);
  std::string func_name = names.front();
  std::optional<definition> def;
  for (const auto& n : names) {
    if ((def = find_definition(host_toks, n))) {
      func_name = n;
      break;
    }
  }
  if (!def) {
    std::string tried;
    for (const auto& n : names) tried += (tried.empty() ? "" : "' or '") + n;
    std::string files;
    for (const auto& f : input.host_files) files += (files.empty() ? "" : ", ") + f.path;
    result.error = synthesis_error{
        "no definition of the tiling function '" + tried + "' found in the host sources [" +
        files + "]: pass the op_host file that defines the function given to "
        "AICore().SetTiling(...) or IMPL_OP_OPTILING(...).Tiling(...)"};
    return result;
  }
  // 3-4. Its constants, slice and tunables.
  synthesizer syn(input, host_toks, *def);
  syn.run();
  result.tmpl = syn.finish(func_name);
  return result;
}

}  // namespace aopt::stage1
