#include "aopt/evaluation/package_build.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <fnmatch.h>
#include <map>
#include <regex>

#include "aopt/common/error.h"
#include "aopt/common/fs.h"
#include "aopt/common/tar.h"
#include "aopt/evaluation/package.h"

namespace aopt::evaluation {

namespace fs = std::filesystem;

namespace {

struct cmake_command {
  std::string name;  // lower case
  std::vector<std::string> args;
  std::vector<int> arg_lines;  // the line each argument starts on
  int line = 0;
};

// The commands of a CMakeLists.txt: `name(args)`, comments dropped, quoted arguments kept whole,
// nested parentheses (generator expressions, conditions) inside the arguments.
std::vector<cmake_command> parse_cmake(const std::string& text) {
  std::vector<cmake_command> out;
  std::size_t i = 0;
  int line = 1;
  const std::size_t n = text.size();
  auto skip_comment = [&] {
    while (i < n && text[i] != '\n') ++i;
  };
  while (i < n) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      ++i;
      continue;
    }
    if (c == '#') {
      skip_comment();
      continue;
    }
    if (!(std::isalpha(static_cast<unsigned char>(c)) || c == '_')) {
      ++i;
      continue;
    }
    cmake_command cmd;
    cmd.line = line;
    while (i < n && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_')) {
      cmd.name += static_cast<char>(std::tolower(static_cast<unsigned char>(text[i])));
      ++i;
    }
    while (i < n && (text[i] == ' ' || text[i] == '\t')) ++i;
    if (i >= n || text[i] != '(') continue;
    ++i;
    int depth = 1;
    std::string arg;
    int arg_line = line;
    auto flush = [&] {
      if (!arg.empty()) {
        cmd.args.push_back(arg);
        cmd.arg_lines.push_back(arg_line);
      }
      arg.clear();
    };
    while (i < n && depth > 0) {
      const char d = text[i];
      if (d == '\n') ++line;
      if (d == '#' ) {
        flush();
        skip_comment();
        continue;
      }
      if (arg.empty()) arg_line = line;
      if (d == '"' && !arg.empty()) {
        // A quote inside an unquoted argument is literal, with what it encloses (CMake's legacy
        // unquoted arguments: NAME="VALUE" in target_compile_definitions defines a string).
        arg += text[i++];
        while (i < n && text[i] != '"') {
          if (text[i] == '\n') ++line;
          arg += text[i++];
        }
        if (i < n) arg += text[i++];
        continue;
      }
      if (d == '"') {
        ++i;
        while (i < n && text[i] != '"') {
          if (text[i] == '\n') ++line;
          if (text[i] == '\\' && i + 1 < n) ++i;
          arg += text[i++];
        }
        ++i;
        continue;
      }
      if (d == '(') ++depth;
      if (d == ')' && --depth == 0) {
        ++i;
        break;
      }
      if (std::isspace(static_cast<unsigned char>(d))) {
        flush();
      } else {
        arg += d;
      }
      ++i;
    }
    flush();
    out.push_back(std::move(cmd));
  }
  return out;
}

bool is_source_file(const fs::path& p) {
  static const std::set<std::string> exts = {".cpp", ".cc", ".cxx", ".c", ".h", ".hh", ".hpp", ".hxx", ".inc", ".inl", ".ipp", ".tpp"};
  return exts.count(p.extension().string()) != 0;
}

// The quoted includes of a source text: (line, name) of each `#include "name"` line.
std::vector<std::pair<int, std::string>> quoted_includes(const std::string& text) {
  static const std::regex inc(R"re(^\s*#\s*include\s*"([^"]+)")re");
  std::vector<std::pair<int, std::string>> out;
  std::size_t start = 0;
  for (int line = 1; start <= text.size(); ++line) {
    const auto end = std::min(text.find('\n', start), text.size());
    std::smatch m;
    const std::string l = text.substr(start, end - start);
    if (l.find("include") != std::string::npos && std::regex_search(l, m, inc)) out.emplace_back(line, m[1].str());
    start = end + 1;
  }
  return out;
}

bool is_compiled(const fs::path& p) {
  const auto e = p.extension().string();
  return e == ".cpp" || e == ".cc" || e == ".cxx" || e == ".c";
}

// The libraries whose sources make up what the host build runs: the tiling library, the
// prototype (InferShape) library and the OpDef registrations the aclnn generation reads.
bool is_host_target(const std::string& t) {
  return t == "optiling" || t == "opsproto" || t.rfind("op_host_aclnn", 0) == 0;
}

class reader {
 public:
  // `view`: where the package stands in the tree (op_dir itself, or for a package that carries its
  // shared files root/<its path>): the CMakeLists' paths are read from there, and those under
  // it are the package's files in op_dir.
  reader(fs::path op_dir, fs::path tree_root, fs::path view)
      : op_dir_(std::move(op_dir)), root_(std::move(tree_root)), view_(std::move(view)) {
    vars_["CMAKE_CURRENT_SOURCE_DIR"] = {view_.string()};
    vars_["CMAKE_CURRENT_LIST_DIR"] = {view_.string()};
    fs::path project = root_;
    for (fs::path p = view_; !p.empty() && p != p.parent_path(); p = p.parent_path()) {
      if (p.filename() == "src") {
        project = p.parent_path();
        break;
      }
    }
    vars_["CMAKE_SOURCE_DIR"] = {project.string()};
    vars_["PROJECT_SOURCE_DIR"] = {project.string()};
    vars_["OP_COMMON_DIR"] = {(project / "src" / "common").string()};
  }

  package_build read() {
    const fs::path cm = op_dir_ / "CMakeLists.txt";
    std::error_code e;
    if (fs::is_regular_file(cm, e)) {
      std::string text;
      try {
        text = common::read_text_file(cm, max_source_file_bytes);
      } catch (const error& ex) {
        out_.warnings.push_back(cm.string() + ": not read (" + ex.what() + ")");
        return std::move(out_);
      }
      for (const auto& c : parse_cmake(text)) command(c);
      project_includes();
    }
    tree_library_sources();
    sibling_includes();
    finish();
    return std::move(out_);
  }

  // Quoted includes that reach outside the package by a relative path, as cann-ops' gemm_v2
  // includes its sibling's "../../mat_mul_v3/op_host/mat_mul_v3_tiling.h": the real build compiles
  // in the tree, where the path resolves. Each such file inside the tree root is a shared file
  // (and so, transitively, is what it includes by a quoted path that resolves beside it), and the
  // including directory's place in the mirrored tree (shared_prefix + its path under the tree
  // root) is a host include directory, where the compiler resolves the relative path next. One
  // that resolves (symbolic links followed) outside the tree root is refused, naming file and line.
  // Not the files the build never compiles: aclnn_* and the op_api library's sources.
  void sibling_includes() {
    std::vector<std::pair<fs::path, fs::path>> todo;  // (real file, its place in the tree)
    for (const auto& f : library_sources_) todo.emplace_back(f, f);  // what tree_library_sources brought
    std::error_code e;
    for (const char* sub : {"op_host", "op_kernel"}) {
      for (auto it = fs::recursive_directory_iterator(op_dir_ / sub, e); !e && it != fs::recursive_directory_iterator(); it.increment(e)) {
        const std::string rel = it->path().lexically_relative(op_dir_).generic_string();
        if (!it->is_regular_file() || !is_source_file(it->path()) || it->path().filename().string().rfind("aclnn_", 0) == 0 ||
            out_.op_api_sources.count(rel) || rel.rfind("op_host/op_api/", 0) == 0) {
          continue;
        }
        todo.emplace_back(it->path(), view_ / rel);
      }
    }
    std::set<std::string> scanned;
    while (!todo.empty()) {
      const auto [file, place] = todo.back();
      todo.pop_back();
      const bool own = common::path_under(place.string(), view_.string());
      std::string text;
      try {
        text = common::read_text_file(file, max_source_file_bytes);
      } catch (const error&) {
        continue;  // the package's own unreadable files are reported when it is loaded
      }
      for (const auto& [line, name] : quoted_includes(text)) {
        const fs::path target = (place.parent_path() / name).lexically_normal();
        if (own && (name.find("..") == std::string::npos || common::path_under(target.string(), view_.string()))) continue;
        const auto real = common::resolve_under(root_, target);
        if (!real) {
          throw error(ec::invalid_spec, file.string() + ":" + std::to_string(line) + ": #include \"" + name + "\" leads to " +
                                            fs::weakly_canonical(target, e).string() + ", outside the tree root " + root_.string() +
                                            " (symbolic links followed); aopt reads nothing outside it: pass --tree DIR with a DIR "
                                            "that holds both the operator and that file (e.g. the cann-ops checkout), or include a "
                                            "copy inside the operator");
        }
        if (in_package(*real, op_dir_) || !fs::is_regular_file(*real, e) || !scanned.insert(real->string()).second) continue;
        add_shared(*real);
        todo.emplace_back(*real, *real);
        for (const auto& impl : sibling_sources(*real)) {
          if (scanned.insert(impl.string()).second) todo.emplace_back(impl, impl);
        }
        if (own) {
          const std::string mirror = shared_prefix + place.parent_path().lexically_relative(root_).generic_string();
          if (std::find(out_.host_include_dirs.begin(), out_.host_include_dirs.end(), mirror) == out_.host_include_dirs.end()) {
            out_.host_include_dirs.push_back(mirror);
          }
        }
      }
    }
  }

  // The tree builds every operator's host sources into one library, so an operator may use what
  // only another operator's CMakeLists.txt compiles: conv3dv2's proto includes its own
  // cube_util.h, and the cube_util.cpp beside it is named by no CMakeLists (it is the op_api
  // library's copy); GetConv3DXShape comes from conv2d_transpose_v2's cube_util.cc, which that
  // operator's CMakeLists gives the proto library. So: a header of the package's op_host that a
  // host file includes, with a source of its stem beside it that the package's CMakeLists does
  // not name, is implemented by the first operator of the tree (in path order) whose CMakeLists
  // gives its tiling or proto library a source of that stem beside a header of that name; that
  // source and its header become shared files and a host source. Read only inside the tree root.
  void tree_library_sources() {
    if (root_ == op_dir_) return;
    std::error_code e;
    std::set<std::string> wanted;  // header file names
    for (auto it = fs::recursive_directory_iterator(op_dir_ / "op_host", e); !e && it != fs::recursive_directory_iterator(); it.increment(e)) {
      if (!it->is_regular_file() || !is_source_file(it->path()) || it->path().filename().string().rfind("aclnn_", 0) == 0) continue;
      std::string text;
      try {
        text = common::read_text_file(it->path(), max_source_file_bytes);
      } catch (const error&) {
        continue;
      }
      for (const auto& inc : quoted_includes(text)) {
        const fs::path h = (it->path().parent_path() / inc.second).lexically_normal();
        if (inc.second.find("..") != std::string::npos || !fs::is_regular_file(h, e) || is_compiled(h)) continue;
        for (const char* ext : {".cpp", ".cc"}) {
          const fs::path beside = fs::path(h).replace_extension(ext);
          const std::string rel = beside.lexically_relative(op_dir_).generic_string();
          if (fs::is_regular_file(beside, e) &&
              std::find(out_.host_sources.begin(), out_.host_sources.end(), rel) == out_.host_sources.end()) {
            wanted.insert(h.filename().string());
          }
        }
      }
    }
    if (wanted.empty()) return;
    std::vector<fs::path> dirs;
    for (auto it = fs::recursive_directory_iterator(root_, fs::directory_options::follow_directory_symlink, e);
         !e && it != fs::recursive_directory_iterator(); it.increment(e)) {
      if (!it->is_directory() || !fs::is_directory(it->path() / "op_host", e) || !fs::is_regular_file(it->path() / "CMakeLists.txt", e)) continue;
      dirs.push_back(it->path());
      it.disable_recursion_pending();
    }
    std::sort(dirs.begin(), dirs.end());
    const fs::path own = fs::weakly_canonical(op_dir_, e);
    for (const auto& dir : dirs) {
      if (wanted.empty()) break;
      if (fs::weakly_canonical(dir, e) == own) continue;
      std::string text;
      try {
        text = common::read_text_file(dir / "CMakeLists.txt", max_source_file_bytes);
      } catch (const error&) {
        continue;
      }
      reader other(dir, root_, dir);
      for (const auto& c : parse_cmake(text)) {
        if (c.name == "set" || c.name == "list" || c.name == "file" || c.name == "target_sources") other.command(c);
      }
      for (const auto& rel : other.out_.host_sources) {
        const fs::path src = (dir / rel).lexically_normal();
        const std::string header = src.stem().string() + ".h";
        if (rel.rfind(shared_prefix, 0) == 0 || !wanted.count(header) || !fs::is_regular_file(src.parent_path() / header, e)) continue;
        wanted.erase(header);
        add_shared(src);
        add_shared(src.parent_path() / header);
        add_shared(dir / "CMakeLists.txt");
        const std::string shared = shared_prefix + src.lexically_relative(root_).generic_string();
        out_.host_sources.push_back(shared);
        if (other.out_.tiling_sources.count(rel)) out_.tiling_sources.insert(shared);
        library_sources_.push_back(src);
        out_.warnings.push_back("op_host includes " + header + ", whose source beside it no CMakeLists names: the tree's " +
                                "library takes its definitions from " + src.lexically_relative(root_).generic_string() +
                                " (named by " + (dir / "CMakeLists.txt").lexically_relative(root_).generic_string() +
                                "), compiled here as a host source");
      }
    }
  }

  // The sources that implement a header brought in from a sibling operator: a source its own
  // CMakeLists.txt gives its tiling or proto library (target_sources of optiling, opsproto,
  // op_host_aclnn*) that has the header's name beside it (circular_pad_common.cc for
  // circular_pad_common.h). The real build links every operator's tiling sources into one
  // library, so what the header declares is defined there; each such source becomes a host source
  // of this package (shared), and the sibling's CMakeLists.txt a shared file (a package that
  // carries its shared files finds them again without the tree). Not the sibling's other sources
  // (its own OpDef, tiling and InferShape registrations).
  std::vector<fs::path> sibling_sources(const fs::path& header) {
    std::error_code e;
    fs::path dir;
    for (fs::path p = header.parent_path(); p != root_ && common::path_under(p.string(), root_.string()); p = p.parent_path()) {
      if (fs::is_regular_file(p / "CMakeLists.txt", e) && fs::is_directory(p / "op_host", e)) {
        dir = p;
        break;
      }
      if (p == p.parent_path()) break;
    }
    if (dir.empty()) return {};
    std::string text;
    try {
      text = common::read_text_file(dir / "CMakeLists.txt", max_source_file_bytes);
    } catch (const error&) {
      return {};
    }
    reader sibling(dir, root_, dir);
    for (const auto& c : parse_cmake(text)) {
      if (c.name == "set" || c.name == "list" || c.name == "file" || c.name == "target_sources") sibling.command(c);
    }
    std::vector<fs::path> found;
    for (const auto& rel : sibling.out_.host_sources) {
      const fs::path src = (dir / rel).lexically_normal();
      if (rel.rfind(shared_prefix, 0) == 0 || src.parent_path() != header.parent_path() || src.stem() != header.stem()) continue;
      const std::string shared = shared_prefix + src.lexically_relative(root_).generic_string();
      if (std::find(out_.host_sources.begin(), out_.host_sources.end(), shared) != out_.host_sources.end()) continue;
      add_shared(src);
      add_shared(dir / "CMakeLists.txt");
      out_.host_sources.push_back(shared);
      if (sibling.out_.tiling_sources.count(rel)) out_.tiling_sources.insert(shared);
      found.push_back(src);
    }
    return found;
  }

  // The include directories a cann-ops project gives every operator's tiling and proto
  // libraries: its ${OP_COMMON_DIR}/CMakeLists.txt declares them on the interface targets
  // ops_utils_tiling_headers / ops_utils_proto_headers ($<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/inc>),
  // which the project's optiling and opsproto link. Followed only inside the tree root, quietly:
  // an operator evaluated without --tree does not name them itself.
  void project_includes() {
    const fs::path common_dir = vars_["OP_COMMON_DIR"].front();
    std::error_code e;
    const fs::path real = fs::weakly_canonical(common_dir, e);
    if (e || !common::path_under(real.string(), root_.string()) || !fs::is_regular_file(real / "CMakeLists.txt", e)) return;
    std::string text;
    try {
      text = common::read_text_file(real / "CMakeLists.txt", max_source_file_bytes);
    } catch (const error&) {
      return;
    }
    for (const auto& c : parse_cmake(text)) {
      // The definitions the tiling library's interface target gives (OPS_UTILS_LOG_SUB_MOD_NAME,
      // which the shared log headers need); the proto one's differ only in their log tag.
      if (c.name == "target_compile_definitions" && !c.args.empty() && c.args[0] == "ops_utils_tiling_headers") {
        definitions(c);
        continue;
      }
      if (c.name != "target_include_directories" || c.args.empty() || c.args[0].rfind("ops_utils_", 0) != 0) continue;
      for (std::size_t k = 1; k < c.args.size(); ++k) {
        std::string a = c.args[k];
        const std::string lead = "$<BUILD_INTERFACE:";
        if (a.rfind(lead, 0) != 0 || a.back() != '>') continue;
        a = a.substr(lead.size(), a.size() - lead.size() - 1);
        if (a.find("$<") != std::string::npos) continue;
        const std::string here = "${CMAKE_CURRENT_SOURCE_DIR}";
        if (a.rfind(here, 0) != 0) continue;  // the CANN package's directories: emulated
        const fs::path dir = (real / a.substr(here.size() + (a.size() > here.size() && a[here.size()] == '/' ? 1 : 0))).lexically_normal();
        if (!fs::is_directory(dir, e)) continue;
        include_dir(out_.host_include_dirs, dir, c.arg_lines[k]);
      }
    }
  }

 private:
  std::string where(int line) const { return "CMakeLists.txt:" + std::to_string(line); }

  // target_compile_definitions(TARGET <scope> NAME[=VALUE] ...): each definition, its variables
  // expanded; a value `$<IF:$<BOOL:cond>,then,else>` takes its branch (an unknown variable is
  // false); one with another generator expression is left out.
  void definitions(const cmake_command& c) {
    for (std::size_t k = 1; k < c.args.size(); ++k) {
      std::string a = c.args[k];
      if (a == "PRIVATE" || a == "PUBLIC" || a == "INTERFACE") continue;
      const auto eq = a.find('=');
      if (eq != std::string::npos && a.compare(eq + 1, 12, "$<IF:$<BOOL:") == 0 && a.back() == '>') {
        const auto close = a.find('>', eq + 12);
        if (close == std::string::npos || close + 1 >= a.size() || a[close + 1] != ',') continue;
        const auto cond = expand(a.substr(eq + 12, close - eq - 12));
        std::string v = cond.empty() ? std::string() : cond.front();
        for (auto& ch : v) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        const bool truthy = !v.empty() && v != "0" && v != "off" && v != "false" && v != "no" && v != "n" && v != "ignore" &&
                            v != "notfound" && v.find("-notfound") == std::string::npos;
        const std::string branches = a.substr(close + 2, a.size() - close - 3);
        bool quoted = false;
        std::size_t comma = std::string::npos;
        for (std::size_t j = 0; j < branches.size(); ++j) {
          if (branches[j] == '"') quoted = !quoted;
          if (branches[j] == ',' && !quoted) {
            comma = j;
            break;
          }
        }
        if (comma == std::string::npos) continue;
        a = a.substr(0, eq + 1) + (truthy ? branches.substr(0, comma) : branches.substr(comma + 1));
      }
      if (a.find("$<") != std::string::npos) continue;
      for (const auto& v : expand(a)) {
        if (!v.empty() && std::find(out_.host_definitions.begin(), out_.host_definitions.end(), v) == out_.host_definitions.end()) {
          out_.host_definitions.push_back(v);
        }
      }
    }
  }

  // ${VAR} expanded; nullopt-like empty vector when an unknown variable or a generator
  // expression leaves the argument unusable. A list variable expands to several values.
  std::vector<std::string> expand(const std::string& arg) const {
    if (arg.rfind("$<", 0) == 0) return {};
    std::vector<std::string> acc = {""};
    std::size_t i = 0;
    while (i < arg.size()) {
      if (arg.compare(i, 2, "${") == 0) {
        const auto close = arg.find('}', i);
        if (close == std::string::npos) return {};
        const auto it = vars_.find(arg.substr(i + 2, close - i - 2));
        if (it == vars_.end()) return {};
        std::vector<std::string> next;
        for (const auto& a : acc) {
          for (const auto& v : it->second) next.push_back(a + v);
        }
        acc = std::move(next);
        i = close + 1;
      } else {
        for (auto& a : acc) a += arg[i];
        ++i;
      }
    }
    return acc;
  }

  fs::path absolute_of(const std::string& p) const {
    fs::path q(p);
    q = (q.is_absolute() ? q : view_ / q).lexically_normal();
    if (carried() && common::path_under(q.string(), view_.string())) return (op_dir_ / q.lexically_relative(view_)).lexically_normal();
    return q;
  }

  bool carried() const { return view_ != op_dir_; }
  // A real path inside the package's own files (a carried package's shared files lie inside its
  // directory too, under the tree root).
  bool in_package(const fs::path& real, const fs::path& pkg) const {
    return common::path_under(real.string(), pkg.string()) && !(carried() && common::path_under(real.string(), root_.string()));
  }

  // The path, symbolic links resolved, when it lies inside the tree root; empty (and a warning)
  // otherwise.
  fs::path confined(const fs::path& p, int line) {
    std::error_code e;
    const fs::path real = fs::weakly_canonical(p, e);
    if (e || !(common::path_under(real.string(), root_.string()) || (carried() && common::path_under(real.string(), op_dir_.string())))) {
      out_.warnings.push_back(where(line) + ": " + p.string() + " is outside the tree root " + root_.string() +
                              "; not followed (aopt eval --tree DIR lets the build read a shared directory inside DIR)");
      return {};
    }
    return real;
  }

  void command(const cmake_command& c) {
    if (c.args.empty()) return;
    if (c.name == "set") {
      std::vector<std::string> vals;
      for (std::size_t k = 1; k < c.args.size(); ++k) {
        if (c.args[k] == "CACHE" || c.args[k] == "PARENT_SCOPE") break;
        for (auto& v : expand(c.args[k])) vals.push_back(v);
      }
      vars_[c.args[0]] = vals;
    } else if (c.name == "list" && c.args.size() >= 2 && c.args[0] == "APPEND") {
      auto& v = vars_[c.args[1]];
      for (std::size_t k = 2; k < c.args.size(); ++k) {
        for (auto& x : expand(c.args[k])) v.push_back(x);
      }
    } else if (c.name == "file" && c.args.size() >= 3 && (c.args[0] == "GLOB" || c.args[0] == "GLOB_RECURSE")) {
      glob(c);
    } else if (c.name == "target_sources") {
      const std::string& target = c.args[0];
      for (std::size_t k = 1; k < c.args.size(); ++k) {
        const auto& a = c.args[k];
        if (a == "PRIVATE" || a == "PUBLIC" || a == "INTERFACE") continue;
        for (const auto& v : expand(a)) source(target, absolute_of(v), c.arg_lines[k]);
      }
    } else if (c.name == "target_include_directories") {
      if (!is_host_target(c.args[0])) return;
      for (std::size_t k = 1; k < c.args.size(); ++k) {
        const auto& a = c.args[k];
        if (a == "PRIVATE" || a == "PUBLIC" || a == "INTERFACE" || a == "SYSTEM" || a == "BEFORE" || a == "AFTER") continue;
        for (const auto& v : expand(a)) include_dir(out_.host_include_dirs, absolute_of(v), c.arg_lines[k]);
      }
    } else if (c.name == "target_compile_definitions") {
      if (is_host_target(c.args[0])) definitions(c);
    } else if (c.name == "add_ops_compile_options") {
      for (std::size_t k = 0; k < c.args.size(); ++k) {
        std::string a = c.args[k];
        if (a == "-I" && k + 1 < c.args.size()) a = "-I" + c.args[++k];
        if (a.rfind("-I", 0) != 0 || a.size() == 2) continue;
        for (const auto& v : expand(a.substr(2))) include_dir(out_.kernel_include_dirs, absolute_of(v), c.arg_lines[k]);
      }
    }
  }

  void glob(const cmake_command& c) {
    const bool recurse = c.args[0] == "GLOB_RECURSE";
    const std::string var = c.args[1];
    std::vector<std::string> found;
    fs::path relative_to;
    for (std::size_t k = 2; k < c.args.size(); ++k) {
      const auto& a = c.args[k];
      if (a == "CONFIGURE_DEPENDS" || a == "LIST_DIRECTORIES") continue;
      if (a == "RELATIVE" && k + 1 < c.args.size()) {
        const auto v = expand(c.args[++k]);
        if (!v.empty()) relative_to = absolute_of(v.front());
        continue;
      }
      const int line = c.arg_lines[k];
      for (const auto& pattern : expand(a)) {
        const fs::path p = absolute_of(pattern);
        const fs::path dir = p.parent_path();
        const std::string name = p.filename().string();
        if (dir.string().find_first_of("*?[") != std::string::npos) {
          out_.warnings.push_back(where(line) + ": glob " + pattern + " has a wildcard in a directory; not followed");
          continue;
        }
        const fs::path real = confined(dir, line);
        if (real.empty()) continue;
        std::error_code e;
        if (!fs::is_directory(real, e)) continue;
        auto take = [&](const fs::path& f) {
          if (::fnmatch(name.c_str(), f.filename().c_str(), 0) != 0) return;
          const fs::path shown = dir / f.lexically_relative(real);
          found.push_back((relative_to.empty() ? shown : shown.lexically_relative(relative_to)).generic_string());
        };
        if (recurse) {
          for (auto it = fs::recursive_directory_iterator(real, e); !e && it != fs::recursive_directory_iterator(); it.increment(e)) {
            if (it->is_regular_file()) take(it->path());
          }
        } else {
          for (auto it = fs::directory_iterator(real, e); !e && it != fs::directory_iterator(); it.increment(e)) {
            if (it->is_regular_file()) take(it->path());
          }
        }
      }
    }
    std::sort(found.begin(), found.end());
    vars_[var] = found;
  }

  // A path relative to the materialized sources: package-relative inside the package, else under
  // shared_prefix (recording the shared files it brings); empty when it is not followed.
  std::string materialized(const fs::path& abs, int line, bool dir) {
    const fs::path real = confined(abs, line);
    if (real.empty()) return {};
    std::error_code e;
    if (dir ? !fs::is_directory(real, e) : !fs::is_regular_file(real, e)) return {};
    const fs::path pkg = fs::weakly_canonical(op_dir_, e);
    if (in_package(real, pkg)) {
      const std::string rel = real.lexically_relative(pkg).generic_string();
      return rel == "." ? std::string() : rel;
    }
    const std::string rel = real.lexically_relative(root_).generic_string();
    if (dir) {
      add_shared_tree(real, line);
    } else {
      add_shared(real);
      add_shared_dir_files(real.parent_path());
    }
    return shared_prefix + rel;
  }

  void include_dir(std::vector<std::string>& into, const fs::path& abs, int line) {
    const std::string rel = materialized(abs, line, true);
    if (!rel.empty() && std::find(into.begin(), into.end(), rel) == into.end()) into.push_back(rel);
  }

  void source(const std::string& target, const fs::path& abs, int line) {
    if (!is_compiled(abs)) return;  // headers listed as sources
    if (target == "opapi") {
      std::error_code e;
      const fs::path real = fs::weakly_canonical(abs, e);
      const fs::path pkg = fs::weakly_canonical(op_dir_, e);
      if (in_package(real, pkg)) out_.op_api_sources.insert(real.lexically_relative(pkg).generic_string());
      return;
    }
    if (!is_host_target(target)) return;
    out_.names_host_sources = true;
    const std::string rel = materialized(abs, line, false);
    if (!rel.empty() && target == "optiling") out_.tiling_sources.insert(rel);
    if (!rel.empty() && std::find(out_.host_sources.begin(), out_.host_sources.end(), rel) == out_.host_sources.end()) {
      out_.host_sources.push_back(rel);
    }
  }

  void add_shared(const fs::path& real) {
    const std::string rel = real.lexically_relative(root_).generic_string();
    if (!shared_.insert(rel).second) return;
    std::error_code e;
    bytes_ += fs::file_size(real, e);
    if (shared_.size() > max_shared_files || bytes_ > max_shared_bytes) {
      throw error(ec::invalid_spec, (op_dir_ / "CMakeLists.txt").string() + ": the directories and sources it names outside the package hold more than " +
                                        std::to_string(max_shared_files) + " source files or " + std::to_string(max_shared_bytes >> 20) +
                                        " MiB; name the directories the operator needs, not a whole tree");
    }
  }
  void add_shared_dir_files(const fs::path& dir) {
    std::error_code e;
    for (auto it = fs::directory_iterator(dir, e); !e && it != fs::directory_iterator(); it.increment(e)) {
      if (it->is_regular_file() && is_source_file(it->path())) add_shared(it->path());
    }
  }
  void add_shared_tree(const fs::path& dir, int line) {
    std::error_code e;
    for (auto it = fs::recursive_directory_iterator(dir, e); !e && it != fs::recursive_directory_iterator(); it.increment(e)) {
      if (!it->is_regular_file() || !is_source_file(it->path())) continue;
      // A link inside the directory leading out of the tree is not followed either.
      const fs::path real = fs::weakly_canonical(it->path(), e);
      if (e || !common::path_under(real.string(), root_.string())) {
        out_.warnings.push_back(where(line) + ": " + it->path().string() + " leads outside the tree root; not copied");
        e.clear();
        continue;
      }
      add_shared(it->path().lexically_normal());
    }
  }

  void finish() {
    out_.shared_files.assign(shared_.begin(), shared_.end());
  }

  fs::path op_dir_;
  fs::path root_;
  fs::path view_;
  std::map<std::string, std::vector<std::string>> vars_;
  std::set<std::string> shared_;
  std::vector<fs::path> library_sources_;  // other operators' sources tree_library_sources added
  std::uintmax_t bytes_ = 0;
  package_build out_;
};

}  // namespace

fs::path effective_tree_root(const fs::path& op_dir, const fs::path& tree_root) {
  if (!tree_root.empty()) return tree_root;
  std::error_code e;
  if (fs::is_regular_file(op_dir / carried_tree_file, e)) return op_dir / shared_prefix;
  return op_dir;
}

package_build read_package_build(const fs::path& op_dir, const fs::path& tree_root) {
  std::error_code e;
  const fs::path dir = fs::weakly_canonical(op_dir, e);
  const fs::path root = fs::weakly_canonical(effective_tree_root(op_dir, tree_root), e);
  fs::path view = dir;
  if (tree_root.empty() && root != dir) {  // the package carries its shared files
    std::string rel = common::read_text_file(op_dir / carried_tree_file, 4096);
    while (!rel.empty() && std::isspace(static_cast<unsigned char>(rel.back()))) rel.pop_back();
    if (!common::safe_relative_path(rel) || rel.find("..") != std::string::npos) {
      throw error(ec::invalid_spec, (op_dir / carried_tree_file).string() + ": \"" + rel +
                                        "\" is not a relative path inside the carried tree (e.g. src/foreach/foreach_abs); "
                                        "send the package again with aopt submit --tree DIR");
    }
    view = (root / rel).lexically_normal();
  }
  if (!common::path_under(view.string(), root.string())) {
    throw error(ec::invalid_argument, "--tree " + tree_root.string() + " does not contain the operator " + op_dir.string() +
                                          "; give a directory above the operator (e.g. the cann-ops checkout)");
  }
  return reader(dir, root, view).read();
}

std::map<std::string, std::string> carried_shared_files(const fs::path& op_dir, const fs::path& tree_root) {
  std::map<std::string, std::string> files;
  if (tree_root.empty()) return files;
  const package_build b = read_package_build(op_dir, tree_root);
  if (b.shared_files.empty()) return files;
  std::error_code e;
  const fs::path root = fs::weakly_canonical(tree_root, e);
  for (const auto& f : b.shared_files) files[shared_prefix + f] = common::read_text_file(root / f);
  files[carried_tree_file] = fs::weakly_canonical(op_dir, e).lexically_relative(root).generic_string() + "\n";
  return files;
}

}  // namespace aopt::evaluation

namespace aopt::evaluation {

namespace {

// The text with its comments blanked (and, with `literals`, its string and character literals'
// contents too), each blanked character a space and every newline kept: offsets and line
// numbers stay those of `text`.
std::string blanked(const std::string& text, bool literals) {
  std::string out = text;
  const auto blank = [&](std::size_t from, std::size_t to) {
    for (std::size_t k = from; k < to && k < out.size(); ++k) {
      if (out[k] != '\n') out[k] = ' ';
    }
  };
  for (std::size_t i = 0; i < text.size();) {
    if (text.compare(i, 2, "//") == 0) {
      const auto end = std::min(text.find('\n', i), text.size());
      blank(i, end);
      i = end;
    } else if (text.compare(i, 2, "/*") == 0) {
      const auto end = text.find("*/", i + 2);
      const auto stop = end == std::string::npos ? text.size() : end + 2;
      blank(i, stop);
      i = stop;
    } else if (text[i] == '"' || (text[i] == '\'' && (i == 0 || std::isalnum(static_cast<unsigned char>(text[i - 1])) == 0))) {
      // a literal whole (an include name); a quote after a digit separates digits (1'000)
      std::size_t k = i + 1;
      while (k < text.size() && text[k] != text[i] && text[k] != '\n') k += text[k] == '\\' ? 2 : 1;
      const auto stop = std::min(k + 1, text.size());
      if (literals) blank(i + 1, stop - 1);
      i = stop;
    } else {
      ++i;
    }
  }
  return out;
}

std::string without_comments(const std::string& text) { return blanked(text, false); }

// Headers the kernel may see as they are: the emulated tiling macros, the generated kernel
// tiling header, the tiling structs of the library APIs (the real kernel_tiling header holds them).
bool kernel_safe_include(const std::string& name) {
  return name == "register/tilingdata_base.h" || name.rfind("kernel_tiling/", 0) == 0 || name == "tiling/tiling_api.h";
}

}  // namespace

std::optional<std::string> kernel_tiling_view(const std::string& header, const std::function<std::string(const std::string&)>& read,
                                              const std::vector<std::string>& include_dirs, const std::vector<std::string>& more_headers) {
  static const std::regex inc(R"(#\s*include\s*([<"])([^>"]+)[>"])");
  std::vector<std::string> order;  // included files first, as the preprocessor meets them
  std::set<std::string> seen;
  std::function<void(const std::string&, int)> visit = [&](const std::string& file, int depth) {
    if (depth > 16 || !seen.insert(file).second) return;
    const std::string text = without_comments(read(file));
    for (auto it = std::sregex_iterator(text.begin(), text.end(), inc); it != std::sregex_iterator(); ++it) {
      const std::string name = (*it)[2].str();
      if (kernel_safe_include(name)) continue;
      if ((*it)[1].str() == "<" && name.find('/') == std::string::npos && name.find(".h") == std::string::npos) continue;  // <cstdint>
      if ((*it)[1].str() == "<" && (name == "stdint.h" || name == "stddef.h" || name == "string.h")) continue;
      std::string found;
      for (const auto& dir : [&] {
             std::vector<std::string> d = {fs::path(file).parent_path().generic_string()};
             d.insert(d.end(), include_dirs.begin(), include_dirs.end());
             return d;
           }()) {
        const std::string cand = (fs::path(dir) / name).lexically_normal().generic_string();
        if (!read(cand).empty()) {
          found = cand;
          break;
        }
      }
      if (!found.empty()) visit(found, depth + 1);  // else a CANN header (emulated, host-only): left out
    }
    order.push_back(file);
  };
  visit(header, 0);
  for (const auto& h : more_headers) visit(h, 0);
  static const std::regex block(R"(BEGIN_TILING_DATA_DEF\s*\(\s*(\w+)\s*\)[\s\S]*?END_TILING_DATA_DEF\s*;?)");
  static const std::regex reg(R"(REGISTER_TILING_DATA_CLASS\s*\(\s*(\w+)\s*,\s*\w+\s*\))");
  std::set<std::string> struct_names, op_types;  // each kept once, the first met
  // A constant in any order of its qualifiers (`static constexpr`, `constexpr static int`), or a
  // macro (`#define MAX_N 8`).
  static const std::regex constant(
      R"((?:(?:static|inline|constexpr|const)\s+)*(?:constexpr|const)\s+(?:(?:static|inline)\s+)*(?:unsigned\s+)?[\w:]+\s+(\w+)\s*=\s*([^;{}]+);)");
  static const std::regex macro(R"(#\s*define\s+(\w+)[ \t]+([^\n]+))");
  std::vector<std::string> blocks, regs;
  std::vector<std::pair<std::string, std::string>> constants;  // name, declaration
  bool structs = false;
  bool macro_registration = false;
  for (const auto& f : order) {
    const std::string text = without_comments(read(f));
    for (auto it = std::sregex_iterator(text.begin(), text.end(), block); it != std::sregex_iterator(); ++it) {
      if (!struct_names.insert((*it)[1].str()).second) continue;
      std::string b = it->str();
      if (b.back() != ';') b += ";";
      structs = structs || b.find("TILING_DATA_FIELD_DEF_STRUCT") != std::string::npos;
      blocks.push_back(b);
    }
    for (auto it = std::sregex_iterator(text.begin(), text.end(), reg); it != std::sregex_iterator(); ++it) {
      // Inside a #define, the registration goes through the header's own macro (its parameters
      // named, its use elsewhere): the header as it is, below.
      const auto line = text.rfind('\n', static_cast<std::size_t>(it->position()));
      const std::string head = text.substr(line == std::string::npos ? 0 : line + 1, 16);
      if (head.find_first_not_of(" \t") != std::string::npos && head[head.find_first_not_of(" \t")] == '#') macro_registration = true;
      if (!op_types.insert((*it)[1].str()).second) continue;
      regs.push_back(it->str());
    }
    for (auto it = std::sregex_iterator(text.begin(), text.end(), constant); it != std::sregex_iterator(); ++it) {
      constants.emplace_back((*it)[1].str(), it->str());
    }
    for (auto it = std::sregex_iterator(text.begin(), text.end(), macro); it != std::sregex_iterator(); ++it) {
      constants.emplace_back((*it)[1].str(), "= " + (*it)[2].str() + ";");  // the value, as a declaration reads
    }
  }
  if (blocks.empty() || macro_registration) return std::nullopt;  // a registration behind macros: the header as it is
  // An array size that names a constant gets the constant's value (and the values of the
  // constants that one names), as the generated kernel_tiling.h holds the sizes as numbers and
  // no constant: the host's constants stay out of the kernel's scope, where a kernel may declare
  // its own of the same name.
  std::map<std::string, std::string> values;  // the first declaration of each name, in file order
  for (const auto& [name, decl] : constants) {
    std::smatch m;
    if (std::regex_search(decl, m, std::regex("=\\s*([^;]+);")) && !values.count(name)) values[name] = m[1].str();
  }
  static const std::regex array_field(R"((TILING_DATA_FIELD_DEF_ARR\s*\(\s*[^,]+,)([^,]+)(,))");
  for (auto& b : blocks) {
    std::string rewritten;
    auto last = b.cbegin();
    for (auto it = std::sregex_iterator(b.begin(), b.end(), array_field); it != std::sregex_iterator(); ++it) {
      std::string size = (*it)[2].str();
      size.erase(0, size.find_first_not_of(" \t\n"));
      for (int depth = 0; depth < 16; ++depth) {  // a constant naming constants: their values too
        bool changed = false;
        for (const auto& [name, value] : values) {
          const std::regex word("\\b" + name + "\\b");
          if (!std::regex_search(size, word)) continue;
          size = std::regex_replace(size, word, "(" + value + ")");
          changed = true;
        }
        if (!changed) break;
      }
      rewritten.append(last, (*it)[0].first);
      rewritten += (*it)[1].str() + " " + size + (*it)[3].str();
      last = (*it)[0].second;
    }
    rewritten.append(last, b.cend());
    b = rewritten;
  }
  // Always the structs alone, also for a header that includes nothing host-only: the generated
  // kernel_tiling.h carries neither the host header's constants nor its include guard, which a
  // kernel header may share (ctc_loss_v3_grad's op_host and op_kernel headers both guard with
  // CTC_LOSS_V3_GRAD_H_: forced in as it is, the tiling header emptied the kernel's).
  std::string out = "// Generated by aopt: the kernel's view of " + header +
                    " (its tiling structs, as the real build's kernel_tiling header holds them; the host-only rest left out)\n"
                    "#pragma once\n#include \"register/tilingdata_base.h\"\n";
  if (structs) out += "#include \"tiling/tiling_api.h\"\n";
  out += "namespace optiling {\n";
  for (const auto& b : blocks) out += b + "\n";
  for (const auto& r : regs) out += r + "\n";
  return out + "}  // namespace optiling\n";
}

std::optional<std::string> kernel_launches_rewritten(const std::string& source) {
  const std::string code = blanked(source, true);
  const auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == ':'; };
  // Each launch as (callee start, "<<<" position, ">>>" position), found in the code only.
  std::vector<std::array<std::size_t, 3>> launches;
  for (std::size_t at = code.find("<<<"); at != std::string::npos; at = code.find("<<<", at + 3)) {
    std::size_t start = at;
    while (start > 0 && std::isspace(static_cast<unsigned char>(code[start - 1])) != 0) --start;
    const std::size_t name_end = start;
    while (start > 0 && ident(code[start - 1])) --start;
    if (start == name_end) continue;  // a shift, not a launch
    const auto close = code.find(">>>", at + 3);
    if (close == std::string::npos) break;
    std::size_t after = close + 3;
    while (after < code.size() && std::isspace(static_cast<unsigned char>(code[after])) != 0) ++after;
    if (after >= code.size() || code[after] != '(') continue;
    launches.push_back({start, at, close});
    at = close;
  }
  if (launches.empty()) return std::nullopt;
  std::string out = source;
  for (auto it = launches.rbegin(); it != launches.rend(); ++it) {
    out.replace((*it)[2], 3, ")");
    out.replace((*it)[1], 3, ", ");
    out.insert((*it)[0], "::aopt::sim::chevron_launch(");
  }
  return out;
}

}  // namespace aopt::evaluation
