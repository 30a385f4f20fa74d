// Deterministic input tensors from a case and a seed: uniform in `range` (default [-1, 1] for
// floats, small integers [-10, 10] / [0, 10] for integer types, 0/1 for bool), rounded to the
// dtype. Same (seed, case, input, index) -> same bytes on every machine.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "aopt/evaluation/spec.h"

namespace aopt::evaluation {

std::vector<double> generate_values(const tensor_spec& t, std::uint64_t seed, const std::string& case_name,
                                    const std::string& input_name, std::size_t index);
// generate_values then encode: the raw file content.
std::vector<std::uint8_t> generate_tensor(const tensor_spec& t, std::uint64_t seed, const std::string& case_name,
                                          const std::string& input_name, std::size_t index);

}  // namespace aopt::evaluation
