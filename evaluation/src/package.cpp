#include "aopt/evaluation/package.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <regex>
#include <set>

#include "aopt/common/error.h"
#include "aopt/common/fs.h"
#include "aopt/common/log.h"
#include "aopt/evaluation/fuzz.h"
#include "aopt/evaluation/package_build.h"

namespace aopt::evaluation {

namespace fs = std::filesystem;

namespace {

bool is_source_name(const fs::path& p) {
  static const std::set<std::string> exts = {".cpp", ".cc", ".cxx", ".c", ".h", ".hh", ".hpp", ".hxx",
                                             ".inc", ".inl", ".ipp", ".tpp", ".json"};
  return exts.count(p.extension().string()) != 0;
}

// A std::filesystem failure while reading the package (unreadable directory, symlink loop,
// dangling link) as aopt::error(io_error) naming the path and what to do.
[[noreturn]] void throw_fs_error(const fs::filesystem_error& e) {
  const int code = e.code().value();
  const std::string fix = code == ELOOP    ? "a symbolic link loop: remove or fix the link"
                          : code == EACCES ? "permission denied: make it readable (chmod u+rX)"
                                           : "make it readable or remove it";
  throw error(ec::io_error, e.path1().string() + ": cannot read this part of the operator package (" +
                                e.code().message() + "); " + fix);
}

}  // namespace

std::vector<std::string> op_package::source_files() const {
  std::vector<std::string> files;
  try {
    for (const char* sub : {"op_host", "op_kernel"}) {
      const fs::path d = dir / sub;
      if (!fs::is_directory(d)) continue;
      for (const auto& e : fs::recursive_directory_iterator(d)) {
        if (!is_source_name(e.path()) || !e.is_regular_file()) continue;
        if (e.file_size() > max_source_file_bytes) {
          throw error(ec::invalid_spec, e.path().string() + ": " + std::to_string(e.file_size()) +
                                            " bytes, more than the limit of " + std::to_string(max_source_file_bytes) +
                                            " bytes for a source file; remove it from the package or make it smaller");
        }
        // Lexically: fs::relative would resolve a symlinked file to its target's path, outside
        // the package (and the candidate would be materialized outside its work directory).
        files.push_back(e.path().lexically_relative(dir).generic_string());
      }
    }
  } catch (const fs::filesystem_error& e) {
    throw_fs_error(e);
  }
  std::sort(files.begin(), files.end());
  return files;
}

namespace {

std::vector<fs::path> files_with(const fs::path& d, const std::string& suffix) {
  std::vector<fs::path> out;
  if (!fs::is_directory(d)) return out;
  for (const auto& e : fs::directory_iterator(d)) {
    const auto name = e.path().filename().string();
    if (e.is_regular_file() && name.size() >= suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      out.push_back(e.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The kernel source of op_kernel/: <hint>.cpp, else the only .cpp, else (several .cpp, no hint)
// the one named as the operator's directory, as cann-ops names them (rnn/dynamic_rnn's
// op_kernel/dynamic_rnn.cpp beside LstmFP16.cpp and LstmFP32.cpp).
fs::path pick_kernel_source(const fs::path& op_dir, const fs::path& kernel_dir, const std::string& hint) {
  if (!hint.empty() && fs::is_regular_file(kernel_dir / (hint + ".cpp"))) return kernel_dir / (hint + ".cpp");
  const auto cpps = files_with(kernel_dir, ".cpp");
  if (cpps.size() == 1) return cpps.front();
  const fs::path by_dir = kernel_dir / (op_dir.filename().string() + ".cpp");
  if (hint.empty() && fs::is_regular_file(by_dir)) return by_dir;
  throw error(ec::not_found, kernel_dir.string() + ": cannot tell which .cpp is the kernel" +
                                 (hint.empty() ? std::string() : " (no " + hint + ".cpp)") +
                                 "; name it op_kernel/<kernel>.cpp with <kernel> as in aopt.json's \"kernel\"");
}

// The OpDef class of the host sources (`class AddCustom : public OpDef`), "" when none.
std::string opdef_type(const std::vector<std::string>& texts) {
  static const std::regex cls(R"(class\s+(\w+)\s*:\s*public\s+(?:ops\s*::\s*)?OpDef\b)");
  for (const auto& t : texts) {
    std::smatch m;
    if (std::regex_search(t, m, cls)) return m[1].str();
  }
  return {};
}

// msOpST case files: tests/st/**/*.json holding a list of objects with "case_name".
fs::path find_msopst(const fs::path& dir) {
  const fs::path st = dir / "tests" / "st";
  if (!fs::is_directory(st)) return {};
  std::vector<fs::path> found;
  for (const auto& e : fs::recursive_directory_iterator(st)) {
    if (!e.is_regular_file() || e.path().extension() != ".json") continue;
    std::string text;
    try {
      text = common::read_text_file(e.path(), max_spec_file_bytes);
    } catch (const error&) {
      continue;
    }
    if (text.find("\"case_name\"") != std::string::npos && text.find("\"input_desc\"") != std::string::npos) {
      found.push_back(e.path());
    }
  }
  std::sort(found.begin(), found.end());
  return found.empty() ? fs::path() : found.front();
}

// Phase 1: the operator directory, canonical; a suite operator directory (aopt.json,
// reference.cpp, baseline/ and often expert/: the packages are its subdirectories) refused.
fs::path operator_directory(const fs::path& op_dir_in) {
  std::error_code e;
  const fs::path op_dir = fs::weakly_canonical(fs::absolute(op_dir_in), e);
  if (!fs::is_directory(op_dir)) {
    throw error(ec::not_found, op_dir_in.string() + ": not a directory; pass the operator package directory (holding op_host/ and op_kernel/)");
  }
  std::vector<std::string> inside;
  const bool is_package = fs::is_directory(op_dir / "op_host") && fs::is_directory(op_dir / "op_kernel");
  for (const char* sub : {"baseline", "expert"}) {
    if (is_package) break;
    if (fs::is_directory(op_dir / sub / "op_host") && fs::is_directory(op_dir / sub / "op_kernel")) {
      inside.push_back((op_dir / sub).string());
    }
  }
  if (!inside.empty()) {
    throw error(ec::invalid_argument,
                op_dir.string() + ": a suite operator directory (its packages are subdirectories); pass the package: " +
                    inside.front() + (inside.size() > 1 ? " (or " + inside[1] + ")" : std::string()));
  }
  return op_dir;
}

// Phase 2: the spec file: --spec, else aopt.json in OP_DIR, else in its parent (a suite puts
// baseline/ and expert/ beside one aopt.json); none when the package is loaded without cases.
fs::path spec_file_of(const fs::path& op_dir, const package_options& options) {
  fs::path spec_file;
  if (!options.spec_file.empty()) {
    spec_file = fs::absolute(options.spec_file).lexically_normal();
    if (!fs::is_regular_file(spec_file)) {
      throw error(ec::not_found, options.spec_file.string() + ": no such file; --spec takes an aopt.json (docs/evaluation.md)");
    }
  }
  for (const fs::path& cand : {op_dir / "aopt.json", op_dir.parent_path() / "aopt.json"}) {
    if (spec_file.empty() && fs::is_regular_file(cand)) spec_file = cand;
  }
  if (options.without_cases) spec_file.clear();
  return spec_file;
}

// Phase 3: op_host/ and op_kernel/ exist (else say which layout this looks like), and the host
// sources there: .cpp and .cc (cann-ops keeps tiling and InferShape in .cc files too).
std::vector<fs::path> host_source_files(const fs::path& op_dir) {
  const fs::path host_dir = op_dir / "op_host";
  if (!fs::is_directory(host_dir) || !fs::is_directory(op_dir / "op_kernel")) {
    const bool has_cpp = !files_with(op_dir, ".cpp").empty();
    if (has_cpp) {
      throw error(ec::unsupported, op_dir.string() +
                                       ": looks like a kernel-direct project (layout 2: a kernel .cpp launched with "
                                       "ICPU_RUN_KF/ACLRT_LAUNCH_KERNEL), which aopt does not support yet; convert it to the "
                                       "msOpGen layout (op_host/<op>_tiling.h, op_host/<op>.cpp, op_kernel/<op>.cpp)");
    }
    throw error(ec::not_found, op_dir.string() + ": no op_host/ and op_kernel/ directories; pass an operator package "
                                                 "in the msOpGen layout (op_host/, op_kernel/) or the op_host/op_tiling.cpp layout");
  }
  auto host_cpps = files_with(host_dir, ".cpp");
  for (const auto& cc : files_with(host_dir, ".cc")) host_cpps.push_back(cc);
  std::sort(host_cpps.begin(), host_cpps.end());
  if (host_cpps.empty()) throw error(ec::not_found, host_dir.string() + ": no .cpp or .cc files (the tiling function and OpDef live here)");
  return host_cpps;
}

// Phase 4: the package's own build (its CMakeLists.txt): which sources its tiling and proto
// libraries compile, what it gives to the op_api library, the include directories and the shared
// files outside the package they reach (inside the tree root only). A package that carries its
// shared files (aopt submit --tree) is its own tree.
void follow_package_build(op_package& pkg, const std::vector<fs::path>& host_cpps, const package_options& options) {
  const fs::path& op_dir = pkg.dir;
  std::error_code e;
  const fs::path tree = options.tree_root.empty() ? fs::path() : fs::absolute(options.tree_root);
  pkg.tree_root = fs::weakly_canonical(effective_tree_root(op_dir, tree), e);
  const package_build build = read_package_build(op_dir, tree);
  for (const auto& w : build.warnings) common::logger()->warn("{}: {}", op_dir.string(), w);
  pkg.host_include_dirs = build.host_include_dirs;
  pkg.kernel_include_dirs = build.kernel_include_dirs;
  pkg.host_definitions = build.host_definitions;
  pkg.shared_files = build.shared_files;
  if (build.names_host_sources) {
    // Exactly what the CMakeLists gives to optiling, opsproto and op_host_aclnn*: not the aclnn
    // L0 sources of opapi, nor a stray source no library compiles.
    pkg.host_sources = build.host_sources;
    const auto tiling = [&](const std::string& s) { return build.tiling_sources.count(s) != 0; };
    pkg.host_libraries_apart = std::any_of(pkg.host_sources.begin(), pkg.host_sources.end(), tiling) &&
                               !std::all_of(pkg.host_sources.begin(), pkg.host_sources.end(), tiling);
    // The OpDef registration (OP_ADD) always: the OpDef is what the aclnn generation reads, and
    // some operators leave its source out of (or comment it out of) their CMakeLists
    // (cann-ops' add_layer_norm_quant_def.cpp).
    for (const auto& p : host_cpps) {
      const std::string rel = p.lexically_relative(op_dir).generic_string();
      if (std::find(pkg.host_sources.begin(), pkg.host_sources.end(), rel) != pkg.host_sources.end() ||
          p.filename().string().rfind("aclnn_", 0) == 0 || build.op_api_sources.count(rel)) {
        continue;
      }
      if (common::read_text_file(p, max_source_file_bytes).find("OP_ADD(") != std::string::npos) pkg.host_sources.push_back(rel);
    }
  } else {
    for (const auto& p : host_cpps) {
      // aclnn_<op>.cpp is the operator's aclnn API (the op_api library the application links),
      // not part of the tiling/registration code the host build runs; so is every source the
      // package's CMakeLists.txt gives to that library (`target_sources(opapi ...)`, e.g. the
      // level-0 API <op>_l0.cpp).
      const std::string rel = p.lexically_relative(op_dir).generic_string();
      if (p.filename().string().rfind("aclnn_", 0) == 0 || build.op_api_sources.count(rel)) continue;
      pkg.host_sources.push_back(rel);
    }
    // A sibling operator's source implementing a header the package includes from it.
    for (const auto& s : build.host_sources) {
      if (s.rfind(shared_prefix, 0) == 0) pkg.host_sources.push_back(s);
    }
  }
  if (pkg.host_sources.empty()) {
    throw error(ec::not_found, (op_dir / "CMakeLists.txt").string() + ": names no host source aopt can build (target_sources of optiling, "
                               "opsproto or op_host_aclnn*); the tiling function and OpDef must be among them");
  }
}

// The operator's type when no header of op_host/ declares a tiling struct: its OpDef class, else
// (an OpDef declared through a macro, FOREACH_OPDEF_BEGIN(Abs)) the kernel's name in CamelCase,
// as msOpGen names them (foreach_abs -> ForeachAbs).
std::string operator_type(const op_package& pkg, const std::string& kernel_hint) {
  std::vector<std::string> texts;
  for (const auto& h : pkg.host_sources) {
    if (h.rfind(shared_prefix, 0) != 0) texts.push_back(common::read_text_file(pkg.dir / h));
  }
  std::string type = opdef_type(texts);
  if (!type.empty()) return type;
  std::string stem = kernel_hint;
  const auto kcpps = files_with(pkg.dir / "op_kernel", ".cpp");
  if (stem.empty() && kcpps.size() == 1) stem = kcpps.front().stem().string();
  bool up = true;
  for (char ch : stem) {
    if (ch == '_') {
      up = true;
      continue;
    }
    type += up ? static_cast<char>(std::toupper(static_cast<unsigned char>(ch))) : ch;
    up = false;
  }
  return type;
}

// A header registering a shared tiling struct for the operator's type: one of op_host/ first
// (cann-ops' foreach_v2 idiom: <op>_tiling_def.h includes foreach_tiling_def.h and registers its
// ForeachCommonTilingData), then the shared headers the CMakeLists reaches (cann-ops' foreach:
// src/common/inc/.../foreach_tiling_def.h). Refused naming what was looked for when none does.
std::string registered_tiling_header(const op_package& pkg, const std::string& kernel_hint) {
  const fs::path host_dir = pkg.dir / "op_host";
  const std::string type = operator_type(pkg, kernel_hint);
  if (!type.empty()) {
    const std::regex reg("REGISTER_TILING_DATA_CLASS\\s*\\(\\s*" + type + "\\s*,");
    for (const auto& h : files_with(host_dir, ".h")) {
      if (std::regex_search(common::read_text_file(h, max_source_file_bytes), reg)) {
        return h.lexically_relative(pkg.dir).generic_string();
      }
    }
    for (const auto& f : pkg.shared_files) {
      const fs::path p = pkg.tree_root / f;
      if (p.extension() != ".h" && p.extension() != ".hpp") continue;
      if (std::regex_search(common::read_text_file(p), reg)) return shared_prefix + f;
    }
  }
  throw error(ec::not_found, host_dir.string() + ": no header of op_host/ declares the tiling struct (BEGIN_TILING_DATA_DEF ...), nor "
                             "does a header of the include directories its CMakeLists.txt adds register one for " +
                             (type.empty() ? std::string("its OpDef") : type) +
                             "; layout 1 needs one, e.g. op_host/<op>_tiling.h (a shared directory outside the operator is read "
                             "only inside --tree DIR)");
}

// The kernel's tiling struct is the one the host library registers, from the headers its sources
// compile. A chosen op_host header that no host source includes while a host source includes, by
// a quoted path, a header registering the operator's type (REGISTER_TILING_DATA_CLASS(<type>, ...))
// is a stale copy: conv3d_transpose_v2's own conv3d_transpose_v2_tiling.h lacks fields that the
// header its tiling source includes, ../../conv3d_backprop_input_v2/op_host/..._tiling.h, has and
// its kernel reads. That included header (a shared file) is the tiling header then.
std::optional<std::string> included_registering_header(const op_package& pkg, const std::string& kernel_hint, const fs::path& chosen) {
  const std::string type = operator_type(pkg, kernel_hint);
  if (type.empty()) return std::nullopt;
  static const std::regex quoted(R"re(#\s*include\s*"([^"]+)")re");
  const std::regex reg("REGISTER_TILING_DATA_CLASS\\s*\\(\\s*" + type + "\\s*,");
  const std::string name = chosen.filename().string();
  std::optional<std::string> found;
  for (const auto& h : pkg.host_sources) {
    if (h.rfind(shared_prefix, 0) == 0) continue;
    const fs::path src = pkg.dir / h;
    const std::string text = common::read_text_file(src, max_source_file_bytes);
    for (std::sregex_iterator m(text.begin(), text.end(), quoted), end; m != end; ++m) {
      const std::string inc = (*m)[1].str();
      if (fs::path(inc).filename() == name) return std::nullopt;  // the chosen header is compiled
      if (found || pkg.tree_root.empty()) continue;
      std::error_code e;
      const fs::path real = fs::weakly_canonical(src.parent_path() / inc, e);
      const fs::path root = fs::weakly_canonical(pkg.tree_root, e);
      const std::string rel = real.lexically_relative(root).generic_string();
      if (e || rel.empty() || rel.rfind("..", 0) == 0 ||
          std::find(pkg.shared_files.begin(), pkg.shared_files.end(), rel) == pkg.shared_files.end()) {
        continue;
      }
      if (std::regex_search(common::read_text_file(real, max_source_file_bytes), reg)) found = shared_prefix + rel;
    }
  }
  return found;
}

// Phase 5: the layout and the tiling header: <kernel>_tiling.h, another *_tiling.h, a header
// of op_host/ with BEGIN_TILING_DATA_DEF, a header of op_kernel/ a host source includes, else a
// registered shared struct. The kernel hint
// (aopt.json's "kernel") is taken from <hint>_tiling.h's name when the spec gives none.
void choose_tiling_header(op_package& pkg, std::string& kernel_hint) {
  const fs::path host_dir = pkg.dir / "op_host";
  if (fs::is_regular_file(host_dir / "op_tiling.cpp") || fs::is_regular_file(host_dir / "op_def.cpp")) {
    pkg.layout = package_layout::op_split;
    return;
  }
  pkg.layout = package_layout::msopgen;
  auto tilings = files_with(host_dir, "_tiling.h");
  if (tilings.empty()) {
    // The tiling struct may live in any header of op_host/ (e.g. <op>.h, tiling_data.h).
    for (const auto& h : files_with(host_dir, ".h")) {
      if (common::read_text_file(h, max_source_file_bytes).find("BEGIN_TILING_DATA_DEF") != std::string::npos) tilings.push_back(h);
    }
  }
  if (tilings.empty()) {
    // A tiling struct of plain C++ in op_kernel/ that a host source includes from there
    // (`#include "../op_kernel/<op>_tiling.h"`: the host fills it with GetTilingData<T>(), the
    // kernel names it in REGISTER_TILING_DEFAULT(T); cann-ops' matmul_all_reduce).
    static const std::regex from_kernel(R"re(#\s*include\s*"\.\./op_kernel/([A-Za-z0-9_.-]+\.h)")re");
    for (const auto& h : pkg.host_sources) {
      if (h.rfind(shared_prefix, 0) == 0) continue;
      const std::string text = common::read_text_file(pkg.dir / h, max_source_file_bytes);
      for (std::sregex_iterator m(text.begin(), text.end(), from_kernel), end; m != end; ++m) {
        const fs::path k = pkg.dir / "op_kernel" / (*m)[1].str();
        if (fs::is_regular_file(k) && std::find(tilings.begin(), tilings.end(), k) == tilings.end()) tilings.push_back(k);
      }
    }
  }
  if (tilings.empty()) {
    pkg.tiling_header = registered_tiling_header(pkg, kernel_hint);
    return;
  }
  fs::path chosen = tilings.front();
  if (!kernel_hint.empty() && fs::is_regular_file(host_dir / (kernel_hint + "_tiling.h"))) chosen = host_dir / (kernel_hint + "_tiling.h");
  pkg.tiling_header = chosen.lexically_relative(pkg.dir).generic_string();
  // A <kernel>_tiling.h with no tiling struct of its own that does not include the header
  // registering the operator's struct (weight_quant_batch_matmul_v2: the tiling class there, the
  // struct in <op>_tiling_data.h, which the tiling sources include) would bring host-only headers
  // into the kernel: the registering header is the kernel's tiling header then.
  if (const auto used = included_registering_header(pkg, kernel_hint, chosen)) {
    pkg.tiling_header = *used;
    return;
  }
  const std::string chosen_text = common::read_text_file(chosen, max_source_file_bytes);
  if (chosen_text.find("BEGIN_TILING_DATA_DEF") == std::string::npos) {
    try {
      const std::string registered = registered_tiling_header(pkg, kernel_hint);
      const std::string name = fs::path(registered).filename().string();
      if (registered != pkg.tiling_header && chosen_text.find("\"" + name + "\"") == std::string::npos &&
          chosen_text.find("/" + name + "\"") == std::string::npos) {
        pkg.tiling_header = registered;
      }
    } catch (const error&) {
      // no header registers the struct: the chosen one stays
    }
  }
  const auto stem = chosen.filename().string();
  const std::string suffix = "_tiling.h";
  if (kernel_hint.empty() && stem.size() > suffix.size() && stem.compare(stem.size() - suffix.size(), suffix.size(), suffix) == 0) {
    kernel_hint = stem.substr(0, stem.size() - suffix.size());
  }
}

// Phase 6: the cases: the spec file's (read already), else the msOpST case files under
// tests/st/ (their fuzz cases run), else refused; --timed-shape applied.
void load_cases(op_package& pkg, const fs::path& spec_file, const std::string& kernel_hint, const package_options& options) {
  if (options.without_cases) {
    pkg.spec.kernel = kernel_hint;
  } else if (spec_file.empty()) {
    const fs::path st = find_msopst(pkg.dir);
    if (st.empty()) {
      throw error(ec::not_found, pkg.dir.string() + ": no aopt.json here or in " + pkg.dir.parent_path().string() +
                                     ", and no msOpST case file under tests/st/; write an aopt.json with the cases "
                                     "(see docs/evaluation.md)");
    }
    const std::string text = common::read_text_file(st, max_spec_file_bytes);
    fuzz_run_options fuzz_options;
    fuzz_options.isolate = options.isolate;
    const auto fuzz = run_msopst_fuzz(msopst_fuzz_requests(text, st), st, pkg.dir, fuzz_options);
    pkg.spec = parse_msopst_cases(text, st, kernel_hint, fuzz);
    pkg.spec_file = st;
  }
  if (!options.timed_shape.empty() && !options.without_cases) {
    set_timed_shape(pkg.spec, options.timed_shape, "--timed-shape (" + pkg.spec_file.string() + ")");
  }
}

op_package load_package_unchecked(const fs::path& op_dir_in, const package_options& options) {
  op_package pkg;
  pkg.dir = operator_directory(op_dir_in);
  const fs::path spec_file = spec_file_of(pkg.dir, options);
  std::string kernel_hint;
  if (!spec_file.empty()) {
    pkg.spec = load_op_spec(spec_file);
    pkg.spec_file = spec_file;
    kernel_hint = pkg.spec.kernel;
  }
  const auto host_cpps = host_source_files(pkg.dir);
  follow_package_build(pkg, host_cpps, options);
  choose_tiling_header(pkg, kernel_hint);
  const fs::path kernel_src = pick_kernel_source(pkg.dir, pkg.dir / "op_kernel", kernel_hint);
  pkg.kernel_source = kernel_src.lexically_relative(pkg.dir).generic_string();
  if (kernel_hint.empty()) kernel_hint = kernel_src.stem().string();
  load_cases(pkg, spec_file, kernel_hint, options);
  pkg.source_files();  // the size and readability checks, now rather than at the first evaluation
  for (const auto& w : pkg.spec.warnings) common::logger()->warn("{}", w);
  return pkg;
}

}  // namespace

op_package load_package(const fs::path& op_dir_in, const package_options& options) {
  try {
    return load_package_unchecked(op_dir_in, options);
  } catch (const fs::filesystem_error& e) {
    throw_fs_error(e);
  }
}

}  // namespace aopt::evaluation
