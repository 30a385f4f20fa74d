// Scalar types of the AscendC kernel language: half, bfloat16_t, the GM address type.
// `half` is the native IEEE binary16 type of g++ (_Float16): every arithmetic operation on it is
// rounded to binary16, as on the chip. bfloat16_t is 16 bits with round-to-nearest-even
// conversion from float; arithmetic goes through float and rounds back.
#pragma once

#include <cstdint>
#include <type_traits>
#include <cstring>
#include "aopt_sim/cube_constants.h"
#ifndef AOPT_SIM_BLOCK_CUBE_DECLARED
#define AOPT_SIM_BLOCK_CUBE_DECLARED
AOPT_SIM_DECLARE_BLOCK_CUBE(std::int32_t)  // kernel side: signed (aopt_sim/cube_constants.h)
#endif

#if defined(__clang__) && __clang_major__ < 15
// clang 14 (libclang, used by search/motifs to parse kernels) has no _Float16 on x86-64: a
// 16-bit storage type with float conversions stands in. Only for parsing; g++ builds use _Float16.
struct half {
  std::uint16_t bits = 0;
  constexpr half() = default;
  half(float f);  // NOLINT: implicit like the hardware type
  half(double d) : half(static_cast<float>(d)) {}
  half(int v) : half(static_cast<float>(v)) {}
  operator float() const;  // NOLINT
};
#else
using half = _Float16;
#endif

struct bfloat16_t {
  std::uint16_t bits = 0;

  constexpr bfloat16_t() = default;
  bfloat16_t(float f) : bits(from_float(f)) {}  // NOLINT: implicit like the hardware type
  bfloat16_t(double d) : bfloat16_t(static_cast<float>(d)) {}
  bfloat16_t(int v) : bfloat16_t(static_cast<float>(v)) {}
  bfloat16_t(half h) : bfloat16_t(static_cast<float>(h)) {}

  static bfloat16_t from_bits(std::uint16_t b) {
    bfloat16_t r;
    r.bits = b;
    return r;
  }
  static std::uint16_t from_float(float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu) != 0) {
      return static_cast<std::uint16_t>((u >> 16) | 0x0040u);  // quiet NaN, keep sign
    }
    const std::uint32_t lsb = (u >> 16) & 1u;
    u += 0x7fffu + lsb;  // round to nearest, ties to even
    return static_cast<std::uint16_t>(u >> 16);
  }
  float ToFloat() const {
    std::uint32_t u = static_cast<std::uint32_t>(bits) << 16;
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
  }
  operator float() const { return ToFloat(); }  // NOLINT

  friend bfloat16_t operator+(bfloat16_t a, bfloat16_t b) { return bfloat16_t(a.ToFloat() + b.ToFloat()); }
  friend bfloat16_t operator-(bfloat16_t a, bfloat16_t b) { return bfloat16_t(a.ToFloat() - b.ToFloat()); }
  friend bfloat16_t operator*(bfloat16_t a, bfloat16_t b) { return bfloat16_t(a.ToFloat() * b.ToFloat()); }
  friend bfloat16_t operator/(bfloat16_t a, bfloat16_t b) { return bfloat16_t(a.ToFloat() / b.ToFloat()); }
  bfloat16_t& operator+=(bfloat16_t o) { return *this = *this + o; }
  bfloat16_t& operator-=(bfloat16_t o) { return *this = *this - o; }
  bfloat16_t& operator*=(bfloat16_t o) { return *this = *this * o; }
  bfloat16_t& operator/=(bfloat16_t o) { return *this = *this / o; }
  bfloat16_t operator-() const { return from_bits(static_cast<std::uint16_t>(bits ^ 0x8000u)); }
};

// The ACL spellings kernels also use (global, as in the CANN headers).
using float16_t = half;
using float32_t = float;

namespace AscendC {
using ::bfloat16_t;
using ::half;

// Scalar conversion of the kernel API (bfloat16_t to float; also accepts float and half).
inline float ToFloat(bfloat16_t v) { return v.ToFloat(); }
template <typename T>
inline float ToFloat(T v) { return static_cast<float>(v); }

// Scalar float -> bfloat16_t (round to nearest even), the basic API's scalar conversion.
inline bfloat16_t ToBfloat16(const float& fVal) { return bfloat16_t(fVal); }

// The bit pattern of a scalar, as the AscendC headers give it to kernels (a padding or fill value
// passed by its bits): GetScalarBitcodeValue(v) is v's bytes in the low bytes of a uint64_t, the
// rest zero; GetScalarBitcodeValue<T, U>(v) is v's bytes read as a U (bytes U has beyond T's zero).
// (__builtin_bit_cast, not std::bit_cast: kernels are compiled as C++17.)
template <typename T>
constexpr std::uint64_t GetScalarBitcodeValue(T scalarValue) {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= sizeof(std::uint64_t),
                "GetScalarBitcodeValue: T must be a scalar of at most 8 bytes");
  if constexpr (sizeof(T) == 8) {
    return __builtin_bit_cast(std::uint64_t, scalarValue);
  } else if constexpr (sizeof(T) == 4) {
    return __builtin_bit_cast(std::uint32_t, scalarValue);
  } else if constexpr (sizeof(T) == 2) {
    return __builtin_bit_cast(std::uint16_t, scalarValue);
  } else {
    return __builtin_bit_cast(std::uint8_t, scalarValue);
  }
}
template <typename T, typename U>
constexpr U GetScalarBitcodeValue(T scalarValue) {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_copyable_v<U>,
                "GetScalarBitcodeValue<T, U>: both must be scalars");
  if constexpr (sizeof(T) == sizeof(U)) {
    return __builtin_bit_cast(U, scalarValue);
  } else {
    U out{};
    std::memcpy(&out, &scalarValue, sizeof(T) < sizeof(U) ? sizeof(T) : sizeof(U));
    return out;
  }
}

// Compile-time type equality of the basic API (`IsSameType<T, half>::value`).
template <typename T, typename U>
struct IsSameType {
  static constexpr bool value = false;
};
template <typename T>
struct IsSameType<T, T> {
  static constexpr bool value = true;
};
// Compile-time choice of a type (`Conditional<cond, A, B>::type`), beside IsSameType; kernels
// name it (math/flash_attention_score_with_large_head_dim picks its Matmul type with it). Not in
// the public reference [ASSUMED: std::conditional's meaning, as its name and use say].
template <bool condition, typename TrueType, typename FalseType>
struct Conditional {
  using type = std::conditional_t<condition, TrueType, FalseType>;
};

// Constants of the AscendC headers that the data-movement API is specified in.
// (ONE_BLK_SIZE, shared with the host tilings: aopt_sim/cube_constants.h)
constexpr std::uint16_t DEFAULT_DATA_COPY_NBURST = 1;  // DataCopyParams::blockCount default
constexpr std::int32_t DEFAULT_C0_SIZE = 32;           // bytes of one fractal row (C0) / data block
constexpr std::uint16_t DEFAULT_DATA_COPY_STRIDE = 0;  // DataCopyParams gap default
// The buffer capacities of the arch kernels are compiled for (Atlas A2, dav_c220), in bytes, as
// kernels read them (`pipe_->InitBuffer(ubBuf_, TOTAL_UB_SIZE)`, mat_mul_v3 and the conv family);
// the same as sim's default launch (launch_options).
constexpr std::uint32_t TOTAL_UB_SIZE = 192 * 1024;
constexpr std::uint32_t TOTAL_L1_SIZE = 512 * 1024;
constexpr std::uint32_t TOTAL_L0A_SIZE = 64 * 1024;
constexpr std::uint32_t TOTAL_L0B_SIZE = 64 * 1024;
constexpr std::uint32_t TOTAL_L0C_SIZE = 128 * 1024;
constexpr std::uint32_t TOTAL_LOC_SIZE = TOTAL_L0C_SIZE;
// A named factor of the AscendC headers' utility constants (conv3d_backprop_input_v2 halves its UB
// with it: `TOTAL_UB_SIZE / HALF_FACTOR`).
constexpr std::int32_t HALF_FACTOR = 2;
}  // namespace AscendC
using AscendC::ToFloat;

// The 4-bit signed integer of the kernel API (global, as in the CANN headers): a storage type
// for int4 data, two per byte in a tensor; kernels name it in type tests and casts' templates.
struct int4b_t {
  std::uint8_t storage = 0;
};
namespace AscendC {
using ::int4b_t;  // kernels also name it AscendC::int4b_t (weight_quant_batch_matmul_v2's tool.h)
}

#ifndef __aicore__
#define __aicore__
#endif
#ifndef __global__
#define __global__
#endif
#ifndef __gm__
#define __gm__
#endif
#ifndef __ubuf__
#define __ubuf__
#endif
// The Cube's address-space qualifiers (asc-devkit docs/zh/guide/编程指南/语言扩展层/
// SIMD-BuiltIn关键字.md: __ca__ L0A, __cb__ L0B, __cc__ L0C, __cbuf__ L1, __fbuf__ the fixpipe
// buffer): one address space on sim, so they qualify nothing; the intrinsics that take them check
// which buffer the address lies in (cce_intrinsics.h).
#ifndef __ca__
#define __ca__
#endif
#ifndef __cb__
#define __cb__
#endif
#ifndef __cc__
#define __cc__
#endif
#ifndef __cbuf__
#define __cbuf__
#endif
#ifndef __fbuf__
#define __fbuf__
#endif
#ifndef __inline__
#define __inline__ inline
#endif
// Per-core storage of a namespace-scope variable (mat_mul_v3's `__BLOCK_LOCAL__ __inline__
// CallBackContext ctx;`): each emulated core runs on a thread of its own while it runs.
#ifndef __BLOCK_LOCAL__
#define __BLOCK_LOCAL__ thread_local
#endif
using GM_ADDR = std::uint8_t*;
