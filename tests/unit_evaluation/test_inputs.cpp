#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "aopt/evaluation/inputs.h"

namespace ev = aopt::evaluation;

TEST(Inputs, DeterministicPerSeedCaseAndInput) {
  const std::uint64_t seed = std::random_device{}();
  std::cout << "seed " << seed << "\n";
  ev::tensor_spec t{{64, 33}, ev::dtype::float16, std::nullopt};
  const auto a = ev::generate_tensor(t, seed, "perf", "x", 0);
  EXPECT_EQ(a, ev::generate_tensor(t, seed, "perf", "x", 0));
  EXPECT_NE(a, ev::generate_tensor(t, seed + 1, "perf", "x", 0));
  EXPECT_NE(a, ev::generate_tensor(t, seed, "perf", "y", 0));
  EXPECT_NE(a, ev::generate_tensor(t, seed, "tail", "x", 0));
  EXPECT_EQ(a.size(), 64u * 33u * 2u);
}

TEST(Inputs, FixedSeedGivesFixedBytes) {
  // Guards cross-machine reproducibility: the generator must not depend on the std library.
  ev::tensor_spec t{{4}, ev::dtype::float32, std::make_pair(0.0, 1.0)};
  const auto v = ev::generate_values(t, 42, "c", "x", 0);
  const auto w = ev::generate_values(t, 42, "c", "x", 0);
  EXPECT_EQ(v, w);
  for (double x : v) {
    EXPECT_GE(x, 0.0);
    EXPECT_LT(x, 1.0);
  }
}

TEST(Inputs, RangesAndDtypes) {
  const std::uint64_t seed = 7;
  ev::tensor_spec f{{10000}, ev::dtype::float16, std::make_pair(-3.0, 5.0)};
  double lo = 1e9, hi = -1e9;
  for (double x : ev::generate_values(f, seed, "c", "x", 0)) {
    lo = std::min(lo, x);
    hi = std::max(hi, x);
    EXPECT_EQ(x, ev::round_to(ev::dtype::float16, x));  // representable
  }
  EXPECT_GE(lo, -3.0);
  EXPECT_LE(hi, 5.0);
  EXPECT_LT(lo, -2.5);
  EXPECT_GT(hi, 4.5);
  ev::tensor_spec d{{1000}, ev::dtype::float32, std::nullopt};
  for (double x : ev::generate_values(d, seed, "c", "x", 0)) {
    EXPECT_GE(x, -1.0);
    EXPECT_LE(x, 1.0);
  }
  ev::tensor_spec i{{1000}, ev::dtype::int32, std::nullopt};
  for (double x : ev::generate_values(i, seed, "c", "x", 0)) {
    EXPECT_EQ(x, std::trunc(x));
    EXPECT_GE(x, -10);
    EXPECT_LE(x, 10);
  }
  ev::tensor_spec u{{1000}, ev::dtype::uint8, std::nullopt};
  for (double x : ev::generate_values(u, seed, "c", "x", 0)) EXPECT_GE(x, 0);
  ev::tensor_spec b{{1000}, ev::dtype::bool_, std::nullopt};
  int ones = 0;
  for (auto byte : ev::generate_tensor(b, seed, "c", "x", 0)) {
    EXPECT_LE(byte, 1);
    ones += byte;
  }
  EXPECT_GT(ones, 300);
  EXPECT_LT(ones, 700);
}

TEST(Dtype, HalfAndBf16RoundTrip) {
  for (float f : {0.0f, 1.0f, -2.5f, 65504.0f, 6.1035156e-05f, 5.9604645e-08f, 0.1f}) {
    EXPECT_EQ(ev::half_bits_to_float(ev::float_to_half_bits(f)), static_cast<float>(static_cast<_Float16>(f))) << f;
  }
  EXPECT_EQ(ev::float_to_half_bits(1.0f), 0x3c00);
  EXPECT_EQ(ev::float_to_half_bits(70000.0f), 0x7c00);  // overflow to inf
  EXPECT_EQ(ev::float_to_bf16_bits(1.0f), 0x3f80);
  EXPECT_FLOAT_EQ(ev::bf16_bits_to_float(ev::float_to_bf16_bits(3.140625f)), 3.140625f);
  EXPECT_EQ(ev::round_to(ev::dtype::int8, 200.0), -56.0);  // wrap-around like a C++ conversion
  EXPECT_EQ(ev::round_to(ev::dtype::int32, -2.7), -2.0);   // truncation toward zero
}

TEST(Dtype, HalfConversionMatchesHardwareTypeExhaustively) {
  std::mt19937 rng(12345);
  std::cout << "seed 12345\n";
  for (int i = 0; i < 200000; ++i) {
    std::uint32_t u = rng();
    float f;
    std::memcpy(&f, &u, 4);
    if (std::isnan(f)) continue;
    const _Float16 h = static_cast<_Float16>(f);
    std::uint16_t bits;
    std::memcpy(&bits, &h, 2);
    ASSERT_EQ(ev::float_to_half_bits(f), bits) << f;
  }
}

TEST(Inputs, DirectGenerationMatchesValuesThenEncodeForEveryDtype) {
  const std::uint64_t seed = std::random_device{}();
  std::cout << "seed " << seed << "\n";
  const std::vector<std::optional<std::pair<double, double>>> ranges = {
      std::nullopt, std::make_pair(-3.0, 5.0), std::make_pair(0.25, 0.5), std::make_pair(-300.0, 70000.0)};
  for (const auto& name : ev::dtype_names()) {
    const auto t = *ev::parse_dtype(name);
    for (const auto& range : ranges) {
      for (std::int64_t n : {1, 3, 4, 7, 1001}) {
        ev::tensor_spec s{{n}, t, range};
        const auto want = ev::encode(t, ev::generate_values(s, seed, "c", "x", 2));
        ASSERT_EQ(ev::generate_tensor(s, seed, "c", "x", 2), want) << name << " n=" << n;
      }
    }
  }
}

TEST(Inputs, ParallelChunksGiveTheSameBytesAsOneThread) {
  const std::uint64_t seed = std::random_device{}();
  std::cout << "seed " << seed << "\n";
  for (auto t : {ev::dtype::float16, ev::dtype::float32, ev::dtype::int8}) {
    ev::tensor_spec s{{(1 << 20) + 37}, t, std::nullopt};
    const std::size_t bytes = static_cast<std::size_t>(s.numel()) * ev::dtype_size(t);
    std::vector<std::uint8_t> one(bytes), many(bytes);
    ev::generate_tensor_into(s, seed, "perf", "x", 0, one.data(), 1);
    ev::generate_tensor_into(s, seed, "perf", "x", 0, many.data(), 3);
    ASSERT_EQ(one, many) << ev::dtype_name(t);
    EXPECT_EQ(one, ev::encode(t, ev::generate_values(s, seed, "perf", "x", 0))) << ev::dtype_name(t);
  }
}

// tensor_spec::sorted: non-decreasing, from the range's low end, spread over it, the same bytes
// generated directly (in parallel chunks) as through generate_values.
TEST(Inputs, SortedValuesAreNonDecreasingFromTheLowEnd) {
  for (auto t : {ev::dtype::int32, ev::dtype::int64, ev::dtype::float16, ev::dtype::float32}) {
    for (std::int64_t n : {1, 7, 100, (1 << 20) + 37}) {
      ev::tensor_spec s{{n}, t, std::make_pair(0.0, 99.0)};
      s.sorted = true;
      const auto v = ev::generate_values(s, 5, "perf", "offsets", 0);
      ASSERT_EQ(v.size(), static_cast<std::size_t>(n));
      EXPECT_EQ(v.front(), 0.0) << ev::dtype_name(t) << " n=" << n;
      EXPECT_TRUE(std::is_sorted(v.begin(), v.end())) << ev::dtype_name(t) << " n=" << n;
      EXPECT_LE(v.back(), 99.0) << ev::dtype_name(t) << " n=" << n;
      if (n >= 100) {
        EXPECT_GE(v.back(), 98.0) << "spread over the range: " << ev::dtype_name(t) << " n=" << n;
      }
      const std::size_t bytes = static_cast<std::size_t>(n) * ev::dtype_size(t);
      std::vector<std::uint8_t> many(bytes);
      ev::generate_tensor_into(s, 5, "perf", "offsets", 0, many.data(), 3);
      ASSERT_EQ(many, ev::encode(t, v)) << ev::dtype_name(t) << " n=" << n;
    }
  }
  // Without a range, integers from the default [-10, 10].
  ev::tensor_spec d{{21}, ev::dtype::int32, std::nullopt};
  d.sorted = true;
  const auto v = ev::generate_values(d, 1, "c", "x", 0);
  EXPECT_EQ(v.front(), -10.0);
  EXPECT_EQ(v.back(), 10.0);
}

TEST(Inputs, InputKeyNamesEveryIngredient) {
  ev::tensor_spec a{{8, 16}, ev::dtype::float16, std::nullopt};
  const auto k = ev::input_key(a, 1, "perf", "x", 0);
  EXPECT_EQ(k, ev::input_key(a, 1, "perf", "x", 0));
  EXPECT_NE(k, ev::input_key(a, 2, "perf", "x", 0));
  EXPECT_NE(k, ev::input_key(a, 1, "tail", "x", 0));
  EXPECT_NE(k, ev::input_key(a, 1, "perf", "y", 0));
  EXPECT_NE(k, ev::input_key(a, 1, "perf", "x", 1));
  ev::tensor_spec b = a;
  b.shape = {16, 8};
  EXPECT_NE(k, ev::input_key(b, 1, "perf", "x", 0));
  b = a;
  b.type = ev::dtype::bfloat16;
  EXPECT_NE(k, ev::input_key(b, 1, "perf", "x", 0));
  b = a;
  b.range = std::make_pair(-1.0, 1.0);
  EXPECT_NE(k, ev::input_key(b, 1, "perf", "x", 0));
  b = a;
  b.sorted = true;
  EXPECT_NE(k, ev::input_key(b, 1, "perf", "x", 0));
}

TEST(Dtype, DecodeIntoMatchesDecode) {
  std::mt19937 rng(99);
  std::cout << "seed 99\n";
  std::vector<std::uint8_t> raw(8 * 1003);
  for (auto& b : raw) b = static_cast<std::uint8_t>(rng());
  for (const auto& name : ev::dtype_names()) {
    const auto t = *ev::parse_dtype(name);
    const std::size_t n = raw.size() / ev::dtype_size(t);
    const auto want = ev::decode(t, raw.data(), n * ev::dtype_size(t));
    std::vector<double> got(n * ev::components(t));  // complex: two values per element
    ev::decode_into(t, raw.data(), n, got.data());
    ASSERT_EQ(got.size(), want.size()) << name;
    for (std::size_t i = 0; i < got.size(); ++i) {
      if (std::isnan(want[i])) {
        ASSERT_TRUE(std::isnan(got[i])) << name << " " << i;
      } else {
        ASSERT_EQ(got[i], want[i]) << name << " " << i;
      }
    }
  }
}

// Given values (msOpST "value") are the tensor's data, encoded in its dtype; they are part of
// the input's cache key.
TEST(Inputs, GivenValuesAreTheData) {
  ev::tensor_spec t;
  t.shape = {3};
  t.type = ev::dtype::int32;
  t.values = {7, -2, 5};
  const auto bytes = ev::generate_tensor(t, 1, "c", "x", 0);
  ASSERT_EQ(bytes.size(), 12u);
  std::int32_t got[3];
  std::memcpy(got, bytes.data(), sizeof got);
  EXPECT_EQ(got[0], 7);
  EXPECT_EQ(got[1], -2);
  EXPECT_EQ(got[2], 5);
  auto u = t;
  u.values = {7, -2, 6};
  EXPECT_NE(ev::input_key(t, 1, "c", "x", 0), ev::input_key(u, 1, "c", "x", 0));
}
