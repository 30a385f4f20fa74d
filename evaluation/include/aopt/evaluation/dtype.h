// Tensor element types as aopt.json names them, with their raw encodings (the harness's tensor
// files: little-endian element arrays, fp16/bf16 as 16-bit patterns, bool as one byte).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace aopt::evaluation {

enum class dtype : std::uint8_t {
  float16, float32, bfloat16, int8, uint8, int16, uint16, int32, uint32, int64, uint64, bool_,
  complex64  // two float32, real then imaginary; values, encode and decode count components
};

// The names accepted by aopt.json, in order.
const std::vector<std::string>& dtype_names();
std::optional<dtype> parse_dtype(std::string_view name);
std::string dtype_name(dtype t);
std::size_t dtype_size(dtype t);
bool is_float(dtype t);
bool is_signed_int(dtype t);
bool is_complex(dtype t);
// The type of one component: float32 for complex64, t itself otherwise; and how many an element has.
dtype component_type(dtype t);
std::size_t components(dtype t);
const char* cpp_type(dtype t);  // "half", "float", "bfloat16_t", "int32_t", "bool", ...
const char* ge_type(dtype t);   // "ge::DT_FLOAT16", ...

// Rounds v to the precision of t: round-to-nearest-even for floats, truncation toward zero
// with wrap-around for integers (as a C++ conversion does), v != 0 for bool.
double round_to(dtype t, double v);

// Raw encoding of `values` as the element type (values are rounded first; a complex type's values
// are its components, real and imaginary alternating).
std::vector<std::uint8_t> encode(dtype t, const std::vector<double>& values);
// Decoding of a raw buffer; the byte count must be a multiple of the element size.
std::vector<double> decode(dtype t, const std::uint8_t* data, std::size_t bytes);
// Decodes `count` elements (`count * components(t)` values) into `out` (no allocation; fp16 through F16C where the CPU has it).
void decode_into(dtype t, const std::uint8_t* data, std::size_t count, double* out);

std::uint16_t float_to_half_bits(float f);
float half_bits_to_float(std::uint16_t h);
std::uint16_t float_to_bf16_bits(float f);
float bf16_bits_to_float(std::uint16_t b);

}  // namespace aopt::evaluation
