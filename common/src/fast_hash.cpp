#include "aopt/common/fast_hash.h"

#include <cstring>

#include "aopt/common/mapped_file.h"

namespace aopt::common {

namespace {

constexpr std::uint64_t k1 = 0x9fb21c651e98df25ULL;
constexpr std::uint64_t k2 = 0xc2b2ae3d27d4eb4fULL;
constexpr std::uint64_t k3 = 0x165667b19e3779f9ULL;
constexpr std::uint64_t k4 = 0xd6e8feb86659fd93ULL;

inline std::uint64_t rotl(std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
inline std::uint64_t load64(const std::uint8_t* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
inline std::uint64_t lane(std::uint64_t acc, std::uint64_t w) { return rotl(acc + w * k2, 29) * k1; }
inline std::uint64_t avalanche(std::uint64_t h) {
  h ^= h >> 32;
  h *= k4;
  h ^= h >> 29;
  h *= k3;
  h ^= h >> 32;
  return h;
}

}  // namespace

std::uint64_t fast_hash64(const void* data, std::size_t size, std::uint64_t seed) {
  const auto* p = static_cast<const std::uint8_t*>(data);
  const std::uint8_t* const end = p + size;
  // Four independent lanes over 32-byte stripes keep the multipliers busy.
  std::uint64_t a = seed + k1 + k2, b = seed + k2, c = seed, d = seed - k1;
  while (end - p >= 32) {
    a = lane(a, load64(p));
    b = lane(b, load64(p + 8));
    c = lane(c, load64(p + 16));
    d = lane(d, load64(p + 24));
    p += 32;
  }
  std::uint64_t h = rotl(a, 1) + rotl(b, 7) + rotl(c, 12) + rotl(d, 18) + k4;
  h ^= static_cast<std::uint64_t>(size) * k3;
  while (end - p >= 8) {
    h = rotl(h ^ lane(0, load64(p)), 27) * k1 + k4;
    p += 8;
  }
  std::uint64_t tail = 0;
  for (int shift = 0; p < end; ++p, shift += 8) tail |= static_cast<std::uint64_t>(*p) << shift;
  h = rotl(h ^ (tail * k2 + k3), 23) * k2 + k3;
  return avalanche(h);
}

std::string fast_hash_hex(const void* data, std::size_t size, std::uint64_t seed) {
  static const char digits[] = "0123456789abcdef";
  std::uint64_t h = fast_hash64(data, size, seed);
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, h >>= 4) s[static_cast<std::size_t>(i)] = digits[h & 15];
  return s;
}

std::uint64_t fast_hash_file(const std::filesystem::path& file, std::uint64_t seed) {
  const mapped_file m(file);
  return fast_hash64(m.data(), m.size(), seed);
}

}  // namespace aopt::common
