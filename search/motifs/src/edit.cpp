#include "aopt/motifs/edit.h"

#include <algorithm>
#include <cctype>

#include "aopt/common/error.h"

namespace aopt::motifs {
namespace {

std::string describe(const range& r) {
  return "[" + std::to_string(r.begin) + ", " + std::to_string(r.end) + ")";
}

std::vector<std::string_view> split_lines(std::string_view s) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start < s.size()) {
    const std::size_t nl = s.find('\n', start);
    if (nl == std::string_view::npos) {
      lines.push_back(s.substr(start));
      break;
    }
    lines.push_back(s.substr(start, nl - start + 1));
    start = nl + 1;
  }
  return lines;
}

void emit_line(std::string& out, char tag, std::string_view line) {
  out += tag;
  out.append(line);
  if (line.empty() || line.back() != '\n') {
    out += "\n\\ No newline at end of file\n";
  }
}

}  // namespace

std::string apply_edits(std::string_view content, const std::vector<text_edit>& edits,
                        std::string_view path) {
  std::vector<const text_edit*> sorted;
  sorted.reserve(edits.size());
  for (const auto& e : edits) {
    if (e.r.begin > e.r.end || e.r.end > content.size()) {
      throw aopt::error(ec::invalid_argument,
                        "motif edit of " + std::string(path) + " at bytes " + describe(e.r) +
                            " runs past the end of the file (" + std::to_string(content.size()) +
                            " bytes): the edit was computed on another version of the file; "
                            "re-run match() on the current content");
    }
    sorted.push_back(&e);
  }
  std::stable_sort(sorted.begin(), sorted.end(), [](const text_edit* a, const text_edit* b) {
    return a->r.begin != b->r.begin ? a->r.begin < b->r.begin : a->r.end < b->r.end;
  });
  for (std::size_t i = 1; i < sorted.size(); ++i) {
    const range& a = sorted[i - 1]->r;
    const range& b = sorted[i]->r;
    const bool overlap = b.begin < a.end || (a.begin == b.begin && (a.empty() || b.empty()));
    if (overlap) {
      throw aopt::error(ec::invalid_argument,
                        "overlapping motif edits of " + std::string(path) + ": bytes " +
                            describe(a) + " and " + describe(b) +
                            "; apply one motif site at a time and re-match in between");
    }
  }
  std::string out;
  out.reserve(content.size());
  std::size_t pos = 0;
  for (const text_edit* e : sorted) {
    out.append(content.substr(pos, e->r.begin - pos));
    out += e->replacement;
    pos = e->r.end;
  }
  out.append(content.substr(pos));
  return out;
}

file_set apply_edits(const file_set& files, const std::vector<text_edit>& edits) {
  std::map<std::string, std::vector<text_edit>> by_path;
  for (const auto& e : edits) {
    if (!files.count(e.path)) {
      throw aopt::error(ec::not_found, "motif edit names file '" + e.path +
                                           "', which is not in the file set; pass the whole "
                                           "operator package to match() and apply()");
    }
    by_path[e.path].push_back(e);
  }
  file_set out = files;
  for (auto& [path, list] : by_path) {
    out[path] = apply_edits(files.at(path), list, path);
  }
  return out;
}

std::string unified_diff(std::string_view path, std::string_view before, std::string_view after,
                         int context) {
  if (before == after) return {};
  const auto a = split_lines(before);
  const auto b = split_lines(after);
  // Common prefix and suffix, then an LCS table over the differing middle.
  std::size_t pre = 0;
  while (pre < a.size() && pre < b.size() && a[pre] == b[pre]) ++pre;
  std::size_t suf = 0;
  while (suf < a.size() - pre && suf < b.size() - pre &&
         a[a.size() - 1 - suf] == b[b.size() - 1 - suf]) {
    ++suf;
  }
  const std::size_t n = a.size() - pre - suf;
  const std::size_t m = b.size() - pre - suf;
  std::vector<std::vector<std::uint32_t>> lcs(n + 1, std::vector<std::uint32_t>(m + 1, 0));
  for (std::size_t i = n; i-- > 0;) {
    for (std::size_t j = m; j-- > 0;) {
      lcs[i][j] = a[pre + i] == b[pre + j] ? lcs[i + 1][j + 1] + 1
                                           : std::max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  // Edit script over the whole files: ' ' keep, '-' delete, '+' insert.
  struct op {
    char tag;
    std::size_t ai, bi;  // line indices (of a for ' '/'-', of b for '+')
  };
  std::vector<op> ops;
  for (std::size_t i = 0; i < pre; ++i) ops.push_back({' ', i, i});
  std::size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[pre + i] == b[pre + j]) {
      ops.push_back({' ', pre + i, pre + j});
      ++i, ++j;
    } else if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1])) {
      ops.push_back({'-', pre + i, pre + j});
      ++i;
    } else {
      ops.push_back({'+', pre + i, pre + j});
      ++j;
    }
  }
  for (std::size_t k = 0; k < suf; ++k) {
    ops.push_back({' ', a.size() - suf + k, b.size() - suf + k});
  }
  std::string out = "--- a/" + std::string(path) + "\n+++ b/" + std::string(path) + "\n";
  const std::size_t ctx = static_cast<std::size_t>(std::max(context, 0));
  std::size_t k = 0;
  while (k < ops.size()) {
    if (ops[k].tag == ' ') {
      ++k;
      continue;
    }
    // A hunk: from ctx lines before this change to ctx lines after the last change that is
    // within 2*ctx unchanged lines of the previous one.
    const std::size_t start = k >= ctx ? k - ctx : 0;
    std::size_t end = k;
    std::size_t last_change = k;
    while (end < ops.size()) {
      if (ops[end].tag != ' ') {
        last_change = end;
      } else if (end - last_change > 2 * ctx) {
        break;
      }
      ++end;
    }
    end = std::min(ops.size(), last_change + 1 + ctx);
    std::size_t a_start = 0, b_start = 0, a_len = 0, b_len = 0;
    bool first = true;
    for (std::size_t t = start; t < end; ++t) {
      const op& o = ops[t];
      if (first) {
        a_start = o.ai;
        b_start = o.bi;
        first = false;
      }
      if (o.tag != '+') ++a_len;
      if (o.tag != '-') ++b_len;
    }
    out += "@@ -" + std::to_string(a_len ? a_start + 1 : a_start) + "," + std::to_string(a_len) +
           " +" + std::to_string(b_len ? b_start + 1 : b_start) + "," + std::to_string(b_len) +
           " @@\n";
    for (std::size_t t = start; t < end; ++t) {
      const op& o = ops[t];
      emit_line(out, o.tag, o.tag == '+' ? b[o.bi] : a[o.ai]);
    }
    k = end;
  }
  return out;
}

std::string unified_diff(const file_set& before, const file_set& after, int context) {
  std::string out;
  for (const auto& [path, content] : before) {
    auto it = after.find(path);
    out += unified_diff(path, content, it == after.end() ? std::string_view{} : it->second,
                        context);
  }
  for (const auto& [path, content] : after) {
    if (!before.count(path)) out += unified_diff(path, {}, content, context);
  }
  return out;
}

bool equal_modulo_whitespace(std::string_view a, std::string_view b) {
  std::size_t i = 0, j = 0;
  for (;;) {
    while (i < a.size() && std::isspace(static_cast<unsigned char>(a[i]))) ++i;
    while (j < b.size() && std::isspace(static_cast<unsigned char>(b[j]))) ++j;
    if (i == a.size() || j == b.size()) return i == a.size() && j == b.size();
    if (a[i] != b[j]) return false;
    ++i, ++j;
  }
}

}  // namespace aopt::motifs
