#include "aopt/evaluation/inputs.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <thread>

#include "aopt/common/sha256.h"

namespace aopt::evaluation {

namespace {

constexpr std::uint64_t golden = 0x9e3779b97f4a7c15ULL;

inline std::uint64_t mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Element i of the splitmix64 stream started at state s: the (i+1)-th next().
inline std::uint64_t nth(std::uint64_t s, std::uint64_t i) { return mix(s + (i + 1) * golden); }
inline double unit_of(std::uint64_t r) { return static_cast<double>(r >> 11) * 0x1.0p-53; }  // [0, 1)

struct splitmix64 {
  std::uint64_t s;
  std::uint64_t next() { return mix(s += golden); }
  double unit() { return unit_of(next()); }
};

std::uint64_t stream_seed(std::uint64_t seed, const std::string& c, const std::string& in, std::size_t idx) {
  common::sha256 h;
  h.field("aopt-inputs-v1").field(std::to_string(seed)).field(c).field(in).field(std::to_string(idx));
  const auto d = h.finish();
  std::uint64_t s = 0;
  for (int i = 0; i < 8; ++i) s = (s << 8) | d[i];
  return s;
}

struct int_range {
  double lo, span;
  std::uint64_t n;
};

int_range int_range_of(const tensor_spec& t) {
  double lo = is_signed_int(t.type) ? -10 : 0;
  double hi = 10;
  if (t.range) {
    lo = std::ceil(t.range->first);
    hi = std::floor(t.range->second);
    if (hi < lo) hi = lo;
  }
  return {lo, hi - lo, static_cast<std::uint64_t>(hi - lo) + 1};
}

// Float element value exactly as generate_values computes it before rounding.
inline float float_value(std::uint64_t s, std::uint64_t i, double lo, double hi) {
  return static_cast<float>(lo + (hi - lo) * unit_of(nth(s, i)));
}

// The conversion encode() applies to a rounded value (same rules as dtype.cpp: truncation,
// two's-complement wrap-around, saturation beyond 64 bits), so the bytes match bit for bit.
template <class I>
I encode_int(double v) {
  if (std::isnan(v)) return 0;
  const double t = std::trunc(v);
  if (t >= -9.2e18 && t <= 9.2e18) return static_cast<I>(static_cast<std::int64_t>(t));
  if (t > 0 && t < 1.8e19) return static_cast<I>(static_cast<std::uint64_t>(t));
  return t > 0 ? std::numeric_limits<I>::max() : std::numeric_limits<I>::min();
}

template <class I>
void fill_int(std::uint8_t* out, std::uint64_t s, std::uint64_t from, std::uint64_t to, const int_range& r, dtype t) {
  for (std::uint64_t i = from; i < to; ++i) {
    const I x = encode_int<I>(round_to(t, r.lo + static_cast<double>(nth(s, i) % r.n)));
    std::memcpy(out + i * sizeof(I), &x, sizeof(I));
  }
}

__attribute__((target("f16c"))) void fill_half_f16c(std::uint8_t* out, std::uint64_t s, std::uint64_t from,
                                                    std::uint64_t to, double lo, double hi) {
  std::uint64_t i = from;
  alignas(16) float f[4];
  for (; i + 4 <= to; i += 4) {
    for (int k = 0; k < 4; ++k) f[k] = float_value(s, i + static_cast<std::uint64_t>(k), lo, hi);
    const __m128i h = _mm_cvtps_ph(_mm_load_ps(f), _MM_FROUND_TO_NEAREST_INT);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out + i * 2), h);
  }
  for (; i < to; ++i) {
    const std::uint16_t b = float_to_half_bits(float_value(s, i, lo, hi));
    std::memcpy(out + i * 2, &b, 2);
  }
}

bool have_f16c() {
  static const bool yes = __builtin_cpu_supports("f16c");
  return yes;
}

// Element i of n of a sorted tensor (tensor_spec::sorted), before rounding to its dtype: evenly
// spread over the range from its low end, non-decreasing.
double sorted_value(const tensor_spec& t, std::uint64_t i, std::uint64_t n) {
  if (is_float(t.type)) {
    const double lo = t.range ? t.range->first : -1.0;
    const double hi = t.range ? t.range->second : 1.0;
    return lo + (hi - lo) * static_cast<double>(i) / static_cast<double>(n);
  }
  const auto r = int_range_of(t);
  // i * r.n / n without overflow: r.n and n both fit in 64 bits, their product may not.
  const auto step = static_cast<std::uint64_t>((static_cast<unsigned __int128>(i) * r.n) / n);
  return r.lo + static_cast<double>(step);
}

template <class I>
void fill_sorted_int(std::uint8_t* out, const tensor_spec& t, std::uint64_t from, std::uint64_t to, std::uint64_t n) {
  for (std::uint64_t i = from; i < to; ++i) {
    const I x = encode_int<I>(round_to(t.type, sorted_value(t, i, n)));
    std::memcpy(out + i * sizeof(I), &x, sizeof(I));
  }
}

void fill_sorted(const tensor_spec& t, std::uint64_t from, std::uint64_t to, std::uint8_t* out) {
  const auto n = static_cast<std::uint64_t>(t.numel());
  switch (t.type) {
    case dtype::float16:
    case dtype::bfloat16:
      for (std::uint64_t i = from; i < to; ++i) {
        const auto f = static_cast<float>(sorted_value(t, i, n));
        const std::uint16_t b = t.type == dtype::float16 ? float_to_half_bits(f) : float_to_bf16_bits(f);
        std::memcpy(out + i * 2, &b, 2);
      }
      return;
    case dtype::float32:
      for (std::uint64_t i = from; i < to; ++i) {
        const auto f = static_cast<float>(sorted_value(t, i, n));
        std::memcpy(out + i * 4, &f, 4);
      }
      return;
    case dtype::int8: fill_sorted_int<std::int8_t>(out, t, from, to, n); return;
    case dtype::uint8: fill_sorted_int<std::uint8_t>(out, t, from, to, n); return;
    case dtype::int16: fill_sorted_int<std::int16_t>(out, t, from, to, n); return;
    case dtype::uint16: fill_sorted_int<std::uint16_t>(out, t, from, to, n); return;
    case dtype::int32: fill_sorted_int<std::int32_t>(out, t, from, to, n); return;
    case dtype::uint32: fill_sorted_int<std::uint32_t>(out, t, from, to, n); return;
    case dtype::int64: fill_sorted_int<std::int64_t>(out, t, from, to, n); return;
    case dtype::uint64: fill_sorted_int<std::uint64_t>(out, t, from, to, n); return;
    default: return;  // bool is never sorted (fill_range); complex comes as its float components
  }
}

void fill_range(const tensor_spec& t, std::uint64_t s, std::uint64_t from, std::uint64_t to, std::uint8_t* out) {
  if (t.sorted && t.type != dtype::bool_) {
    fill_sorted(t, from, to, out);
    return;
  }
  if (t.type == dtype::bool_) {
    for (std::uint64_t i = from; i < to; ++i) out[i] = static_cast<std::uint8_t>(nth(s, i) >> 63);
    return;
  }
  if (is_float(t.type)) {
    const double lo = t.range ? t.range->first : -1.0;
    const double hi = t.range ? t.range->second : 1.0;
    switch (t.type) {
      case dtype::float16:
        if (have_f16c()) {
          fill_half_f16c(out, s, from, to, lo, hi);
        } else {
          for (std::uint64_t i = from; i < to; ++i) {
            const std::uint16_t b = float_to_half_bits(float_value(s, i, lo, hi));
            std::memcpy(out + i * 2, &b, 2);
          }
        }
        return;
      case dtype::bfloat16:
        for (std::uint64_t i = from; i < to; ++i) {
          const std::uint16_t b = float_to_bf16_bits(float_value(s, i, lo, hi));
          std::memcpy(out + i * 2, &b, 2);
        }
        return;
      default:
        for (std::uint64_t i = from; i < to; ++i) {
          const float f = float_value(s, i, lo, hi);
          std::memcpy(out + i * 4, &f, 4);
        }
        return;
    }
  }
  const auto r = int_range_of(t);
  switch (t.type) {
    case dtype::int8: fill_int<std::int8_t>(out, s, from, to, r, t.type); break;
    case dtype::uint8: fill_int<std::uint8_t>(out, s, from, to, r, t.type); break;
    case dtype::int16: fill_int<std::int16_t>(out, s, from, to, r, t.type); break;
    case dtype::uint16: fill_int<std::uint16_t>(out, s, from, to, r, t.type); break;
    case dtype::int32: fill_int<std::int32_t>(out, s, from, to, r, t.type); break;
    case dtype::uint32: fill_int<std::uint32_t>(out, s, from, to, r, t.type); break;
    case dtype::int64: fill_int<std::int64_t>(out, s, from, to, r, t.type); break;
    case dtype::uint64: fill_int<std::uint64_t>(out, s, from, to, r, t.type); break;
    default: break;
  }
}

}  // namespace

// A complex tensor as the float tensor of its components (its innermost dimension of 2: real,
// imaginary): generated, encoded and compared as such.
static tensor_spec as_components(const tensor_spec& t) {
  tensor_spec c = t;
  c.type = component_type(t.type);
  c.shape.push_back(static_cast<std::int64_t>(components(t.type)));
  return c;
}

std::vector<double> generate_values(const tensor_spec& t, std::uint64_t seed, const std::string& case_name,
                                    const std::string& input_name, std::size_t index) {
  if (is_complex(t.type)) return generate_values(as_components(t), seed, case_name, input_name, index);
  if (!t.values.empty()) {
    std::vector<double> v = t.values;
    for (auto& x : v) x = round_to(t.type, x);
    return v;
  }
  splitmix64 rng{stream_seed(seed, case_name, input_name, index)};
  const auto n = static_cast<std::size_t>(t.numel());
  std::vector<double> v(n);
  if (t.sorted && t.type != dtype::bool_) {
    for (std::size_t i = 0; i < n; ++i) v[i] = round_to(t.type, sorted_value(t, i, n));
    return v;
  }
  if (t.type == dtype::bool_) {
    for (auto& x : v) x = static_cast<double>(rng.next() >> 63);
    return v;
  }
  if (is_float(t.type)) {
    const double lo = t.range ? t.range->first : -1.0;
    const double hi = t.range ? t.range->second : 1.0;
    for (auto& x : v) x = round_to(t.type, lo + (hi - lo) * rng.unit());
    return v;
  }
  const auto r = int_range_of(t);
  for (auto& x : v) x = round_to(t.type, r.lo + static_cast<double>(rng.next() % r.n));
  return v;
}

void generate_tensor_into(const tensor_spec& t, std::uint64_t seed, const std::string& case_name,
                          const std::string& input_name, std::size_t index, std::uint8_t* out, unsigned threads) {
  if (is_complex(t.type)) {
    generate_tensor_into(as_components(t), seed, case_name, input_name, index, out, threads);
    return;
  }
  if (!t.values.empty()) {
    const auto bytes = encode(t.type, generate_values(t, seed, case_name, input_name, index));
    std::memcpy(out, bytes.data(), bytes.size());
    return;
  }
  const std::uint64_t s = stream_seed(seed, case_name, input_name, index);
  const auto n = static_cast<std::uint64_t>(t.numel());
  constexpr std::uint64_t chunk = 1 << 18;
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  const std::uint64_t chunks = (n + chunk - 1) / chunk;
  const unsigned workers = n < (1u << 20) ? 1u : static_cast<unsigned>(std::min<std::uint64_t>(threads, chunks));
  if (workers <= 1) {
    fill_range(t, s, 0, n, out);
    return;
  }
  // Contiguous slices of whole chunks, one per worker.
  std::vector<std::thread> pool;
  const std::uint64_t per = (chunks + workers - 1) / workers * chunk;
  for (unsigned w = 1; w < workers; ++w) {
    const std::uint64_t from = std::min(n, per * w), to = std::min(n, per * (w + 1));
    if (from < to) pool.emplace_back([&t, s, from, to, out] { fill_range(t, s, from, to, out); });
  }
  fill_range(t, s, 0, std::min(n, per), out);
  for (auto& th : pool) th.join();
}

std::vector<std::uint8_t> generate_tensor(const tensor_spec& t, std::uint64_t seed, const std::string& case_name,
                                          const std::string& input_name, std::size_t index) {
  std::vector<std::uint8_t> out(static_cast<std::size_t>(t.numel()) * dtype_size(t.type));
  generate_tensor_into(t, seed, case_name, input_name, index, out.data());
  return out;
}

std::string input_key(const tensor_spec& t, std::uint64_t seed, const std::string& case_name,
                      const std::string& input_name, std::size_t index) {
  common::sha256 h;
  h.field("aopt-input-file-v1").field(std::to_string(seed)).field(case_name).field(input_name);
  h.field(std::to_string(index)).field(dtype_name(t.type));
  std::string shape;
  for (auto d : t.shape) shape += std::to_string(d) + ",";
  h.field(shape);
  if (t.range) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g,%.17g", t.range->first, t.range->second);
    h.field(buf);
  } else {
    h.field("default-range");
  }
  if (t.sorted) h.field("sorted");
  if (!t.values.empty()) {
    std::string given = "values:";
    for (double v : t.values) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.17g,", v);
      given += buf;
    }
    h.field(given);
  }
  return h.finish_hex();
}

}  // namespace aopt::evaluation
