// Running the fuzz functions of an msOpST case file (spec.h, msopst_fuzz_request): each case's
// function in a sandboxed Python interpreter with numpy seeded, its calls' dicts returned as JSON
// for parse_msopst_cases. docs/evaluation.md, "Package", describes the format and the errors.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "aopt/evaluation/spec.h"

namespace aopt::evaluation {

// The interpreter fuzz functions run in: $AOPT_PYTHON when set (a path, or a name looked up in
// PATH), else /usr/bin/python3 when present (Debian's, where python3-numpy installs), else
// python3 from PATH. Returns an absolute path when it can resolve one.
std::string fuzz_python();

struct fuzz_run_options {
  bool isolate = true;             // own namespaces (sandbox.h); false: resource limits only
  double timeout_seconds = 60;     // wall clock per case (all its calls)
  std::uint64_t memory_bytes = std::uint64_t(4) << 30;  // address space
};

// Runs every request's function `count` times in one interpreter per case, with the script's
// directory on sys.path, numpy's and random's seed set to the request's seed, and a read-only
// view of `op_dir` (the package; the script must be below it). Throws aopt::error naming the
// case file, case and function when python3 or numpy is missing (what to install), the script
// is missing or raises (its traceback's last lines), times out, exceeds its limits, or prints
// something that is not a list of `count` dicts.
msopst_fuzz_outputs run_msopst_fuzz(const std::vector<msopst_fuzz_request>& requests, const std::filesystem::path& case_file,
                                    const std::filesystem::path& op_dir, const fuzz_run_options& options = {});

}  // namespace aopt::evaluation
