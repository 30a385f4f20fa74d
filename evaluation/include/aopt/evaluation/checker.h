// Comparison of a candidate's outputs with the reference's, per dtype tolerance.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "aopt/evaluation/spec.h"

namespace aopt::evaluation {

struct output_check {
  std::string name;
  std::size_t elements = 0;
  std::size_t mismatches = 0;       // |a - b| > atol + rtol * |b| (NaN vs non-NaN counts)
  double max_abs_err = 0;
  double max_rel_err = 0;           // |a - b| / max(|b|, tiny)
  double mismatch_ratio = 0;
  std::int64_t first_mismatch = -1; // flat index, -1 when none
  double got_at_first = 0, want_at_first = 0;
  bool passed = true;
  // Elements the reference run never wrote (still holding the harness's fill, docs/harness-protocol.md):
  // not compared, not counted in `elements`. Only with compare_output_raw's reference_fill.
  std::size_t reference_unwritten = 0;
  // An input compared as written in place (or checked unchanged), not a declared output.
  bool input = false;
  std::string message;              // why it failed
  nlohmann::json to_json() const;
};

// The byte the sim harness fills every output buffer with before the kernel runs
// (docs/harness-protocol.md; sim/harness's output_junk): what a run never wrote still holds it.
inline constexpr std::uint8_t harness_output_fill = 0x7B;

// `got` and `want` decoded values of one output of dtype `t`.
output_check compare_output(const std::string& name, dtype t, const std::vector<double>& got,
                            const std::vector<double>& want, const tolerance_spec& tol);
// The same comparison on raw tensor bytes (as the harness writes them), with identical results:
// no decoded copies of whole tensors; blocks whose bytes are equal are skipped (they contribute
// no error), the rest are decoded block by block. With `reference_fill` (the byte the harness
// fills output buffers with before a run, when the reference is a run of the baseline package)
// and a floating dtype, elements of `want` whose every byte is that fill were never written by the
// reference: they are not compared and are counted in reference_unwritten.
output_check compare_output_raw(const std::string& name, dtype t, const std::uint8_t* got, std::size_t got_bytes,
                                const std::uint8_t* want, std::size_t want_bytes, const tolerance_spec& tol,
                                std::optional<std::uint8_t> reference_fill = std::nullopt);

}  // namespace aopt::evaluation
