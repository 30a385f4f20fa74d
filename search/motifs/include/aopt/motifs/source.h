// The parse layer of the motifs: AscendC kernel and tiling sources parsed by libclang 14 (a real
// C++ front end over our sim/include headers), flattened into a tree of nodes with exact byte
// ranges, plus the queries motifs need: calls by AscendC API name (with callee qualifier,
// template arguments and argument ranges), loops, statements, declarations and integer
// constants (constexpr variables and macros). Robust to formatting and naming because every
// query works on the parse, and every range is a range of the original bytes.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aopt/motifs/edit.h"

namespace aopt::motifs {

enum class node_kind {
  other,
  translation_unit,
  namespace_decl,
  class_decl,        // class, struct, class template
  function,          // free function, function template
  method,            // member function, constructor
  field_decl,
  var_decl,
  parm_decl,
  macro_definition,  // "#define NAME ..." (range: NAME through the last token)
  compound,          // { ... }
  decl_stmt,
  for_loop,
  while_loop,
  do_loop,
  if_stmt,
  return_stmt,
  call,
  member_ref,        // a.b, this->b, or an implicit member
  decl_ref,          // a named variable, function or constant
  integer_literal,
  floating_literal,
  binary_op,
  unary_op,
  conditional_op,
  paren_expr,
  array_subscript,
  init_list,
  cast_expr,
  unexposed_expr,
};

struct node {
  node_kind kind = node_kind::other;
  int clang_kind = 0;       // CXCursorKind, for anything node_kind does not name
  std::string name;         // cursor spelling: declared name, referenced name, ...
  std::string type;         // type spelling of declarations and references ("AscendC::LocalTensor<T>")
  range r;                  // bytes of the node in the file (macro uses: the expansion site)
  int parent = -1;
  std::vector<int> children;
};

// One call expression, described from its text: `AscendC::DataCopy(dst, src, n)`,
// `pipe.InitBuffer(q, BUFFER_NUM, bytes)`, `PipeBarrier<PIPE_V>()`, `q.AllocTensor<T>()`.
struct call_info {
  int node = -1;
  range r;                                // whole call expression
  std::string callee;                     // last name: "DataCopy", "InitBuffer", "PipeBarrier"
  std::string qualifier;                  // text before it, whitespace removed: "AscendC::", "pipe.", ""
  std::vector<std::string> template_args; // "PIPE_V"; "T"; whitespace-trimmed
  std::vector<range> args;                // each argument, trimmed of whitespace
  range statement;                        // the expression statement with its ';' (empty if not a statement)
  // The receiver of a member call ("pipe", "inQueueX", "this->q_"), empty for free calls.
  std::string object() const;
};

class source_file {
 public:
  source_file(std::string path, std::string text, std::vector<node> nodes, std::vector<std::string> diagnostics);

  const std::string& path() const { return path_; }
  const std::string& text() const { return text_; }
  const std::vector<node>& nodes() const { return nodes_; }
  const node& at(int i) const { return nodes_.at(static_cast<std::size_t>(i)); }
  // Errors clang reported (tolerated: the parse recovers; motifs still see the tree).
  const std::vector<std::string>& diagnostics() const { return diagnostics_; }

  std::string_view text_of(range r) const;
  std::string_view text_of(int n) const { return text_of(at(n).r); }

  // All nodes of a kind, in source order.
  std::vector<int> find(node_kind k) const;
  // Calls, in source order; by callee name when `callee` is not empty.
  std::vector<call_info> calls(std::string_view callee = {}) const;
  std::optional<call_info> call_at(int call_node) const;
  // Innermost ancestor of `n` of kind k, or -1.
  int enclosing(int n, node_kind k) const;
  bool is_ancestor(int ancestor, int n) const;
  // Loop body (the compound statement child of a for/while/do loop), or -1.
  int loop_body(int loop) const;
  // Direct statement children of a compound statement, in order.
  std::vector<int> statements(int compound) const;
  // The statement of `n`: walks up to the child of the nearest compound statement.
  int statement_of(int n) const;
  // A statement's bytes including its trailing ';' when the node's range stops before it.
  range statement_range(int stmt) const;
  // The statement's bytes widened to whole lines when nothing else shares those lines
  // (leading indentation and the newline included): what to delete to remove it cleanly.
  range removal_range(range stmt) const;
  // Leading whitespace of the line that holds byte `pos`.
  std::string indent_at(std::size_t pos) const;
  // Position just after the line holding `pos` (after its '\n'), or the file size.
  std::size_t line_end(std::size_t pos) const;
  // Whether identifier `name` occurs as a whole token in `r` (comments and strings skipped).
  bool mentions(range r, std::string_view name) const;
  // Identifiers in `r`, in order (comments and strings skipped).
  std::vector<std::string> identifiers(range r) const;

  // An integer constant of the file: a variable with an integer-literal initializer
  // (constexpr / const / plain) or an object-like macro whose body is an integer literal.
  struct constant {
    std::string name;
    long long value = 0;
    range literal;     // the literal's bytes (what to edit to change the value)
    int decl = -1;     // the var_decl or macro_definition node
  };
  std::vector<constant> integer_constants() const;
  std::optional<constant> integer_constant(std::string_view name) const;

  // "AscendC::" when the file calls the AscendC API qualified, "" when it relies on
  // `using namespace AscendC`: the spelling inserted calls should use.
  std::string api_prefix() const;

 private:
  std::string path_;
  std::string text_;
  std::vector<node> nodes_;
  std::vector<std::string> diagnostics_;
};

struct parse_options {
  // The emulator's headers (kernel_operator.h, register/..., tiling/...). Default: the
  // sim/include of the source tree this library was built from.
  std::string sim_include_dir;
  std::vector<std::string> extra_args;  // appended to the clang command line
  bool use_pch = true;                  // precompile the AscendC headers once per parser
  // Parses kept for reuse, by file set and path (least recently used dropped first): the engine
  // matches every motif, for every retrieved tuple, on the same candidate, and a libclang parse
  // of a kernel costs 50-500 ms. 0 turns the memo off.
  std::size_t memo_entries = 64;
};

struct parse_stats {
  std::size_t parses = 0;     // libclang runs
  std::size_t memo_hits = 0;  // answered from the memo
};

// Parses files of a file set with libclang. All files of the set are given to clang as unsaved
// files under a virtual root, so candidates never touch the disk; the only files written are
// the precompiled headers of the emulator (in a private temporary directory removed by the
// destructor). Kernel files (including "kernel_operator.h" or using __aicore__) get the
// defines of a real kernel build (DTYPE_* as float, __CCE_AICORE__=220) and the tiling header
// of op_host/ force-included; host files get the host headers. Not thread-safe.
class parser {
 public:
  explicit parser(parse_options opts = {});
  ~parser();
  parser(const parser&) = delete;
  parser& operator=(const parser&) = delete;

  // Throws aopt::error(not_found) if `path` is not in `files`, aopt::error(parse_error) when
  // libclang cannot parse at all (errors it recovers from land in diagnostics()).
  std::shared_ptr<const source_file> parse(const file_set& files, const std::string& path);

  static bool is_kernel_source(std::string_view text);
  static bool is_host_source(std::string_view text);

  parse_stats stats() const;
  // Unique among the parsers of this process, never reused: keys memos of what was derived
  // from this parser's parses (motif sites, motif.cpp).
  std::uint64_t instance_id() const;

 private:
  std::shared_ptr<const source_file> parse_uncached(const file_set& files, const std::string& path);
  struct impl;
  std::unique_ptr<impl> impl_;
};

// The file set of one operator with lazily parsed files (each parsed at most once).
class source_set {
 public:
  source_set(file_set files, parser& p) : files_(std::move(files)), parser_(&p) {}
  const file_set& files() const { return files_; }
  std::shared_ptr<const source_file> get(const std::string& path) const;
  // C++ sources and headers (.cpp .cc .h .hpp) whose text contains every needle, in path order.
  std::vector<std::string> paths_with(std::initializer_list<std::string_view> needles) const;
  std::uint64_t parser_id() const { return parser_->instance_id(); }

 private:
  file_set files_;
  parser* parser_;
  mutable std::map<std::string, std::shared_ptr<const source_file>> parsed_;
};

}  // namespace aopt::motifs
