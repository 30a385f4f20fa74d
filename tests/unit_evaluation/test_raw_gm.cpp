// Which kernel sources the sim backend builds with the raw __gm__ access hooks.
#include <gtest/gtest.h>

#include <utility>

#include "aopt/evaluation/raw_gm.h"

namespace {

TEST(RawGm, OnlyDereferencedGmPointersCount) {
  const std::pair<const char*, bool> cases[] = {
      {"__gm__ float* p = (__gm__ float*)x; s += p[i];", true},
      {"void k(__gm__ const half *__restrict__ src) { half v = *src; }", true},
      {"__gm__ int32_t* idx; y = *(idx + 4);", true},
      {"extern \"C\" void k(GM_ADDR x) { x[0] = 1; }", true},
      {"__gm__ Params* prm = (__gm__ Params*)t; n = prm->n;", true},
      {"xGm.SetGlobalBuffer((__gm__ half*)x + off, n); DataCopy(xl, xGm, n);", false},
      {"extern \"C\" __global__ __aicore__ void add(GM_ADDR x, GM_ADDR y) { op.Init(x, y); }", false},
      {"float a[4]; a[0] = 1;", false},
      // a multiplication and a comment are not dereferences
      {"void k(GM_ADDR x, GM_ADDR t1) { Muls(y, y, v * t1.GetValue(0)); }", false},
      {"// y = x * gamma[i]\nvoid k(GM_ADDR gamma) { g.SetGlobalBuffer((__gm__ half*)gamma); }", false},
  };
  for (const auto& [src, expected] : cases) EXPECT_EQ(aopt::evaluation::dereferences_raw_gm(src), expected) << src;
}

}  // namespace
