// A backend turns a candidate into built artefacts (build) and runs one case on them (run).
// Failures of the candidate are data (build_result::ok, run_result::status); only faults of the
// evaluator itself throw aopt::error.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "aopt/common/subprocess.h"
#include "aopt/evaluation/candidate.h"
#include "aopt/evaluation/sandbox.h"

namespace aopt::evaluation {

struct build_result {
  bool ok = false;
  std::string stage;          // failing stage: "host", "kernel", "signature"
  std::string diagnostic;     // first compiler error line(s)
  std::string log;            // full compiler output (bounded)
  std::filesystem::path dir;  // build directory
  std::filesystem::path host_exe;
  nlohmann::json signature;   // `host --signature`
  std::map<std::size_t, std::filesystem::path> kernels;  // dtype column -> kernel .so
  double host_seconds = 0, kernel_seconds = 0, total_seconds = 0;
  bool speculation_hit = false;  // kernel compiled in parallel with the host on a predicted signature
  // Taken from the artifact cache (an identical host / every kernel built before): nothing compiled.
  bool host_reused = false, kernel_reused = false;
  // The compiler's word when it did not use the kernel PCH (-Winvalid-pch: "not used because
  // `X' is defined"): every kernel column then compiled from scratch, three times slower. Empty
  // when the PCH was used, nothing compiled, or there is none.
  std::string kernel_pch_rejected;
  // The candidate's run-time tunables as every host run gets them (AOPT_TUNABLES; empty: none).
  std::string tunables;
  // The prepared sandbox the runs of this build share (sim backend, isolation on; null
  // otherwise): host --signature and every case run. It ends with the last copy, or close().
  std::shared_ptr<common::sandbox_session> sandbox;
};

struct tensor_file {
  std::string name;
  dtype type = dtype::float16;
  std::vector<std::int64_t> shape;
  std::filesystem::path file;
  // An input the kernel wrote (in place): its final contents, compared like an output
  // (docs/harness-protocol.md, "Inputs the kernel writes").
  bool written_input = false;
};

struct run_input {
  std::string name;
  bool is_list = false;
  std::vector<tensor_file> tensors;
};

struct run_output_decl {
  std::string name;
  dtype type = dtype::float16;
  std::optional<std::vector<std::int64_t>> shape;
  std::size_t list_count = 0;  // DYNAMIC (tensor-list) output: number of tensors; 0 = plain
  // Per-element shapes of a list output when the case gives them (else InferShape decides).
  std::vector<std::vector<std::int64_t>> list_shapes{};
};

struct run_spec {
  std::size_t column = 0;
  std::vector<run_input> inputs;
  std::vector<run_output_decl> outputs;
  nlohmann::json attrs = nlohmann::json::object();
  bool timing = true;
  // Run the tiling only and report its facts (harness "screen": no GM, no kernel, no outputs).
  bool screen = false;
};

struct run_result {
  std::string status;         // ok, tiling_error, runtime_error, timeout, resource_error
  std::string diagnostic;
  std::vector<tensor_file> outputs;
  nlohmann::json harness;     // the harness's result (null when none came back)
  common::process_outcome process;
  bool trusted = true;        // false: the result channel was tampered with (never cached)
};

struct roofline_estimate {
  double bound_us = 0, launch_us = 0, memory_us = 0, vector_us = 0;
  bool memory_bound = false;
};

class backend {
 public:
  virtual ~backend() = default;
  virtual std::string name() const = 0;
  virtual std::string profile_name() const = 0;
  // Changes whenever results could change: toolchain, device profile contents.
  virtual std::string fingerprint() const = 0;
  // Builds the candidate in `dir` for the dtype columns `cases` need.
  virtual build_result build(const candidate& cand, const std::filesystem::path& dir,
                             const std::vector<const case_spec*>& cases) = 0;
  virtual run_result run(const build_result& built, const run_spec& spec, const std::filesystem::path& run_dir,
                         const common::sandbox_limits& limits) = 0;
  virtual std::optional<roofline_estimate> roofline(double bytes_read, double bytes_written,
                                                    double vector_repeats) const = 0;
};

// The case with each input/output name the OpDef does not declare replaced by the OpDef's name
// at the same index (msOpST matches by position); unchanged when the counts differ.
case_spec align_case(const case_spec& c, const nlohmann::json& signature);
// Chooses the OpDef dtype column for a case (all inputs' dtypes match). nullopt + `why` if none.
std::optional<std::size_t> select_column(const nlohmann::json& signature, const case_spec& c, std::string& why);
// Output declarations of a column (names, dtypes), with a case's overrides applied.
std::vector<run_output_decl> output_decls(const nlohmann::json& signature, std::size_t column, const case_spec& c);

// The first compiler error of a build log with the lines that locate it ("In file included
// from"), at most `max_lines`; the log's head when no line says "error".
std::string first_errors(const std::string& log, std::size_t max_lines = 12);

// Input tensors as the run requests list them (docs/harness-protocol.md): {"name", "shape",
// "dtype", "file"}, or {"name", "dtype", "list": [...]} for a tensor list.
nlohmann::json inputs_json(const std::vector<run_input>& inputs);

// The outputs a run reported (`outputs`: [{"name", "dtype", "shape", "file"} or {"name", "list":
// [...]}], files relative to `run_dir`) appended to rr.outputs, then the inputs the kernel wrote
// (`written_inputs`, same forms, written_input set; call it with the whole result); false with rr.status
// runtime_error and a diagnostic naming `where` when one is unusable.
bool take_outputs(const nlohmann::json& outputs, const std::filesystem::path& run_dir, const std::string& where, run_result& rr);

// The embedded `sim` backend (docs/harness-protocol.md). `profile` is a name or a .json path.
std::unique_ptr<backend> make_sim_backend(const std::string& profile, const sandbox_policy& policy = {});

}  // namespace aopt::evaluation
