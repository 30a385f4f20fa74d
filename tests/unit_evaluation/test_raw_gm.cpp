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
      {"/* x[0] */ void k(GM_ADDR x) { const char* s = \"// x[0]\"; Init(x); }", false},
      {"void k(GM_ADDR x) { const char* s = \"/*\"; v = x [ 2 ]; } // */", true},
      {"__gm__ float* ptr; float f(int n) { return *ptr; }", true},
      {"__gm__ float* ptr; int n = 1'000'000; v = n * ptr_len; q = ptr->len;", true},
      {"__gm__ float* ptr; int n = 1'000'000; v = n * ptr_len; Init(ptr);", false},
      {"__gm__ float* ptr; v = returned *ptr;", false},
      {"__gm__ float* ptr; v = ( * ( ptr + 1));", true},
  };
  for (const auto& [src, expected] : cases) EXPECT_EQ(aopt::evaluation::dereferences_raw_gm(src), expected) << src;
  // Asked again (answered from the memo of texts): the same answers.
  for (const auto& [src, expected] : cases) EXPECT_EQ(aopt::evaluation::dereferences_raw_gm(src), expected) << src;
}

}  // namespace
