// Issue 34: a kernel module with a dynamically initialised global loads under raw-GM tracing
// (dyninit_kernel.cpp: GCC's __asan_before/after_dynamic_init calls around the initialiser are
// defined by the sim runtime), and its raw __gm__ accesses are traced.
#include <gtest/gtest.h>
#include <dlfcn.h>

#include <cstdint>

#include "sim_core_test_util.h"

using aopt::sim::test::gm_buffer;
using aopt::sim::test::run;

namespace {

TEST(Issue34DynInit, RawGmKernelWithADynamicGlobalLoadsAndRuns) {
  void* h = dlopen(AOPT_DYNINIT_KERNEL, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(h, nullptr) << dlerror();
  using entry = void (*)(std::uint8_t*, std::uint32_t);
  auto fn = reinterpret_cast<entry>(dlsym(h, "dyninit_scale"));
  ASSERT_NE(fn, nullptr) << dlerror();
  constexpr std::uint32_t n = 16;
  gm_buffer x(n * 4, "x");
  for (std::uint32_t i = 0; i < n; ++i) x.as<float>()[i] = static_cast<float>(i);
  auto r = run(1, [&] { fn(x.get(), n); });
  ASSERT_FALSE(r.error.has_value()) << r.error->to_string();
  for (std::uint32_t i = 0; i < n; ++i) EXPECT_EQ(x.as<float>()[i], 3.0f * static_cast<float>(i)) << i;
  std::uint64_t gm_accesses = 0;
  for (const auto& rec : r.cores[0].recs) {
    gm_accesses += rec.sacc[static_cast<int>(aopt::sim::scalar_access::gm_hit)] +
                   rec.sacc[static_cast<int>(aopt::sim::scalar_access::gm_miss)];
  }
  // Traced as scalar GM accesses (how many depends on how the compiler groups the loads and
  // stores: -O2 may vectorise the loop).
  EXPECT_GT(gm_accesses, 0u);
  EXPECT_LE(gm_accesses, 2u * n);
  dlclose(h);
}

}  // namespace
