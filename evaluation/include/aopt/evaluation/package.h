// Operator packages (the layouts of docs ascendc/API.md) with their aopt.json.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "aopt/evaluation/sandbox.h"
#include "aopt/evaluation/spec.h"

namespace aopt::evaluation {

enum class package_layout { msopgen = 1, kernel_direct = 2, op_split = 3 };

struct op_package {
  std::filesystem::path dir;                    // absolute
  package_layout layout = package_layout::msopgen;
  std::vector<std::string> host_sources;        // relative to dir, e.g. "op_host/add_custom.cpp"
  std::string kernel_source;                    // relative, e.g. "op_kernel/add_custom.cpp"
  std::string tiling_header;                    // layout 1: "op_host/add_custom_tiling.h"; else empty
  // What the package's CMakeLists.txt adds (evaluation/package_build.h): include directories
  // relative to the materialized sources, and the files outside the package they reach, read-only,
  // relative to tree_root (materialized as shared_prefix + path; a host source or the tiling header
  // may be one of them).
  std::filesystem::path tree_root;              // absolute; the package itself unless --tree
  std::vector<std::string> host_include_dirs;
  std::vector<std::string> kernel_include_dirs;
  std::vector<std::string> host_definitions;  // -D of every host source (package_build.h)
  std::vector<std::string> shared_files;
  // The CMakeLists gives the tiling library (optiling) some host sources and a proto or
  // registration library (opsproto, op_host_aclnn*) others: the real build links them into
  // separate shared libraries, so a non-inline function both define (from a header both include)
  // is no clash there; sim's one host executable then takes the first definition.
  bool host_libraries_apart = false;
  std::filesystem::path spec_file;              // aopt.json or the msOpST file
  op_spec spec;

  // Every file that belongs to the operator's sources (op_host/, op_kernel/), relative paths,
  // sorted. These are what a candidate may replace and what its key hashes. Only source files
  // count (.cpp .cc .cxx .c .h .hh .hpp .hxx .inc .inl .ipp .tpp .json; other files, e.g. a
  // stray data file, are neither read nor copied into the work directory). Throws
  // aopt::error: invalid_spec for a source larger than max_source_file_bytes, io_error for an
  // unreadable directory or a symlink loop (the message names the path).
  std::vector<std::string> source_files() const;
};

// What a user may say about a package besides its files.
struct package_options {
  // An aopt.json to use instead of the package's own (`--spec`): cases and tolerances kept apart
  // from sources the user does not own (e.g. the real-operator bench's specs).
  std::filesystem::path spec_file;
  // The timed case at this shape (`--timed-shape`; see set_timed_shape). Empty: as the spec says.
  std::vector<std::int64_t> timed_shape;
  // Run an msOpST file's fuzz functions (evaluation/fuzz.h) in their own namespaces; false
  // (--no-sandbox, AOPT_SANDBOX=0): resource limits only.
  bool isolate = isolation_default();
  // Load the sources only (`aopt init`, which drafts the cases): no aopt.json or msOpST file is
  // looked for or read; spec.kernel is the kernel's name as the layout gives it, spec.cases empty.
  bool without_cases = false;
  // The directory the package's CMakeLists.txt may reach into for shared headers and sources
  // (`--tree`, `aopt corpus DIR`); empty: the package itself, nothing outside it is read.
  std::filesystem::path tree_root{};
};

// Loads OP_DIR: detects the layout, finds aopt.json (options.spec_file, else OP_DIR's, else its
// parent's, else msOpST cases under tests/st/, running their fuzz functions), validates it and the source files
// (source_files()), then scales the timed case when options.timed_shape says so. Throws
// aopt::error with file/line/what to do; never a std::filesystem or nlohmann exception.
op_package load_package(const std::filesystem::path& op_dir, const package_options& options = {});

}  // namespace aopt::evaluation
