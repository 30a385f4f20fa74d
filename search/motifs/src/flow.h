// Internal: light data-flow helpers over one function of a parsed file, shared by the tiling-side
// motifs (multicore_split, tile_size, tail_balance) and counter_mode_mask. Everything works on
// the parse's byte ranges and on whitespace-free spellings, so formatting does not matter.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "motifs_impl.h"

namespace aopt::motifs::detail {

// Innermost function or method whose range holds `pos`; -1 when none.
int function_at(const source_file& f, std::size_t pos);

// One definition of a name: `T name = rhs` (decl) or `lhs = rhs` / `lhs op= rhs` (assignment).
struct flow_edge {
  std::string lhs;     // whitespace-free: "coreNum", "tiling.x", "td->n"
  range rhs;           // the right-hand side's bytes
  range stmt;          // the whole statement with its ';' (declarations: the declaration)
  int node = -1;       // the var_decl or binary_op node
  bool decl = false;
  bool compound = false;  // "+=", "-=", ...
};
// Definitions inside `scope` (a function's range, or the whole file).
std::vector<flow_edge> flow_edges(const source_file& f, range scope);

// Names (edge left-hand sides) whose value depends on one of `seeds`, seeds included.
std::set<std::string> derived_from(const source_file& f, const std::vector<flow_edge>& edges, std::set<std::string> seeds);

// Whether one of `names` reaches the tiling data inside `scope`: an argument of a `set_*` call
// (TILING_DATA_FIELD_DEF setters) or the right-hand side of an assignment to a member
// (`td.field = ...`, `td->field = ...`, plain tiling structs).
bool reaches_tiling(const source_file& f, range scope, const std::vector<flow_edge>& edges, const std::set<std::string>& names);

// A query of the UB size in a host function: `GetCoreMemSize(CoreMemType::UB, v)` with the
// definitions of that function (tile_size, and vectorize_scalar_loop's UB reservation).
struct ub_query {
  call_info call;      // GetCoreMemSize(CoreMemType::UB, v)
  std::string var;     // v
  int fn = -1;
  std::vector<flow_edge> edges;
};
std::vector<ub_query> ub_queries(const source_file& f);

// `<platform>.GetCoreNumAiv()` with the PlatformAscendC variable of function `fn` declared before
// `pos`, else one built from its TilingContext parameter; "" when neither exists.
std::string core_count_call(const source_file& f, int fn, std::size_t pos);

// Whitespace-free helpers on spellings.
std::string strip_parens(std::string s);                   // "((a))" -> "a" (only when the parens wrap it all)
std::string strip_cast(std::string s);                     // "static_cast<T>(a)" -> "a"; "(T)a" untouched
bool is_identifier(const std::string& s);
bool is_int_literal(const std::string& s, long long* value = nullptr);  // 8, 8U, 8u, 8UL
struct ternary {
  std::string cond, yes, no;
};
std::optional<ternary> split_ternary(const std::string& s);  // top-level "c?a:b"
// Top-level binary split at the first occurrence of `op` ("<", "==", "%", ...) outside brackets,
// rejecting longer operators that start with the same characters ("<" vs "<<", "<="). `last`: the
// last occurrence instead (left-associative chains: a / b / c splits as (a / b) / c).
std::optional<std::pair<std::string, std::string>> split_binary(const std::string& s, const std::string& op, bool last = false);

// First token `token` (an identifier or a literal, matched whole) inside `r`, as a range.
std::optional<range> find_token(const source_file& f, range r, const std::string& token);

// Deletes a statement together with a trailing `// comment` on its line, and the whole line when
// nothing else is on it.
text_edit delete_statement_and_comment(const source_file& f, range stmt);

}  // namespace aopt::motifs::detail
