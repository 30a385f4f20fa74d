// What an operator package's own CMakeLists.txt says about its build (cann-ops idioms): the
// sources of its tiling and proto libraries, the sources it gives to the op_api library (never
// built), the include directories of its host libraries and of its kernel, and the files outside
// the package those reach (a shared directory such as cann-ops' src/common). Paths outside the
// package are read-only input and must lie inside the tree root (docs/evaluation.md, "The
// package's own build").
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace aopt::evaluation {

// The materialized location of a file outside the package: "aopt_shared/<path relative to the
// tree root>" beside op_host/ and op_kernel/ in the build's source directory.
inline constexpr const char* shared_prefix = "aopt_shared/";

// A package that carries its shared files (what `aopt submit --tree` uploads, so that aoptd and
// its nodes build it without the tree): OP_DIR/aopt_shared/<path under the tree root> for each
// shared file, and this file holding the package's own path under the tree root (one line,
// e.g. "src/foreach/foreach_abs"). Loaded without --tree, such a package's CMakeLists.txt is read
// as if the package stood at that path of a tree whose root is OP_DIR/aopt_shared.
inline constexpr const char* carried_tree_file = "aopt_shared/package_path";

// The tree root a package is built against: `tree_root` when given, else OP_DIR/aopt_shared when
// the package carries its shared files (carried_tree_file), else OP_DIR itself.
std::filesystem::path effective_tree_root(const std::filesystem::path& op_dir, const std::filesystem::path& tree_root);

// The files that make OP_DIR carry its shared files (relative path -> content): every shared file
// read_package_build(op_dir, tree_root) finds, under shared_prefix, and carried_tree_file. Empty
// when the package reaches nothing outside itself. Throws aopt::error as read_package_build does.
std::map<std::string, std::string> carried_shared_files(const std::filesystem::path& op_dir, const std::filesystem::path& tree_root);

struct package_build {
  // True when the CMakeLists.txt names the sources of a tiling/proto library (target_sources of
  // optiling, opsproto, op_host_aclnn*): then exactly those are the host sources.
  bool names_host_sources = false;
  // Package-relative ("op_host/x.cpp") or shared ("aopt_shared/src/common/...cpp") host sources;
  // with a sibling operator's header, the source its CMakeLists compiles beside it of the same name
  // (sibling_includes in package_build.cpp), even when this package names no host source.
  std::vector<std::string> host_sources;
  // The host sources given to the tiling library (target_sources(optiling ...)).
  std::set<std::string> tiling_sources;
  // Package-relative sources given to the op_api library (target_sources(opapi ...)).
  std::set<std::string> op_api_sources;
  // Include directories, relative to the materialized sources ("op_host", "aopt_shared/src/common/inc").
  std::vector<std::string> host_include_dirs;    // target_include_directories of the host libraries
  std::vector<std::string> kernel_include_dirs;  // add_ops_compile_options(... OPTIONS -I...)
  // NAME[=VALUE] definitions of the host libraries: target_compile_definitions of optiling,
  // opsproto, op_host_aclnn*, and of the tree's shared interface target ops_utils_tiling_headers.
  std::vector<std::string> host_definitions;
  // Files outside the package the build reads, relative to the tree root: every source file under
  // a shared include directory, each shared source and the source files of its directory, and each
  // file a quoted include of the package reaches by a relative path out of it (a sibling operator's
  // header, "../../sibling/op_host/x.h") with the files that one includes beside it; then the
  // package's place in the mirrored tree ("aopt_shared/<its path>/op_host") is a host include
  // directory. Such an include leading outside the tree root throws aopt::error(invalid_spec)
  // naming the file and line.
  std::vector<std::string> shared_files;
  // Paths the CMakeLists names that were not followed, each "CMakeLists.txt:LINE: why".
  std::vector<std::string> warnings;
};

// Reads OP_DIR/CMakeLists.txt (none: an empty package_build). `tree_root` (absolute, containing
// op_dir) bounds what may be read outside the package: a path that resolves (symbolic links
// followed) outside it is not followed and gets a warning. Variables: CMAKE_CURRENT_SOURCE_DIR
// (the package), CMAKE_SOURCE_DIR (the parent of the nearest ancestor named `src`, the cann-ops
// project root; else the tree root), OP_COMMON_DIR (${CMAKE_SOURCE_DIR}/src/common), set(),
// list(APPEND), file(GLOB|GLOB_RECURSE); any other variable (ASCEND_CANN_PACKAGE_PATH: the CANN
// headers, emulated by sim) leaves its argument out. Throws aopt::error(invalid_spec) when the
// shared files exceed max_shared_files or max_shared_bytes.
package_build read_package_build(const std::filesystem::path& op_dir, const std::filesystem::path& tree_root);

inline constexpr std::size_t max_shared_files = 4096;
inline constexpr std::uintmax_t max_shared_bytes = 64u << 20;

}  // namespace aopt::evaluation

namespace aopt::evaluation {

// The kernel's view of a tiling header, as the real build generates the kernel's kernel_tiling
// header from the registered struct: the text of a header holding only what the kernel sees, the
// tiling structs (BEGIN_TILING_DATA_DEF ... END_TILING_DATA_DEF) of `header` (a path relative to
// the materialized sources) and the headers it includes, each array size that names a constant
// replaced by the constant's value (the generated kernel_tiling.h holds numbers, no host
// constant), and their REGISTER_TILING_DATA_CLASS lines, in namespace optiling; none of the
// host-only headers it reaches (tiling/tiling_base.h, register/op_impl_registry.h), its constants
// or its include guard (which a kernel header may share). nullopt when no struct is found or the registration goes through the header's own macro (a
// registration behind macros: the header is force-included as it is). `read` returns a file's
// text ("" when absent); `include_dirs` are where quoted includes are looked up after the
// including file's directory. `more_headers`: the operator's other headers declaring tiling
// structs (op_host/*.h with BEGIN_TILING_DATA_DEF), whose structs the kernel sees too, as the real
// kernel_tiling header holds every struct registered for the operator (weight_quant_batch_matmul_v2
// names one struct per tiling key); a struct or an operator-type registration met twice is kept once,
// the first (the chosen header's) winning.
std::optional<std::string> kernel_tiling_view(const std::string& header,
                                              const std::function<std::string(const std::string&)>& read,
                                              const std::vector<std::string>& include_dirs,
                                              const std::vector<std::string>& more_headers = {});

// The kernel source with each launch `k<<<blockDim, l2ctrl, stream>>>(args)` (CCE's launch
// syntax, which the device compiler parses and the host compiler sim builds kernels with does
// not) written as `::aopt::sim::chevron_launch(k, blockDim, l2ctrl, stream)(args)`
// (aopt_sim/kernel/chevron_launch.h), everything else byte for byte where it was (a launch's
// line keeps its number). Launches in comments and literals are left alone. nullopt when the
// source launches nothing.
std::optional<std::string> kernel_launches_rewritten(const std::string& source);

}  // namespace aopt::evaluation
