// Which kernel sources the sim backend builds with the raw __gm__ access hooks.
#include <gtest/gtest.h>

#include "aopt/evaluation/raw_gm.h"

namespace {

using aopt::evaluation::dereferences_raw_gm;

TEST(RawGm, DereferencedGmPointersAreFound) {
  EXPECT_TRUE(dereferences_raw_gm("__gm__ float* p = (__gm__ float*)x; s += p[i];"));
  EXPECT_TRUE(dereferences_raw_gm("void k(__gm__ const half *__restrict__ src) { half v = *src; }"));
  EXPECT_TRUE(dereferences_raw_gm("__gm__ int32_t* idx; y = *(idx + 4);"));
  EXPECT_TRUE(dereferences_raw_gm("extern \"C\" void k(GM_ADDR x) { x[0] = 1; }"));
  EXPECT_TRUE(dereferences_raw_gm("__gm__ Params* prm = (__gm__ Params*)t; n = prm->n;"));
}

TEST(RawGm, ApiOnlyKernelsAreNot) {
  EXPECT_FALSE(dereferences_raw_gm("xGm.SetGlobalBuffer((__gm__ half*)x + off, n); DataCopy(xl, xGm, n);"));
  EXPECT_FALSE(dereferences_raw_gm("extern \"C\" __global__ __aicore__ void add(GM_ADDR x, GM_ADDR y) { op.Init(x, y); }"));
  EXPECT_FALSE(dereferences_raw_gm("float a[4]; a[0] = 1;"));
  // A multiplication and a comment are not dereferences.
  EXPECT_FALSE(dereferences_raw_gm("void k(GM_ADDR x, GM_ADDR t1) { Muls(y, y, v * t1.GetValue(0)); }"));
  EXPECT_FALSE(dereferences_raw_gm("// y = x * gamma[i]\nvoid k(GM_ADDR gamma) { g.SetGlobalBuffer((__gm__ half*)gamma); }"));
}

}  // namespace
