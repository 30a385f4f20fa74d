// Deterministic input tensors from a case and a seed: uniform in `range` (default [-1, 1] for
// floats, small integers [-10, 10] / [0, 10] for integer types, 0/1 for bool), rounded to the
// dtype. Same (seed, case, input, index) -> same bytes on every machine.
//
// The stream is splitmix64 seeded by SHA-256 of (seed, case, input, index). splitmix64 is
// counter-based (element i depends only on the seed and i), so generate_tensor_into fills the
// raw buffer directly, in parallel chunks, with the same bytes generate_values + encode give.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "aopt/evaluation/spec.h"

namespace aopt::evaluation {

std::vector<double> generate_values(const tensor_spec& t, std::uint64_t seed, const std::string& case_name,
                                    const std::string& input_name, std::size_t index);
// The raw file content (generate_values then encode, bit for bit), built by generate_tensor_into.
std::vector<std::uint8_t> generate_tensor(const tensor_spec& t, std::uint64_t seed, const std::string& case_name,
                                          const std::string& input_name, std::size_t index);
// Writes numel * dtype_size bytes to `out`. `threads` 0 = as many as the machine has (used only
// for tensors of a million elements or more).
void generate_tensor_into(const tensor_spec& t, std::uint64_t seed, const std::string& case_name,
                          const std::string& input_name, std::size_t index, std::uint8_t* out, unsigned threads = 0);

// Identity of a generated tensor (generator version, seed, case, input, index, dtype, shape,
// range): the name of its file in the input cache.
std::string input_key(const tensor_spec& t, std::uint64_t seed, const std::string& case_name,
                      const std::string& input_name, std::size_t index);

}  // namespace aopt::evaluation
