// aopt.json (DESIGN.md section 4): the cases an operator is checked and timed on, tolerances,
// and the reference. Strict validation: every error names the file, line, field, what was wrong
// and what to do; unknown keys are warnings.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "aopt/evaluation/dtype.h"

namespace aopt::evaluation {

// Limits on what a spec may ask for (docs/evaluation.md, "Bad input").
inline constexpr std::size_t max_name_bytes = 128;                   // case, tensor, kernel names
inline constexpr std::int64_t max_tensor_elements = std::int64_t(1) << 40;
inline constexpr std::uintmax_t max_spec_file_bytes = 64u << 20;     // aopt.json, msOpST files
// Largest source file a package may hold, a C++ reference included (a larger one is an error
// naming it, not read).
inline constexpr std::uintmax_t max_source_file_bytes = 16u << 20;

struct tensor_spec {
  std::vector<std::int64_t> shape;       // empty = scalar (one element)
  dtype type = dtype::float16;
  std::optional<std::pair<double, double>> range;  // inclusive [lo, hi]
  std::vector<double> values{};          // given data (msOpST "value"), row-major; empty = generated
  // Generated non-decreasing ("sorted": true): element i of n is lo + (hi - lo + 1) i / n floored for
  // integers, lo + (hi - lo) i / n for floats: spread evenly over the range from its low end (the first
  // element is lo). For inputs a kernel requires sorted (sorted indices, offsets of bags or segments).
  bool sorted = false;
  // Elements; saturates at INT64_MAX instead of overflowing (a validated spec stays below
  // max_tensor_elements).
  std::int64_t numel() const;
};

struct input_spec {
  std::string name;
  bool is_list = false;                  // dynamic (tensor-list) input
  std::vector<tensor_spec> tensors;      // exactly one unless is_list
};

struct output_spec {                     // optional per-case override of an output
  std::string name;
  std::optional<std::vector<std::int64_t>> shape;
  std::optional<dtype> type;
  // A tensor-list (dynamic) output: one shape per element ("list": [{"shape": [...]}, ...]);
  // empty: as many as the case's first list input, shaped by InferShape or like its elements.
  std::vector<std::vector<std::int64_t>> list_shapes{};
};

struct case_spec {
  std::string name;
  bool timed = false;
  std::vector<input_spec> inputs;        // in file order
  std::vector<output_spec> outputs;
  nlohmann::json attrs = nlohmann::json::object();
};

struct tolerance_spec {
  struct entry {
    double rtol = 0;
    double atol = 0;
  };
  std::map<dtype, entry> per_dtype;      // explicit entries; defaults in for_dtype()
  double max_mismatch_ratio = 0.001;
  entry for_dtype(dtype t) const;
};

struct op_spec {
  std::string kernel;                    // kernel function / op file name, e.g. "add_custom"
  std::vector<case_spec> cases;
  tolerance_spec tolerance;
  // "baseline" or the absolute path (symbolic links resolved) of a .cpp file in the directory of
  // aopt.json or below it: a reference elsewhere is refused, so a package never reads the host.
  std::string reference = "baseline";
  std::optional<std::uint64_t> seed;     // default input seed
  std::vector<std::int64_t> timed_shape; // the timed case was scaled to this shape (empty: as written)
  std::filesystem::path source;          // aopt.json (or the msOpST file) it came from
  std::vector<std::string> warnings;     // unknown keys etc., each with file:line

  bool reference_is_baseline() const { return reference == "baseline"; }
  const case_spec* find_case(const std::string& name) const;
  // A canonical JSON form (used in candidate keys: formatting changes do not change the key).
  nlohmann::json to_json() const;
};

// Parses and validates aopt.json text (`file` names it in messages and anchors `reference`).
// Throws aopt::error(invalid_spec) / (parse_error) with "file:line:col: field: problem; fix".
op_spec parse_op_spec(const std::string& text, const std::filesystem::path& file);
op_spec load_op_spec(const std::filesystem::path& file);

// The timed case at another shape (aopt.json "timed_shape", `--timed-shape`): every tensor of the
// timed case shaped like its largest input, and every output override of that shape, takes
// `shape`; a tensor of the same rank whose dimensions are that shape's or 1 (a broadcast
// operand) keeps its 1s and takes the rest; every other tensor (a scalar, an index) keeps its
// shape. Records `shape` in spec.timed_shape. Throws aopt::error(invalid_spec) naming `origin`
// for an empty shape, a dimension below 1, more than max_tensor_elements, or a tensor to scale
// that has given values.
void set_timed_shape(op_spec& spec, const std::vector<std::int64_t>& shape, const std::string& origin);
// "64x32768", "64,32768" or "[64, 32768]" -> {64, 32768}. Throws aopt::error(invalid_argument)
// naming `what` (e.g. "--timed-shape") with what to write instead.
std::vector<std::int64_t> parse_shape_text(const std::string& text, const std::string& what);

// The bytes one case's tensors may take together (inputs plus the outputs whose shape the case
// gives): half the run's address-space limit, the rest left to the emulator and the check.
std::uint64_t case_bytes_limit(std::uint64_t address_space_bytes);
// Throws aopt::error(invalid_spec) naming the file, case, tensor, shape, bytes and limit when a
// case's tensors exceed case_bytes_limit(address_space_bytes); call before anything is allocated.
void check_case_memory(const op_spec& spec, std::uint64_t address_space_bytes);

// msOpST fuzz cases: a case with "fuzz_impl": "fuzz.py:function" (and "fuzz" in place of
// shapes, values and attribute values) whose fields a Python function fills in; see
// evaluation/fuzz.h for running it and docs/evaluation.md, "Package", for the format.
struct msopst_fuzz_request {
  std::size_t index = 0;               // the case's position in the file
  std::string case_name;
  std::string where;                   // "file:line:col" of the case
  std::filesystem::path script;        // absolute (the case file's directory / "fuzz.py")
  std::string function;
  std::uint32_t count = 1;             // fuzz_case_num: calls, one case each
  std::uint64_t seed = 1;              // numpy's seed for this case's calls
  std::string origin() const;          // "fuzz.py:function (numpy seed 3)"
};
inline constexpr std::uint32_t max_fuzz_case_num = 100;
// The fuzz cases of an msOpST file, in file order (none: an empty list). Pure: reads the text
// only. Case i's seed is i + 1. Throws aopt::error(invalid_spec) naming file, line and case for a
// malformed fuzz_impl (not "file.py:function", a path leaving the file's directory), a
// fuzz_case_num outside 1..max_fuzz_case_num, or "fuzz" fields without fuzz_impl.
std::vector<msopst_fuzz_request> msopst_fuzz_requests(const std::string& text, const std::filesystem::path& file);

// What one fuzz case's function returned, a dict per call: {"input_desc": {name: {"shape",
// "value"}}, "attr": {name: {"value"}}, "output_desc": {name: {"shape"}}}.
struct msopst_fuzz_output {
  std::string origin;                  // msopst_fuzz_request::origin()
  std::vector<nlohmann::ordered_json> calls;
};
using msopst_fuzz_outputs = std::map<std::size_t, msopst_fuzz_output>;  // by case index

// msOpST test-case JSON (a list of {case_name, op, input_desc, output_desc, attr, ...}). Entries
// whose `type` lists several dtypes expand to one case per column. A fuzz case takes its fields
// from `fuzz` (one case per call, named <case>_fuzz<k> when there are several; an error names
// file, case and function when a call's fields do not fit the case) and is skipped with a
// warning when `fuzz` lacks it. The first case is timed.
op_spec parse_msopst_cases(const std::string& text, const std::filesystem::path& file,
                           const std::string& kernel, const msopst_fuzz_outputs& fuzz = {});

}  // namespace aopt::evaluation
