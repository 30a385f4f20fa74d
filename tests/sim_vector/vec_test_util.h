// Helpers for the vector API tests: run a body on one emulated core, UB tensors, seeded data.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "aopt_sim/runtime.h"
#include "kernel_operator.h"

namespace vt {

using AscendC::LocalTensor;

inline aopt::sim::launch_result run(const std::function<void()>& body) {
  aopt::sim::launch_options o;
  o.block_dim = 1;
  return aopt::sim::launch(o, body);
}

// Runs `body` and fails the test on any hardware error.
inline aopt::sim::launch_result run_ok(const std::function<void()>& body) {
  auto r = run(body);
  if (r.error) ADD_FAILURE() << "unexpected hw error: " << r.error->to_string();
  return r;
}

template <typename T>
LocalTensor<T> ub(std::uint32_t byte_addr, std::uint32_t n) {
  return LocalTensor<T>(byte_addr, n);
}
template <typename T>
void fill(const LocalTensor<T>& t, const std::vector<T>& v) {
  for (std::size_t i = 0; i < v.size(); ++i) t.aopt_ptr()[i] = v[i];
}
template <typename T>
std::vector<T> get(const LocalTensor<T>& t, std::size_t n) {
  return std::vector<T>(t.aopt_ptr(), t.aopt_ptr() + n);
}

inline std::vector<aopt::sim::trace_rec> vector_recs(const aopt::sim::launch_result& r) {
  std::vector<aopt::sim::trace_rec> out;
  for (const auto& rec : r.cores.at(0).recs) {
    if (rec.kind == aopt::sim::rec_kind::vector) out.push_back(rec);
  }
  return out;
}

inline std::uint32_t seed() {
  static const std::uint32_t s = [] {
    const char* e = std::getenv("AOPT_TEST_SEED");
    const std::uint32_t v = e ? static_cast<std::uint32_t>(std::strtoul(e, nullptr, 10)) : 20240611u;
    std::cout << "[sim_vector] random seed " << v << " (set AOPT_TEST_SEED to change)\n";
    return v;
  }();
  return s;
}

template <typename T>
std::vector<T> random_vec(std::size_t n, float lo, float hi, std::uint32_t salt = 0) {
  std::mt19937 g(seed() + salt);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(d(g));
  return v;
}

inline float f(half h) { return static_cast<float>(h); }
inline float f(bfloat16_t b) { return b.ToFloat(); }
inline float f(float x) { return x; }

}  // namespace vt
