// `aopt corpus DIR`: every operator of a cann-ops-style tree evaluated unchanged with its own
// msOpST cases (tests/st/*.json), each failure classified, tables in Markdown and JSON.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "aopt/evaluation/evaluator.h"

namespace aopt::evaluation {

// Why an operator does not evaluate ok. "ok" when it does.
//   missing_api  the emulated headers lack something the operator uses (compile error)
//   semantics    it compiles but the emulator behaves unlike the chip (tiling, hardware error,
//                wrong values, a crash)
//   timing       the timing model stops it (replay errors: deadlock, double SetFlag, SyncAll)
//   limits       too slow or too big to emulate within the limits (timeout, memory)
//   import       the package or its msOpST cases cannot be read (layout, case file)
//   operator_bug the operator is wrong on the chip too (only from a notes file: a judgement)
//   cube         unsupported: the operator uses a part of the Cube unit sim does not emulate yet
//                (the first error says which: cube_missing)
//   aicpu        unsupported: an AI CPU operator (no op_kernel/ AI Core kernel)
inline constexpr const char* corpus_causes[] = {"ok",     "missing_api",  "semantics", "timing", "limits",
                                                "import", "operator_bug", "cube",      "aicpu"};

struct corpus_entry {
  std::string op;           // path relative to the tree's root, e.g. "math/abs"
  std::string status;       // the evaluation status, "load_error" or "unsupported"
  std::string cause;        // one of corpus_causes
  std::string first_error;  // the first error line of the diagnostic ("" when ok)
  std::string note;         // from the notes file: what was found out about it
  double seconds = 0;
  // Where its cases came from: "msopst" (its tests/st files), "aopt.json" (its own), "init" (a
  // spec `aopt init` drafted, kept under corpus_options::specs_dir), "" (unsupported, not run).
  std::string cases;
  nlohmann::json to_json() const;
  static corpus_entry from_json(const nlohmann::json& j);
};

// Operator directories below `root`, sorted by relative path: every directory holding op_kernel/
// or op_host/ and at least one tests/st/*.json, and (unless `msopst_only`) every directory whose
// op_host/ holds a .cpp or .cc file (the operators without msOpST cases, drafted by `aopt init`).
std::vector<std::filesystem::path> find_corpus_operators(const std::filesystem::path& root, bool msopst_only = false);
// Whether `op_dir` ships msOpST cases (a tests/st/*.json).
bool has_msopst_cases(const std::filesystem::path& op_dir);

// "cube" when the kernel sources use a part of the Cube unit sim does not emulate yet (kernels on
// the emulated primitives, Mmad/LoadData/Fixpipe, are evaluated), "aicpu" when there is no AI
// Core kernel, else "".
std::string unsupported_unit(const std::filesystem::path& op_dir);
// Why unsupported_unit refuses, for the table: "uses the Cube unit; sim still lacks: ..." or the
// AI CPU sentence; "" when it does not.
std::string unsupported_reason(const std::filesystem::path& op_dir);
// The Cube-unit features the kernel sources `kernel` use that sim does not emulate, one phrase
// each; empty when the kernel uses none (or does not use the Cube unit).
std::vector<std::string> cube_missing(const std::string& kernel);

// The first line of `diagnostic` that says what went wrong ("error:" lines first), trimmed.
std::string first_error_line(const std::string& diagnostic);

// The cause of one evaluation's failure (see corpus_causes).
std::string classify_failure(const eval_result& r);

struct corpus_options {
  std::filesystem::path root;
  std::filesystem::path json_out;       // results, rewritten after each operator
  std::filesystem::path markdown_out;   // the table, rewritten after each operator
  std::filesystem::path notes_file;     // optional: {"math/neg": {"cause": "...", "note": "..."}}
  unsigned jobs = 1;
  bool rerun = false;                   // evaluate operators already in json_out again
  std::vector<std::string> only;        // evaluate only these relative paths (empty = all)
  // Operators without msOpST cases or aopt.json get a spec drafted by `aopt init`
  // (spec_draft_probe.h), written to <specs_dir>/<op>/aopt.json (empty: a temporary directory);
  // msopst_only skips them as before.
  bool msopst_only = false;
  std::filesystem::path specs_dir;
  std::int64_t init_elements = std::int64_t(1) << 21;
  eval_options eval;
  // Called after each operator (from the worker that ran it; calls are serialised).
  std::function<void(const corpus_entry&, std::size_t done, std::size_t total)> progress;
};

struct corpus_report {
  std::vector<corpus_entry> entries;  // sorted by op
  std::map<std::string, std::size_t> by_cause() const;
  nlohmann::json to_json() const;
  std::string to_markdown() const;
};

// Evaluates the tree (resuming from json_out unless rerun), writes both tables, returns them.
corpus_report run_corpus(const corpus_options& o);

}  // namespace aopt::evaluation
