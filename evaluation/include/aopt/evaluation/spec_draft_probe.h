// `aopt init OP_DIR`: builds the operator's host code on `sim`, reads its OpDef (`host
// --signature`), runs the tiling of each probe (spec_draft.h) in the harness's screen mode (no
// kernel, no GM beyond the inputs), runs the kernel once on the first the InferShape and
// TilingFunc accept, and writes the first that runs clean as the draft's timed case, then an
// unaligned tail case. docs/evaluation.md, "Drafting a spec".
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "aopt/evaluation/evaluator.h"

namespace aopt::evaluation {

struct draft_options {
  std::int64_t elements = std::int64_t(1) << 21;  // the timed case's size (about; `--elements`)
  std::size_t max_probes = 64;                    // timed-case probes tried at most
  // Run the kernel on each shape the tiling accepts (`--no-run`: false): a shape it fails on is
  // not drafted, and when every one fails at `elements`, 1/16 and 1/256 of it are tried.
  bool run_kernel = true;
  eval_options eval;                              // profile, sandbox, limits, work directory
  // Where the operator's CMakeLists may reach shared headers and sources (package_options).
  std::filesystem::path tree_root{};
};

struct probe_attempt {
  std::string case_name;   // "perf" or "tail"
  std::string what;        // the probe's description
  std::string shapes;      // "x [2048, 1024] float16, y [1] float16; attrs {...}"
  std::string status;      // ok, tiling_error, too_big, ...
  std::string diagnostic;  // what the tiling (or InferShape) said
  // too_big: the largest input's and that output's element counts (size_for_output).
  std::int64_t input_elements = 0;
  std::int64_t output_elements = 0;
};

struct spec_draft {
  bool ok = false;
  std::string kernel;
  std::string op_type;
  nlohmann::ordered_json spec;         // the draft aopt.json (when ok)
  std::vector<probe_attempt> attempts;
  std::string stage;                   // when not ok: "host" (does not compile), "signature", "column", "probe"
  std::string failure;                 // when not ok: one paragraph, what was tried and what was said
  std::string compile_diagnostic;      // stage "host"/"signature": the build's diagnostic
};

// Drafts OP_DIR's spec. Throws aopt::error for a directory that is not an operator package (as
// load_package does); every failure of the operator itself is in the result.
spec_draft draft_spec(const std::filesystem::path& op_dir, const draft_options& options);

// The failure as the lines `aopt init` prints: the stage, each probe tried with its shapes and
// what the tiling said (at most `max_lines` probes, then how many more).
std::string describe_failure(const spec_draft& d, std::size_t max_lines = 12);

}  // namespace aopt::evaluation
