#include "aopt/evaluation/inputs.h"

#include <cmath>

#include "aopt/common/sha256.h"

namespace aopt::evaluation {

namespace {

struct splitmix64 {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
};

std::uint64_t stream_seed(std::uint64_t seed, const std::string& c, const std::string& in, std::size_t idx) {
  common::sha256 h;
  h.field("aopt-inputs-v1").field(std::to_string(seed)).field(c).field(in).field(std::to_string(idx));
  const auto d = h.finish();
  std::uint64_t s = 0;
  for (int i = 0; i < 8; ++i) s = (s << 8) | d[i];
  return s;
}

}  // namespace

std::vector<double> generate_values(const tensor_spec& t, std::uint64_t seed, const std::string& case_name,
                                    const std::string& input_name, std::size_t index) {
  splitmix64 rng{stream_seed(seed, case_name, input_name, index)};
  const auto n = static_cast<std::size_t>(t.numel());
  std::vector<double> v(n);
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
  double lo = is_signed_int(t.type) ? -10 : 0;
  double hi = 10;
  if (t.range) {
    lo = std::ceil(t.range->first);
    hi = std::floor(t.range->second);
    if (hi < lo) hi = lo;
  }
  const auto span = static_cast<std::uint64_t>(hi - lo) + 1;
  for (auto& x : v) x = round_to(t.type, lo + static_cast<double>(rng.next() % span));
  return v;
}

std::vector<std::uint8_t> generate_tensor(const tensor_spec& t, std::uint64_t seed, const std::string& case_name,
                                          const std::string& input_name, std::size_t index) {
  return encode(t.type, generate_values(t, seed, case_name, input_name, index));
}

}  // namespace aopt::evaluation
