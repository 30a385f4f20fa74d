// Compiled into aopt_evaluation and into the prebuilt reference main (no other dependency).
#include "aopt/evaluation/dtype.h"

#include <immintrin.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace aopt::evaluation {

const std::vector<std::string>& dtype_names() {
  static const std::vector<std::string> names = {"float16", "float32", "bfloat16", "int8",
                                                 "uint8",   "int16",   "uint16",   "int32",
                                                 "uint32",  "int64",   "uint64",   "bool",
                                                 "complex64"};
  return names;
}

std::optional<dtype> parse_dtype(std::string_view name) {
  const auto& names = dtype_names();
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return static_cast<dtype>(i);
  }
  return std::nullopt;
}

std::string dtype_name(dtype t) { return dtype_names()[static_cast<std::size_t>(t)]; }

std::size_t dtype_size(dtype t) {
  switch (t) {
    case dtype::float16: case dtype::bfloat16: case dtype::int16: case dtype::uint16: return 2;
    case dtype::float32: case dtype::int32: case dtype::uint32: return 4;
    case dtype::int64: case dtype::uint64: return 8;
    case dtype::int8: case dtype::uint8: case dtype::bool_: return 1;
    case dtype::complex64: return 8;
  }
  return 1;
}

bool is_float(dtype t) { return t == dtype::float16 || t == dtype::float32 || t == dtype::bfloat16; }

bool is_complex(dtype t) { return t == dtype::complex64; }

dtype component_type(dtype t) { return t == dtype::complex64 ? dtype::float32 : t; }

std::size_t components(dtype t) { return is_complex(t) ? 2 : 1; }

bool is_signed_int(dtype t) {
  return t == dtype::int8 || t == dtype::int16 || t == dtype::int32 || t == dtype::int64;
}

const char* cpp_type(dtype t) {
  switch (t) {
    case dtype::float16: return "half";
    case dtype::float32: return "float";
    case dtype::bfloat16: return "bfloat16_t";
    case dtype::int8: return "int8_t";
    case dtype::uint8: return "uint8_t";
    case dtype::int16: return "int16_t";
    case dtype::uint16: return "uint16_t";
    case dtype::int32: return "int32_t";
    case dtype::uint32: return "uint32_t";
    case dtype::int64: return "int64_t";
    case dtype::uint64: return "uint64_t";
    case dtype::bool_: return "bool";
    case dtype::complex64: return "complex64";
  }
  return "void";
}

const char* ge_type(dtype t) {
  switch (t) {
    case dtype::float16: return "ge::DT_FLOAT16";
    case dtype::float32: return "ge::DT_FLOAT";
    case dtype::bfloat16: return "ge::DT_BF16";
    case dtype::int8: return "ge::DT_INT8";
    case dtype::uint8: return "ge::DT_UINT8";
    case dtype::int16: return "ge::DT_INT16";
    case dtype::uint16: return "ge::DT_UINT16";
    case dtype::int32: return "ge::DT_INT32";
    case dtype::uint32: return "ge::DT_UINT32";
    case dtype::int64: return "ge::DT_INT64";
    case dtype::uint64: return "ge::DT_UINT64";
    case dtype::bool_: return "ge::DT_BOOL";
    case dtype::complex64: return "ge::DT_COMPLEX64";
  }
  return "ge::DT_UNDEFINED";
}

std::uint16_t float_to_half_bits(float f) {
  std::uint32_t x;
  std::memcpy(&x, &f, 4);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t absx = x & 0x7fffffffu;
  if (absx >= 0x7f800000u) {  // inf or NaN
    return static_cast<std::uint16_t>(sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u : 0u));
  }
  const int exp = static_cast<int>(absx >> 23) - 127;
  if (exp > 15) return static_cast<std::uint16_t>(sign | 0x7c00u);  // overflow -> inf
  if (exp >= -14) {  // normal half
    std::uint32_t mant = absx & 0x7fffffu;
    std::uint32_t h = (static_cast<std::uint32_t>(exp + 15) << 10) | (mant >> 13);
    const std::uint32_t rest = mant & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;  // may carry into inf: correct
    return static_cast<std::uint16_t>(sign | h);
  }
  if (exp < -25) return static_cast<std::uint16_t>(sign);  // underflow to zero
  // Subnormal half: value = mant_full * 2^(exp-23); half unit = 2^-24.
  const std::uint32_t mant_full = (absx & 0x7fffffu) | 0x800000u;
  const int s = 13 + (-14 - exp);
  std::uint32_t h = mant_full >> s;
  const std::uint32_t rest = mant_full & ((1u << s) - 1u);
  const std::uint32_t halfway = 1u << (s - 1);
  if (rest > halfway || (rest == halfway && (h & 1u))) ++h;
  return static_cast<std::uint16_t>(sign | h);
}

float half_bits_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1fu;
  const std::uint32_t mant = h & 0x3ffu;
  float f;
  if (exp == 0) {
    f = std::ldexp(static_cast<float>(mant), -24);
    if (sign) f = -f;
    return f;
  }
  std::uint32_t x;
  if (exp == 31) {
    x = sign | 0x7f800000u | (mant << 13);
  } else {
    x = sign | ((exp + 112u) << 23) | (mant << 13);
  }
  std::memcpy(&f, &x, 4);
  return f;
}

std::uint16_t float_to_bf16_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x7fffffu) != 0) {
    return static_cast<std::uint16_t>((u >> 16) | 0x40u);
  }
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<std::uint16_t>(u >> 16);
}

float bf16_bits_to_float(std::uint16_t b) {
  const std::uint32_t u = static_cast<std::uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

namespace {
template <class I>
I wrap_int(double v) {
  if (std::isnan(v)) return 0;
  const double t = std::trunc(v);
  // Wrap modulo 2^bits like a two's-complement conversion of an in-range 64-bit value.
  if (t >= -9.2e18 && t <= 9.2e18) return static_cast<I>(static_cast<std::int64_t>(t));
  if (t > 0 && t < 1.8e19) return static_cast<I>(static_cast<std::uint64_t>(t));
  return t > 0 ? std::numeric_limits<I>::max() : std::numeric_limits<I>::min();
}
}  // namespace

double round_to(dtype t, double v) {
  switch (t) {
    case dtype::float16: return half_bits_to_float(float_to_half_bits(static_cast<float>(v)));
    case dtype::bfloat16: return bf16_bits_to_float(float_to_bf16_bits(static_cast<float>(v)));
    case dtype::float32: case dtype::complex64: return static_cast<double>(static_cast<float>(v));
    case dtype::int8: return wrap_int<std::int8_t>(v);
    case dtype::uint8: return wrap_int<std::uint8_t>(v);
    case dtype::int16: return wrap_int<std::int16_t>(v);
    case dtype::uint16: return wrap_int<std::uint16_t>(v);
    case dtype::int32: return wrap_int<std::int32_t>(v);
    case dtype::uint32: return wrap_int<std::uint32_t>(v);
    case dtype::int64: return static_cast<double>(wrap_int<std::int64_t>(v));
    case dtype::uint64: return static_cast<double>(wrap_int<std::uint64_t>(v));
    case dtype::bool_: return v != 0 ? 1.0 : 0.0;
  }
  return v;
}

namespace {
template <class I>
void put(std::uint8_t* p, I v) {
  std::memcpy(p, &v, sizeof v);
}
template <class I>
I get(const std::uint8_t* p) {
  I v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
}  // namespace

std::vector<std::uint8_t> encode(dtype t, const std::vector<double>& values) {
  if (is_complex(t)) return encode(component_type(t), values);
  const std::size_t sz = dtype_size(t);
  std::vector<std::uint8_t> out(values.size() * sz);
  for (std::size_t i = 0; i < values.size(); ++i) {
    std::uint8_t* p = out.data() + i * sz;
    const double v = values[i];
    switch (t) {
      case dtype::float16: put(p, float_to_half_bits(static_cast<float>(v))); break;
      case dtype::bfloat16: put(p, float_to_bf16_bits(static_cast<float>(v))); break;
      case dtype::float32: put(p, static_cast<float>(v)); break;
      case dtype::int8: put(p, wrap_int<std::int8_t>(v)); break;
      case dtype::uint8: put(p, wrap_int<std::uint8_t>(v)); break;
      case dtype::int16: put(p, wrap_int<std::int16_t>(v)); break;
      case dtype::uint16: put(p, wrap_int<std::uint16_t>(v)); break;
      case dtype::int32: put(p, wrap_int<std::int32_t>(v)); break;
      case dtype::uint32: put(p, wrap_int<std::uint32_t>(v)); break;
      case dtype::int64: put(p, wrap_int<std::int64_t>(v)); break;
      case dtype::uint64: put(p, wrap_int<std::uint64_t>(v)); break;
      case dtype::bool_: put(p, static_cast<std::uint8_t>(v != 0 ? 1 : 0)); break;
      case dtype::complex64: break;  // encoded as its components above
    }
  }
  return out;
}

namespace {
__attribute__((target("f16c"))) void decode_half_f16c(const std::uint8_t* data, std::size_t count, double* out) {
  std::size_t i = 0;
  alignas(16) float f[4];
  for (; i + 4 <= count; i += 4) {
    _mm_store_ps(f, _mm_cvtph_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(data + i * 2))));
    for (int k = 0; k < 4; ++k) out[i + static_cast<std::size_t>(k)] = f[k];
  }
  for (; i < count; ++i) out[i] = half_bits_to_float(get<std::uint16_t>(data + i * 2));
}
}  // namespace

void decode_into(dtype t, const std::uint8_t* data, std::size_t count, double* out) {
  static const bool f16c = __builtin_cpu_supports("f16c");
  if (is_complex(t)) {
    decode_into(component_type(t), data, count * components(t), out);
    return;
  }
  if (t == dtype::float16 && f16c) {
    decode_half_f16c(data, count, out);
    return;
  }
  const std::size_t sz = dtype_size(t);
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint8_t* p = data + i * sz;
    switch (t) {
      case dtype::float16: out[i] = half_bits_to_float(get<std::uint16_t>(p)); break;
      case dtype::bfloat16: out[i] = bf16_bits_to_float(get<std::uint16_t>(p)); break;
      case dtype::float32: out[i] = get<float>(p); break;
      case dtype::int8: out[i] = get<std::int8_t>(p); break;
      case dtype::uint8: out[i] = get<std::uint8_t>(p); break;
      case dtype::int16: out[i] = get<std::int16_t>(p); break;
      case dtype::uint16: out[i] = get<std::uint16_t>(p); break;
      case dtype::int32: out[i] = get<std::int32_t>(p); break;
      case dtype::uint32: out[i] = get<std::uint32_t>(p); break;
      case dtype::int64: out[i] = static_cast<double>(get<std::int64_t>(p)); break;
      case dtype::uint64: out[i] = static_cast<double>(get<std::uint64_t>(p)); break;
      case dtype::bool_: out[i] = get<std::uint8_t>(p) != 0 ? 1.0 : 0.0; break;
      case dtype::complex64: break;  // decoded as its components above
    }
  }
}

std::vector<double> decode(dtype t, const std::uint8_t* data, std::size_t bytes) {
  const std::size_t sz = dtype_size(t);
  if (bytes % sz != 0) {
    throw std::runtime_error("tensor data of " + std::to_string(bytes) + " bytes is not a multiple of the " +
                             dtype_name(t) + " element size " + std::to_string(sz));
  }
  if (is_complex(t)) return decode(component_type(t), data, bytes);
  std::vector<double> out(bytes / sz);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::uint8_t* p = data + i * sz;
    switch (t) {
      case dtype::float16: out[i] = half_bits_to_float(get<std::uint16_t>(p)); break;
      case dtype::bfloat16: out[i] = bf16_bits_to_float(get<std::uint16_t>(p)); break;
      case dtype::float32: out[i] = get<float>(p); break;
      case dtype::int8: out[i] = get<std::int8_t>(p); break;
      case dtype::uint8: out[i] = get<std::uint8_t>(p); break;
      case dtype::int16: out[i] = get<std::int16_t>(p); break;
      case dtype::uint16: out[i] = get<std::uint16_t>(p); break;
      case dtype::int32: out[i] = get<std::int32_t>(p); break;
      case dtype::uint32: out[i] = get<std::uint32_t>(p); break;
      case dtype::int64: out[i] = static_cast<double>(get<std::int64_t>(p)); break;
      case dtype::uint64: out[i] = static_cast<double>(get<std::uint64_t>(p)); break;
      case dtype::bool_: out[i] = get<std::uint8_t>(p) != 0 ? 1.0 : 0.0; break;
      case dtype::complex64: break;  // decoded as its components above
    }
  }
  return out;
}

}  // namespace aopt::evaluation
