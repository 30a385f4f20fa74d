// Code edits in a model's answer: SEARCH/REPLACE blocks against named files and whole-file
// rewrites of small files, parsed, applied to a file map and checked. Anything wrong with an
// answer (a SEARCH text that is missing or ambiguous, an unknown file, a truncated block, code
// that no longer parses, no edit at all) is an `edit_failure` whose reason says exactly which;
// nothing here throws on model output. See docs/llm-engine.md "Edits".
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aopt/search/engine.h"  // search::file_map

namespace aopt::llm {

// Why an answer (or one proposal in it) gave no usable files. The names are the keys of the
// engine's failure counters.
enum class edit_error : std::uint8_t {
  no_edit,          // neither a SEARCH/REPLACE block nor a whole-file rewrite
  no_path,          // a block with no file path before it (and more than one candidate file)
  unknown_file,     // the path is not one of the files the model was shown
  not_found,        // the SEARCH text occurs nowhere, not even line by line ignoring indentation
  ambiguous,        // the SEARCH text occurs more than once
  truncated,        // a block or code fence that never ends (a cut-off answer)
  empty_search,     // a SEARCH section with no text
  too_large,        // a whole-file rewrite of a file over the size limit
  no_change,        // the edits leave every file as it was
  does_not_parse,   // the edited code has new parse errors (or unbalanced brackets)
  outside_region,   // an edit of a tiling file outside its evolution markers
};
const char* to_string(edit_error e);

struct edit_failure {
  edit_error kind = edit_error::no_edit;
  std::string reason;  // "op_kernel/x.cpp: SEARCH block 2 (answer line 14) occurs 3 times ..."
};

struct edit_block {
  enum class kind : std::uint8_t { search_replace, whole_file };
  kind type = kind::search_replace;
  std::string path;
  std::string search;   // search_replace: the old text ('\n'-joined lines, no final newline)
  std::string replace;  // the new text, or the whole new file
  std::size_t line = 0; // 1-based line of the block in the answer (for messages)
};

struct edit_options {
  // Whole-file rewrites are accepted only when the file (before and after) is at most this
  // big; larger files must be edited with SEARCH/REPLACE blocks. Default: 8192
  std::size_t whole_file_limit = 8192;
  // A SEARCH text absent byte for byte may still match line by line with each line's leading
  // and trailing whitespace ignored (models re-indent). Default: true
  bool whitespace_tolerant = true;
};

// The blocks of one answer (or one section of it), in order, or the first problem. `files`
// names the files the model may edit; a block without a path takes the previous block's
// path, or the only file when there is one.
struct parsed_edits {
  std::vector<edit_block> blocks;
  std::optional<edit_failure> error;
};
parsed_edits parse_edits(std::string_view answer, const search::file_map& files, const edit_options& opt = {});

// Applies the blocks in order (each sees the result of the ones before). On success
// `files` is the complete new file map and `changed` the paths that differ.
struct applied_edits {
  search::file_map files;
  std::vector<std::string> changed;
  std::optional<edit_failure> error;
};
applied_edits apply_blocks(const search::file_map& files, const std::vector<edit_block>& blocks,
                           const edit_options& opt = {});

// Whether brackets ( [ { are balanced, comments, strings and character literals skipped.
// nullopt when balanced, else what is wrong and on which line.
std::optional<std::string> bracket_problem(std::string_view code);

// Checks that edited C++ files still parse: first balanced brackets, then (when enabled) a
// libclang parse through the motifs parser, failing when the edited file has more errors than
// the original. The parser (and its precompiled headers) is created on first use and reused.
class parse_checker {
 public:
  explicit parse_checker(bool use_libclang = true);
  ~parse_checker();
  parse_checker(const parse_checker&) = delete;
  parse_checker& operator=(const parse_checker&) = delete;

  // nullopt when every path of `changed` parses as well in `after` as in `before`.
  std::optional<edit_failure> check(const search::file_map& before, const search::file_map& after,
                                    const std::vector<std::string>& changed);

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

// The edits of `text` parsed, applied to `files` and parse-checked, in one call: the first
// failure of the three steps is in `error`.
applied_edits edit_files(std::string_view text, const search::file_map& files, const edit_options& opt,
                         parse_checker& checker);

// A model answer split into proposals: sections starting with a Markdown heading
// "### Proposal 2: title" (also Variant, Rewrite, Step, Change); an answer without such a
// heading is one section. "Key: value" lines before the first edit (Title, Bottleneck,
// Description, Uses, ...) are fields, keyed in lower case.
struct answer_section {
  std::string title;
  std::map<std::string, std::string> fields;
  std::string prose;  // the section's text outside edits and fields
  std::string body;   // the whole section text (parse_edits input)
  std::size_t line = 1;
};
std::vector<answer_section> split_sections(std::string_view answer);

// The lines of the edit format as the prompts describe it ({{edit_format}}).
std::string edit_format_help(const edit_options& opt = {});

}  // namespace aopt::llm
