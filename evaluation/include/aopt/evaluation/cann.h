// The `cann` backend: a candidate built, installed, run and profiled by the CANN toolchain of a
// real Ascend server, every external command a template of the command profile
// (config/cann.example.toml; docs/cann.md). Tested against the stand-in toolchain of tests/cann.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "aopt/evaluation/backend.h"

namespace aopt::evaluation {

// One external command: a shell command line with {placeholders}, run by /bin/sh -c after the
// toolkit's set_env.sh, killed (with its process group) after timeout_s.
struct cann_command {
  std::string line;
  double timeout_s = 600;
};

struct cann_profile {
  std::filesystem::path file;               // where it was read from (messages)
  std::string name = "cann";                // profile name in results ("910b4-site")
  std::filesystem::path toolkit;            // ASCEND_TOOLKIT_HOME, e.g. /usr/local/Ascend/ascend-toolkit/latest
  std::filesystem::path set_env;            // default: default_set_env(toolkit) (sourced before each command)
  std::string soc_version = "Ascend910B4";  // as msOpGen and ascendc want it
  int device = 0;                           // device id (npu-smi / aclrtSetDevice)
  std::string vendor = "customize";         // vendor name of the custom operator package
  std::filesystem::path project_template;   // msOpGen project of the operator (build.sh, CMake): copied, then op_host/op_kernel replaced
  cann_command build, install, run, profile;  // profile may be empty: no msprof op
  // Partial builds (docs/cann.md, "Partial builds") of a project built before, in place, each
  // copying what it rebuilt into the candidate's {install} (a copy of the package it starts
  // from): the tiling library only (a candidate whose kernel sources did not change), the
  // kernel binaries of the one SoC only (one whose host sources did not change). Empty: such a
  // candidate gets the full build and install.
  cann_command build_tiling, build_kernel;
  // Where built projects and installed packages are kept for reuse by later candidates (a
  // tiling-only candidate runs on the package of its build: no command at all). Empty: a
  // private directory under the temporary directory, removed when the process ends.
  std::filesystem::path build_store;
  std::size_t max_projects = 4;             // built projects kept per operator (one per concurrent builder)
  std::string ops_info = "{install}/vendors/{vendor}/op_impl/ai_core/tbe/config/{soc_short}/aic-{soc_short}-ops-info.json";
  int warmup = 5;                           // launches before timing (not measured)
  int repeat = 20;                          // timed samples (event timing) per run
  int launches = 10;                        // launches per sample, between one event pair
  std::map<std::string, std::string> environment;  // added to every command's environment
  // ACL error code -> status; codes not listed are runtime_error (the defaults: docs/cann.md).
  // Defaults: 507015 AICORE_EXCEPTION runtime_error, 507014 AICORE_TIMEOUT and 507046
  // STREAM_SYNC_TIMEOUT timeout, 207001 MEMORY_ALLOCATION and 507033 DEV_SETUP_ERROR (device busy)
  // resource_error, 561002 ACLNN_ERR_INNER_TILING_ERROR tiling_error; [acl_errors] adds or overrides.
  std::map<long, std::string> acl_status = {{507015, "runtime_error"}, {507014, "timeout"},      {507046, "timeout"},
                                            {207001, "resource_error"}, {507033, "resource_error"}, {561002, "tiling_error"}};

  // Throws aopt::error(invalid_spec) naming the file and key.
  void validate() const;
  // ascend910b from Ascend910B4: the directory name CANN uses under op_impl/.../config/.
  std::string soc_short() const;
};

// The toolkit's set_env.sh as CANN installs it: <toolkit>/set_env.sh (CANN 8.5 and later:
// /usr/local/Ascend/cann/set_env.sh), else the one beside it (8.0-8.3: the toolkit is
// .../ascend-toolkit/latest, the script .../ascend-toolkit/set_env.sh); <toolkit>/set_env.sh when
// neither exists.
std::filesystem::path default_set_env(const std::filesystem::path& toolkit);

// The toolkit directories a default install leaves under each of `roots` (/usr/local/Ascend,
// $HOME/Ascend), newest layout first: <root>/cann (8.5 and later), <root>/ascend-toolkit/latest
// (8.0-8.3).
std::vector<std::filesystem::path> default_toolkits(const std::vector<std::filesystem::path>& roots);

// The first of `candidates` whose default_set_env exists; nullopt when none.
std::optional<std::filesystem::path> find_toolkit(const std::vector<std::filesystem::path>& candidates);

// Reads a command profile (TOML). Throws aopt::error: not_found, parse_error (file:line:col),
// invalid_spec (file:line:col: [section] key: what is wrong; what to do).
cann_profile load_cann_profile(const std::filesystem::path& file);

// `tpl` with every {name} replaced by vars[name], shell-quoted unless `name` is in `raw` (a
// command line put inside another). Throws aopt::error(invalid_spec) naming `where` and the
// unknown placeholder.
std::string expand_command(const std::string& tpl, const std::map<std::string, std::string>& vars, const std::string& where,
                           const std::set<std::string>& raw = {});

// The ACL error code a failed CANN command printed ("error code 507015", "ERROR: 561103",
// "EZ9999"-prefixed lines carry the code after them); nullopt when none.
std::optional<long> find_acl_error_code(const std::string& text);

// The OpDef signature (docs/harness-protocol.md, "Running") from an installed package's
// aic-<soc>-ops-info.json. Throws aopt::error(invalid_spec) naming the file.
nlohmann::json signature_from_ops_info(const std::filesystem::path& file, const std::string& kernel);

// The fields of one CSV line of msprof op's output: comma-separated, double quotes, surrounding
// spaces and CR dropped.
std::vector<std::string> csv_fields(const std::string& line);

// A cell msprof op leaves without a value ("N/A": the cube columns of a vector-only kernel, a
// core that did not run; also "NA", "-", empty): an absent value, not an error.
bool msprof_absent(const std::string& cell);

// The newest OPPROF_* directory under `dir` parsed into msprof field names. OpBasicInfo.csv
// ("Task Duration(us)", "Block Dim", ...): its first data row. PipeUtilization.csv (one row per
// core: block_id, sub_block_id, "aiv_time(us)", "aiv_vec_ratio", ...): each column the mean over
// the cores that have a value (sim's fields are per-core means too), "msprof_cores" the row count
// and "core_times_us" each core's aiv_time(us) (aic_time(us) for a cube kernel), the per-core
// spread diagnosis reads. Numbers as numbers; N/A cells are absent. nullopt + `why` when a CSV is
// missing or malformed.
std::optional<nlohmann::json> read_msprof_op(const std::filesystem::path& dir, std::string& why);

// A run command line as msprof op must be given it: msprof looks a program without a path up in
// the current directory, not on PATH, so a first word without '/' becomes the absolute path bash
// finds for it (`"$(command -v WORD || echo WORD)"`, evaluated after set_env.sh).
std::string with_program_path(const std::string& command_line);

// The backend over `profile`. CANN commands need the device and the toolkit: they run with
// timeouts and output limits, not in the evaluator's namespaces (docs/cann.md, "Isolation").
std::unique_ptr<backend> make_cann_backend(const cann_profile& profile);

}  // namespace aopt::evaluation
