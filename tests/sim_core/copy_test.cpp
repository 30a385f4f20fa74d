// Data movement: DataCopy in every form, DataCopyPad with padding and tails, InitGlobalMemory,
// GlobalTensor, against hand-computed results for several dtypes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "kernel_operator.h"
#include "kernels17.h"
#include "sim_core_test_util.h"

using namespace AscendC;
using aopt::sim::hw_error_kind;
using aopt::sim::test::gm_buffer;
using aopt::sim::test::run;

namespace {

std::uint32_t seed_for_test() {
  const std::uint32_t seed = 20240611u;
  std::printf("[ seed ] %u\n", seed);
  return seed;
}

template <typename T>
T from_int(int v) {
  if constexpr (std::is_same_v<T, bfloat16_t>) {
    return bfloat16_t(static_cast<float>(v));
  } else {
    return static_cast<T>(v);
  }
}

template <typename T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// Wrapped because libstdc++ 12 has no typeinfo for _Float16 (GoogleTest names types by typeid).
template <typename T>
struct dtype {
  using type = T;
};
template <typename W>
class CountCopy : public ::testing::Test {};
using copy_types = ::testing::Types<dtype<half>, dtype<float>, dtype<bfloat16_t>, dtype<std::int8_t>,
                                    dtype<std::uint8_t>, dtype<std::int16_t>, dtype<std::int32_t>,
                                    dtype<std::uint32_t>, dtype<std::int64_t>>;
TYPED_TEST_SUITE(CountCopy, copy_types);

// GM -> UB -> UB -> GM round trip through a queue and a TBuf, count form.
TYPED_TEST(CountCopy, RoundTrip) {
  using T = typename TypeParam::type;
  const std::uint32_t n = 256;  // multiple of 32 bytes for every type
  gm_buffer in(n * sizeof(T)), out(n * sizeof(T));
  std::mt19937 rng(seed_for_test());
  for (std::uint32_t i = 0; i < n; ++i) in.as<T>()[i] = from_int<T>(static_cast<int>(rng() % 100));
  auto r = run(1, [&] {
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> q;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(q, 1, n * sizeof(T));
    pipe.InitBuffer(b, n * sizeof(T));
    GlobalTensor<T> gi, go;
    gi.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(in.get()), n);
    go.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(out.get()), n);
    LocalTensor<T> t = q.AllocTensor<T>();
    DataCopy(t, gi, n);
    q.EnQue(t);
    LocalTensor<T> u = q.DeQue<T>();
    LocalTensor<T> w = b.Get<T>();
    DataCopy(w, u, n);
    DataCopy(go, w, n);
    q.FreeTensor(u);
  });
  ASSERT_FALSE(r.error.has_value()) << r.error->to_string();
  for (std::uint32_t i = 0; i < n; ++i) ASSERT_TRUE(same_bits(in.as<T>()[i], out.as<T>()[i])) << i;
}

TEST(DataCopyParamsForm, StridedGmToUbAndBack) {
  // 4 blocks of 2 x 32 B (16 fp32) from GM with a 1-block gap; UB rows with a 2-block gap.
  gm_buffer in(4096), out(4096);
  float* x = in.as<float>();
  for (int i = 0; i < 1024; ++i) x[i] = static_cast<float>(i);
  auto r = run(1, [&] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 2048);
    GlobalTensor<float> gi, go;
    gi.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(in.get()));
    go.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(out.get()));
    LocalTensor<float> t = b.Get<float>();
    DataCopyParams p;
    p.blockCount = 4;
    p.blockLen = 2;
    p.srcStride = 1;
    p.dstStride = 2;
    DataCopy(t, gi, p);
    // UB element of block k, element e: row k starts at k*(2+2)*8 floats.
    for (int k = 0; k < 4; ++k) {
      for (int e = 0; e < 16; ++e) {
        if (t.GetValue(k * 32 + e) != static_cast<float>(k * 24 + e)) {
          aopt::sim::fail(hw_error_kind::invalid_use, "wrong UB value", aopt::sim::src_loc::current(), "check");
        }
      }
    }
    // Back to GM: UB gap 2 blocks, GM gap 3 blocks.
    DataCopyParams q{4, 2, 2, 3};
    DataCopy(go, t, q);
  });
  ASSERT_FALSE(r.error.has_value()) << r.error->to_string();
  const float* z = out.as<float>();
  for (int k = 0; k < 4; ++k) {
    for (int e = 0; e < 16; ++e) EXPECT_EQ(z[k * 40 + e], static_cast<float>(k * 24 + e)) << k << "," << e;
    if (k < 3) {
      for (int e = 16; e < 40; ++e) EXPECT_EQ(z[k * 40 + e], 0.0f) << "gap written at " << k * 40 + e;
    }
  }
}

TEST(DataCopyParamsForm, UbToUbStrided) {
  std::vector<std::int16_t> seen(112);
  auto r = run(1, [&] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 4096);
    LocalTensor<std::int16_t> all = b.Get<std::int16_t>();
    for (int i = 0; i < 512; ++i) all.SetValue(i, static_cast<std::int16_t>(i));
    LocalTensor<std::int16_t> dst = all[1024];
    // 3 blocks of 1 x 32 B (16 int16): src every 2 blocks, dst every 3 blocks.
    DataCopy(dst, all, DataCopyParams{3, 1, 1, 2});
    for (int i = 0; i < 112; ++i) seen[i] = dst.GetValue(i);
  });
  ASSERT_FALSE(r.error.has_value()) << r.error->to_string();
  for (int k = 0; k < 3; ++k) {
    // dst rows are (1 + 2) blocks = 48 int16 apart, src rows (1 + 1) blocks = 32 int16 apart.
    for (int e = 0; e < 16; ++e) EXPECT_EQ(seen[k * 48 + e], k * 32 + e);
  }
  // Bytes between the destination blocks keep the poison pattern (-1 as int16).
  EXPECT_EQ(seen[16], -1);
  EXPECT_EQ(seen[47], -1);
}

TEST(DataCopyPadForm, GmToUbPadsEachRowTo32Bytes) {
  // 3 rows of 10 fp16 (20 bytes) with a 6-byte gap in GM; each UB row is one 32-byte block whose
  // last 6 elements get the pad value.
  gm_buffer in(4096);
  half* x = in.as<half>();
  for (int i = 0; i < 64; ++i) x[i] = static_cast<half>(i);
  std::vector<float> ub(48);
  auto r = run(1, [&] {
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> q;
    pipe.InitBuffer(q, 1, 1024);
    GlobalTensor<half> g;
    g.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(in.get()), 64);
    LocalTensor<half> t = q.AllocTensor<half>();
    DataCopyExtParams cp{3, 20, 6, 0, 0};
    DataCopyPadExtParams<half> pp{true, 0, 0, static_cast<half>(7)};
    DataCopyPad(t, g, cp, pp);
    for (int i = 0; i < 48; ++i) ub[i] = static_cast<float>(t.GetValue(i));
    q.FreeTensor(t);
  });
  ASSERT_FALSE(r.error.has_value()) << r.error->to_string();
  for (int row = 0; row < 3; ++row) {
    for (int e = 0; e < 10; ++e) EXPECT_EQ(ub[row * 16 + e], row * 13 + e) << row << "," << e;
    for (int e = 10; e < 16; ++e) EXPECT_EQ(ub[row * 16 + e], 7.0f) << row << "," << e;
  }
}

TEST(DataCopyPadForm, LeftRightPaddingAndDstGap) {
  // fp32 rows of 5 elements, leftPadding 2, rightPadding 1 -> 8 elements = one 32-byte row;
  // dstStride 1 block between rows.
  gm_buffer in(4096);
  float* x = in.as<float>();
  for (int i = 0; i < 32; ++i) x[i] = 100.0f + static_cast<float>(i);
  std::vector<float> ub(32);
  auto r = run(1, [&] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 1024);
    GlobalTensor<float> g;
    g.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(in.get()), 32);
    LocalTensor<float> t = b.Get<float>();
    DataCopyExtParams cp{2, 20, 0, 1, 0};
    DataCopyPadExtParams<float> pp{true, 2, 1, -1.5f};
    DataCopyPad(t, g, cp, pp);
    for (int i = 0; i < 32; ++i) ub[i] = t.GetValue(i);
  });
  ASSERT_FALSE(r.error.has_value()) << r.error->to_string();
  for (int row = 0; row < 2; ++row) {
    const int base = row * 16;  // 8 elements of row + 8 of gap
    EXPECT_EQ(ub[base + 0], -1.5f);
    EXPECT_EQ(ub[base + 1], -1.5f);
    for (int e = 0; e < 5; ++e) EXPECT_EQ(ub[base + 2 + e], 100.0f + static_cast<float>(row * 5 + e));
    EXPECT_EQ(ub[base + 7], -1.5f);
  }
  EXPECT_TRUE(std::isnan(ub[8])) << "the gap between rows must stay untouched (poison)";
}

TEST(DataCopyPadForm, UbToGmWritesOnlyTheData) {
  // 3 rows of 7 int32 (28 bytes, UB rows 32 bytes apart) to GM with a 8-byte gap per row.
  gm_buffer out(4096);
  std::int32_t* z = out.as<std::int32_t>();
  for (int i = 0; i < 64; ++i) z[i] = -7;
  auto r = run(1, [&] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 1024);
    LocalTensor<std::int32_t> t = b.Get<std::int32_t>();
    for (int i = 0; i < 24; ++i) t.SetValue(i, i);
    GlobalTensor<std::int32_t> g;
    g.SetGlobalBuffer(reinterpret_cast<__gm__ std::int32_t*>(out.get()), 64);
    DataCopyPad(g, t, DataCopyExtParams{3, 28, 0, 8, 0});
  });
  ASSERT_FALSE(r.error.has_value()) << r.error->to_string();
  for (int row = 0; row < 3; ++row) {
    for (int e = 0; e < 7; ++e) EXPECT_EQ(z[row * 9 + e], row * 8 + e);
    if (row < 2) {
      EXPECT_EQ(z[row * 9 + 7], -7);
      EXPECT_EQ(z[row * 9 + 8], -7);
    }
  }
  EXPECT_EQ(z[25], -7);  // after the last row
}

TEST(DataCopyPadForm, OldParamsForm) {
  gm_buffer in(4096), out(4096);
  std::int16_t* x = in.as<std::int16_t>();
  for (int i = 0; i < 40; ++i) x[i] = static_cast<std::int16_t>(i + 1);
  std::vector<std::int16_t> ub(32);
  auto r = run(1, [&] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 1024);
    LocalTensor<std::int16_t> t = b.Get<std::int16_t>();
    GlobalTensor<std::int16_t> gi, go;
    gi.SetGlobalBuffer(reinterpret_cast<__gm__ std::int16_t*>(in.get()));
    go.SetGlobalBuffer(reinterpret_cast<__gm__ std::int16_t*>(out.get()));
    // 2 rows of 13 int16 (26 bytes), GM gap 4 bytes, padded with 9.
    DataCopyPad(t, gi, DataCopyParams{2, 26, 4, 0}, DataCopyPadParams{true, 0, 0, 9});
    for (int i = 0; i < 32; ++i) ub[i] = t.GetValue(i);
    DataCopyPad(go, t, DataCopyParams{2, 26, 0, 0});
  });
  ASSERT_FALSE(r.error.has_value()) << r.error->to_string();
  for (int row = 0; row < 2; ++row) {
    for (int e = 0; e < 13; ++e) EXPECT_EQ(ub[row * 16 + e], row * 15 + e + 1);
    for (int e = 13; e < 16; ++e) EXPECT_EQ(ub[row * 16 + e], 9);
  }
  const std::int16_t* z = out.as<std::int16_t>();
  for (int row = 0; row < 2; ++row) {
    for (int e = 0; e < 13; ++e) EXPECT_EQ(z[row * 13 + e], row * 15 + e + 1);
  }
  EXPECT_EQ(z[26], 0);
}

TEST(DataCopyPadForm, Cxx17KernelWithTails) {
  const std::uint32_t rows = 5, cols = 13;
  gm_buffer in(rows * cols * 4), out(rows * cols * 4);
  for (std::uint32_t i = 0; i < rows * cols; ++i) in.as<float>()[i] = static_cast<float>(i) * 0.5f;
  auto r = run(1, [&] { aopt::sim::test::k17_pad_rows_fp32(in.get(), out.get(), rows, cols); });
  ASSERT_FALSE(r.error.has_value()) << r.error->to_string();
  for (std::uint32_t i = 0; i < rows * cols; ++i) EXPECT_EQ(out.as<float>()[i], static_cast<float>(i) * 0.5f + 1.0f);
}

TEST(GlobalTensorApi, ViewsValuesAndSizes) {
  gm_buffer buf(1024, "g");
  auto r = run(1, [&] {
    GlobalTensor<std::int32_t> g;
    g.SetGlobalBuffer(reinterpret_cast<__gm__ std::int32_t*>(buf.get()), 100);
    if (g.GetSize() != 100) aopt::sim::fail(hw_error_kind::invalid_use, "size", {}, "t");
    GlobalTensor<std::int32_t> h = g[10];
    if (h.GetSize() != 90 || h.GetPhyAddr() != g.GetPhyAddr() + 10 || g.GetPhyAddr(10) != h.GetPhyAddr()) {
      aopt::sim::fail(hw_error_kind::invalid_use, "view", {}, "t");
    }
    h.SetValue(5, 1234);
    if (g.GetValue(15) != 1234) aopt::sim::fail(hw_error_kind::invalid_use, "value", {}, "t");
    GlobalTensor<std::int32_t> whole;
    whole.SetGlobalBuffer(reinterpret_cast<__gm__ std::int32_t*>(buf.get()));
    if (whole.GetSize() != 256) aopt::sim::fail(hw_error_kind::invalid_use, "whole size", {}, "t");
    whole.SetL2CacheHint(CacheMode::CACHE_MODE_DISABLE);
  });
  ASSERT_FALSE(r.error.has_value()) << r.error->to_string();
  EXPECT_EQ(buf.as<std::int32_t>()[15], 1234);
  // GetValue/SetValue are scalar work: GM accesses through the DataCache, the SetValue misses
  // its 64 B line, the GetValue of the same element hits it.
  ASSERT_FALSE(r.cores[0].recs.empty());
  const auto& rec = r.cores[0].recs[0];
  EXPECT_EQ(rec.kind, aopt::sim::rec_kind::scalar);
  EXPECT_EQ(rec.sacc[static_cast<int>(aopt::sim::scalar_access::gm_miss)], 1u);
  EXPECT_EQ(rec.sacc[static_cast<int>(aopt::sim::scalar_access::gm_hit)], 1u);
}

TEST(InitGlobalMemoryApi, FillsAndRecords) {
  gm_buffer buf(4096);
  auto r = run(1, [&] {
    GlobalTensor<half> g;
    g.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(buf.get()), 2048);
    GlobalTensor<half> part = g[16];
    InitGlobalMemory(part, 100, static_cast<half>(2.5f));
  });
  ASSERT_FALSE(r.error.has_value()) << r.error->to_string();
  const half* p = buf.as<half>();
  EXPECT_EQ(static_cast<float>(p[15]), 0.0f);
  for (int i = 16; i < 116; ++i) EXPECT_EQ(static_cast<float>(p[i]), 2.5f);
  EXPECT_EQ(static_cast<float>(p[116]), 0.0f);
  ASSERT_EQ(r.cores[0].recs.size(), 1u);
  EXPECT_EQ(r.cores[0].recs[0].kind, aopt::sim::rec_kind::copy_out);
  EXPECT_EQ(r.cores[0].recs[0].gm_addr, 32u);
  EXPECT_EQ(r.cores[0].recs[0].block_bytes, 200u);
}

TEST(CopyTrace, RecordsBurstsAndGmOffsets) {
  gm_buffer buf(8192);
  auto r = run(1, [&] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 4096);
    GlobalTensor<float> g;
    g.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(buf.get()));
    LocalTensor<float> t = b.Get<float>();
    DataCopy(t[64], g[8], 64);
    DataCopy(g[512], t, DataCopyParams{3, 2, 0, 1});
    DataCopyPad(t, g[3], DataCopyExtParams{2, 12, 0, 0, 0}, DataCopyPadExtParams<float>{});
  });
  ASSERT_FALSE(r.error.has_value()) << r.error->to_string();
  const auto& recs = r.cores[0].recs;
  ASSERT_EQ(recs.size(), 3u);
  EXPECT_EQ(recs[0].kind, aopt::sim::rec_kind::copy_in);
  EXPECT_EQ(recs[0].p, aopt::sim::pipe::mte2);
  EXPECT_EQ(recs[0].blocks, 1u);
  EXPECT_EQ(recs[0].block_bytes, 256u);
  EXPECT_EQ(recs[0].gm_addr, 32u);
  EXPECT_EQ(recs[0].ub_addr, 256u);
  EXPECT_EQ(recs[0].dtype_bytes, 4u);
  EXPECT_EQ(recs[1].kind, aopt::sim::rec_kind::copy_out);
  EXPECT_EQ(recs[1].p, aopt::sim::pipe::mte3);
  EXPECT_EQ(recs[1].blocks, 3u);
  EXPECT_EQ(recs[1].block_bytes, 64u);
  EXPECT_EQ(recs[1].gm_addr, 2048u);
  EXPECT_EQ(recs[2].blocks, 2u);
  EXPECT_EQ(recs[2].block_bytes, 12u);
  EXPECT_EQ(recs[2].gm_addr, 12u);
  EXPECT_EQ(r.cores[0].sites[recs[0].site].api, "DataCopy");
  EXPECT_EQ(r.cores[0].sites[recs[2].site].api, "DataCopyPad");
  EXPECT_TRUE(aopt::sim::test::file_is(r.cores[0].sites[recs[0].site].file, "copy_test.cpp"));
}

}  // namespace
