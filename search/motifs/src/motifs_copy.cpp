// Copy motifs: merge a loop of contiguous row copies into one DataCopy; DataCopyPad instead of a
// scalar element copy for unaligned lengths.
#include <regex>

#include "motifs_impl.h"

namespace aopt::motifs::detail {
namespace {

using search::bottleneck_class;

int loop_node(const source_file& f, range r) {
  for (int l : f.find(node_kind::for_loop)) {
    if (f.at(l).r == r) return l;
  }
  return -1;
}

std::optional<call_info> single_call(const source_file& f, int body) {
  if (body < 0 || f.at(body).children.size() != 1) return std::nullopt;
  auto st = call_statements(f, body);
  if (st.size() != 1) return std::nullopt;
  return st[0];
}

// Strips a trailing "[<var>*<cols>]" from a squeezed operand; "" when it is not there.
std::string strip_row_index(const std::string& s, const std::string& var, const std::string& cols) {
  const std::string tail = "[" + var + "*" + cols + "]";
  if (s.size() <= tail.size() || s.compare(s.size() - tail.size(), tail.size(), tail) != 0) return {};
  return s.substr(0, s.size() - tail.size());
}

// ---- merge_copies -------------------------------------------------------------------------------

struct row_copy {
  std::string dst, src, rows, cols;
};

std::optional<row_copy> as_row_copy(const source_file& f, int loop) {
  auto cl = as_counted_loop(f, loop);
  if (!cl || norm(f, cl->init) != "0") return std::nullopt;
  auto c = single_call(f, cl->body);
  if (!c || c->callee != "DataCopy" || c->args.size() != 3 || !c->template_args.empty()) return std::nullopt;
  const std::string cols = norm(f, c->args[2]);
  const std::string rows = norm(f, cl->bound);
  if (!simple_operand(cols) || !simple_operand(rows)) return std::nullopt;
  const std::string d = strip_row_index(norm(f, c->args[0]), cl->var, cols);
  const std::string s = strip_row_index(norm(f, c->args[1]), cl->var, cols);
  if (d.empty() || s.empty()) return std::nullopt;
  return row_copy{d, s, rows, cols};
}

class merge_copies final : public basic_motif {
 public:
  merge_copies()
      : basic_motif("merge_copies", "Merge a loop of contiguous row copies into one DataCopy",
                    "A loop of DataCopy(dst[r * cols], src[r * cols], cols) over rows moves one contiguous block "
                    "in many small transfers, each paying the MTE start-up cost; one DataCopy(dst, src, rows * cols) "
                    "moves it in one burst. Inverse: a DataCopy whose count is a product A * B becomes A copies of "
                    "B elements.",
                    bottleneck_class::mte2_bound) {}

  std::vector<site> match(const source_set& src) const override {
    std::vector<site> out;
    for (const auto& path : kernel_paths(src, "DataCopy")) {
      auto f = src.get(path);
      for (int loop : f->find(node_kind::for_loop)) {
        if (auto rc = as_row_copy(*f, loop)) out.push_back(make_site(path, f->at(loop).r, true, false, "merge " + rc->rows + " row copies"));
      }
      for (const auto& c : f->calls("DataCopy")) {
        if (split_factors(*f, c)) out.push_back(make_site(path, c.statement, false, true, "split the copy into rows"));
      }
    }
    return out;
  }

  outcome apply(const source_set& src, const site& s, direction d) const override {
    auto cur = refind(src, s);
    if (!cur || (d == direction::forward ? !cur->forward : !cur->inverse)) {
      return outcome::fail(d == direction::forward ? "no loop of row copies at this site" : "no DataCopy with a product count here");
    }
    auto f = src.get(s.path);
    const std::string p = f->api_prefix();
    if (d == direction::forward) {
      auto rc = as_row_copy(*f, loop_node(*f, s.anchor));
      return outcome::success({{s.path, s.anchor, p + "DataCopy(" + rc->dst + ", " + rc->src + ", " + rc->rows + " * " + rc->cols + ");"}});
    }
    for (const auto& c : f->calls("DataCopy")) {
      if (!(c.statement == s.anchor)) continue;
      auto fac = split_factors(*f, c);
      const std::string v = fresh_name(*f, "row");
      const std::string ind = f->indent_at(c.r.begin);
      const std::string idx = "[" + v + " * " + fac->second + "]";
      return outcome::success({{s.path, s.anchor,
                                "for (uint32_t " + v + " = 0; " + v + " < " + fac->first + "; ++" + v + ") {\n" + ind + "    " + p +
                                    "DataCopy(" + arg_text(*f, c, 0) + idx + ", " + arg_text(*f, c, 1) + idx + ", " + fac->second + ");\n" +
                                    ind + "}"}});
    }
    return outcome::fail("the copy changed");
  }

 private:
  static std::optional<std::pair<std::string, std::string>> split_factors(const source_file& f, const call_info& c) {
    if (c.statement.empty() || c.args.size() != 3 || !c.template_args.empty()) return std::nullopt;
    const std::string n = norm(f, c.args[2]);
    const auto star = n.find('*');
    if (star == std::string::npos || n.find('*', star + 1) != std::string::npos) return std::nullopt;
    std::string a = n.substr(0, star), b = n.substr(star + 1);
    if (!simple_operand(a) || !simple_operand(b)) return std::nullopt;
    return std::make_pair(a, b);
  }
};

// ---- datacopypad_tail ---------------------------------------------------------------------------

struct element_copy {
  std::string dst, src, count, type;
  bool to_gm = false;
};

bool is_global(const source_file& f, const std::string& operand) {
  return type_of_name(f, base_name(operand)).find("GlobalTensor") != std::string::npos;
}
bool is_local(const source_file& f, const std::string& operand) {
  return type_of_name(f, base_name(operand)).find("LocalTensor") != std::string::npos;
}

std::optional<element_copy> as_element_copy(const source_file& f, int loop) {
  auto cl = as_counted_loop(f, loop);
  if (!cl || norm(f, cl->init) != "0") return std::nullopt;
  auto c = single_call(f, cl->body);
  if (!c || c->callee != "SetValue" || c->args.size() != 2 || norm(f, c->args[0]) != cl->var) return std::nullopt;
  const std::string e = norm(f, c->args[1]);
  const std::string tail = ".GetValue(" + cl->var + ")";
  if (e.size() <= tail.size() || e.compare(e.size() - tail.size(), tail.size(), tail) != 0) return std::nullopt;
  element_copy ec{detail::squeeze(c->object()), e.substr(0, e.size() - tail.size()), norm(f, cl->bound), {}, false};
  if (ec.src.find(cl->var) != std::string::npos || ec.dst.find(cl->var) != std::string::npos) return std::nullopt;
  if (is_global(f, ec.src) && is_local(f, ec.dst)) {
    ec.type = first_template_arg(type_of_name(f, base_name(ec.dst)));
  } else if (is_local(f, ec.src) && is_global(f, ec.dst)) {
    ec.type = first_template_arg(type_of_name(f, base_name(ec.src)));
    ec.to_gm = true;
  } else {
    return std::nullopt;
  }
  if (ec.type.empty()) return std::nullopt;
  return ec;
}

class datacopypad_tail final : public basic_motif {
 public:
  datacopypad_tail()
      : basic_motif("datacopypad_tail", "DataCopyPad instead of a scalar element copy",
                    "An element-by-element GetValue/SetValue copy between GM and UB (the usual way to move a tail "
                    "that is not a multiple of 32 bytes) runs on the scalar pipe; DataCopyPad moves any byte length "
                    "in one MTE transfer. Inverse: a single-block DataCopyPad becomes the element loop.",
                    bottleneck_class::scalar_bound, false) {}

  std::vector<site> match(const source_set& src) const override {
    std::vector<site> out;
    for (const auto& path : kernel_paths(src)) {
      auto f = src.get(path);
      for (int loop : f->find(node_kind::for_loop)) {
        if (auto ec = as_element_copy(*f, loop)) out.push_back(make_site(path, f->at(loop).r, true, false, std::string("element copy ") + (ec->to_gm ? "to GM" : "to UB") + " -> DataCopyPad"));
      }
      for (const auto& c : f->calls("DataCopyPad")) {
        if (pad_count(*f, c)) out.push_back(make_site(path, c.statement, false, true, "DataCopyPad -> element copy loop"));
      }
    }
    return out;
  }

  outcome apply(const source_set& src, const site& s, direction d) const override {
    auto cur = refind(src, s);
    if (!cur || (d == direction::forward ? !cur->forward : !cur->inverse)) {
      return outcome::fail(d == direction::forward ? "no element copy loop at this site" : "no single-block DataCopyPad here");
    }
    auto f = src.get(s.path);
    const std::string p = f->api_prefix();
    if (d == direction::forward) {
      auto ec = as_element_copy(*f, loop_node(*f, s.anchor));
      std::string call = p + "DataCopyPad(" + ec->dst + ", " + ec->src + ", " + p + "DataCopyExtParams{1, static_cast<uint32_t>(" + ec->count +
                         " * sizeof(" + ec->type + ")), 0, 0, 0}";
      if (!ec->to_gm) call += ", " + p + "DataCopyPadExtParams<" + ec->type + ">{false, 0, 0, 0}";
      return outcome::success({{s.path, s.anchor, call + ");"}});
    }
    for (const auto& c : f->calls("DataCopyPad")) {
      if (!(c.statement == s.anchor)) continue;
      auto n = pad_count(*f, c);
      const std::string v = fresh_name(*f, "elem");
      const std::string ind = f->indent_at(c.r.begin);
      return outcome::success({{s.path, s.anchor,
                                "for (uint32_t " + v + " = 0; " + v + " < " + *n + "; ++" + v + ") {\n" + ind + "    " + arg_text(*f, c, 0) +
                                    ".SetValue(" + v + ", " + arg_text(*f, c, 1) + ".GetValue(" + v + "));\n" + ind + "}"}});
    }
    return outcome::fail("the copy changed");
  }

 private:
  // The element count of a one-block DataCopyPad between a GlobalTensor and a LocalTensor
  // (params {1, N * sizeof(T), 0, 0, 0}, inline or as a local variable; pad value unused).
  static std::optional<std::string> pad_count(const source_file& f, const call_info& c) {
    if (c.statement.empty() || (c.args.size() != 3 && c.args.size() != 4)) return std::nullopt;
    const std::string d = norm(f, c.args[0]), s = norm(f, c.args[1]);
    if (!((is_global(f, s) && is_local(f, d) && c.args.size() == 4) || (is_local(f, s) && is_global(f, d) && c.args.size() == 3))) return std::nullopt;
    std::string params = norm(f, c.args[2]);
    if (simple_operand(params)) {
      // A local `DataCopyExtParams name{...};` declared before the call in the same function.
      std::string init;
      for (int v : f.find(node_kind::var_decl)) {
        if (f.at(v).name == params && f.at(v).r.end <= c.r.begin) {
          const std::string t = norm(f, f.at(v).r);
          const auto brace = t.find('{');
          if (brace != std::string::npos) init = "DataCopyExtParams" + t.substr(brace);
        }
      }
      params = init;
    }
    if (params.rfind("AscendC::", 0) == 0) params = params.substr(9);
    static const std::regex re(R"(^DataCopyExtParams\{1,(?:static_cast<uint32_t>)?\((.+)\*sizeof\((\w+)\)\),0,0,0\}$)");
    std::smatch m;
    if (!std::regex_match(params, m, re)) return std::nullopt;
    return m[1].str();
  }
};

}  // namespace

void add_copy_motifs(std::vector<std::unique_ptr<motif>>& v) {
  v.push_back(std::make_unique<merge_copies>());
  v.push_back(std::make_unique<datacopypad_tail>());
}

}  // namespace aopt::motifs::detail
