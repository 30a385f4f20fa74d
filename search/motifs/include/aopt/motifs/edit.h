// Text edits on a set of source files: a byte range of one file and its replacement, an applier
// that rejects overlapping or out-of-range edits, and a unified-diff writer. Everything the
// motifs change goes through here, so the rest of every file stays byte-identical.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace aopt::motifs {

// Relative path (as in an operator package: "op_kernel/add_custom.cpp") -> file content.
using file_set = std::map<std::string, std::string>;

// A half-open byte range [begin, end) of one file.
struct range {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::size_t size() const { return end - begin; }
  bool empty() const { return begin == end; }
  bool contains(std::size_t pos) const { return pos >= begin && pos < end; }
  bool contains(const range& o) const { return o.begin >= begin && o.end <= end; }
  friend bool operator==(const range&, const range&) = default;
};

// Replace bytes [r.begin, r.end) of `path` by `replacement` (an empty range inserts).
struct text_edit {
  std::string path;
  range r;
  std::string replacement;
  friend bool operator==(const text_edit&, const text_edit&) = default;
};

// Applies edits to one file's content. Edits may come in any order; two edits overlap when
// their ranges share a byte, or when both insert at the same position. Throws
// aopt::error(invalid_argument) naming the path and both ranges on overlap, and naming the
// range and file size when an edit runs past the end.
std::string apply_edits(std::string_view content, const std::vector<text_edit>& edits,
                        std::string_view path = "<input>");

// Applies edits to a file set; an edit of a path not in the set throws aopt::error(not_found).
file_set apply_edits(const file_set& files, const std::vector<text_edit>& edits);

// Unified diff of one file ("--- a/PATH", "+++ b/PATH", "@@ -l,n +l,n @@" hunks, `context`
// lines of context). Empty when before == after.
std::string unified_diff(std::string_view path, std::string_view before, std::string_view after,
                         int context = 3);

// Unified diff of every file that differs between two sets (added and removed files too), in
// path order.
std::string unified_diff(const file_set& before, const file_set& after, int context = 3);

// True when a and b are equal once all whitespace is removed (the round-trip criterion).
bool equal_modulo_whitespace(std::string_view a, std::string_view b);

}  // namespace aopt::motifs
