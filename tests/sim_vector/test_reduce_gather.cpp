// Reductions (count, mask, whole, block, pair, repeat forms) and Gather / GatherMask.
#include <cmath>
#include <cstring>

#include "vec_test_util.h"

using namespace AscendC;
using vt::f;

TEST(Reduce, CountFormsFloatWithIndex) {
  const int n = 1000;  // 16 repeats, the last one partial
  auto a = vt::random_vec<float>(n, -10, 10, 21);
  a[777] = 50.0f;
  a[3] = -60.0f;
  a[900] = 50.0f;  // tie: the first index wins
  float sum = 0, mx = 0, mn = 0;
  uint32_t imx = 0, imn = 0;
  float acc = 0;
  vt::run_ok([&] {
    auto s = vt::ub<float>(0, n), d = vt::ub<float>(8192, 8), w = vt::ub<float>(16384, 64);
    vt::fill(s, a);
    ReduceSum(d, s, w, n);
    sum = d.aopt_ptr()[0];
    acc = GetAccVal<float>();
    ReduceMax(d, s, w, n, true);
    mx = d.aopt_ptr()[0];
    std::memcpy(&imx, d.aopt_ptr() + 1, 4);
    ReduceMin(d, s, w, n, true);
    mn = d.aopt_ptr()[0];
    imn = d.ReinterpretCast<uint32_t>().aopt_ptr()[1];
  });
  double ref = 0;
  for (float x : a) ref += x;
  EXPECT_NEAR(sum, ref, 1e-3);
  EXPECT_EQ(acc, sum);
  EXPECT_EQ(mx, 50.0f);
  EXPECT_EQ(imx, 777u);
  EXPECT_EQ(mn, -60.0f);
  EXPECT_EQ(imn, 3u);
}

TEST(Reduce, ReduceSumHalfAndMaskForm) {
  const int n = 256;
  std::vector<half> a(n, static_cast<half>(0.5f));
  float sum = 0, msum = 0;
  vt::run_ok([&] {
    auto s = vt::ub<half>(0, n), d = vt::ub<half>(1024, 16), w = vt::ub<half>(2048, 128);
    vt::fill(s, a);
    ReduceSum(d, s, w, n);
    sum = f(d.aopt_ptr()[0]);
    ReduceSum(d, s, w, 10, 2, 8);  // 10 lanes of each of 2 repeats
    msum = f(d.aopt_ptr()[0]);
  });
  EXPECT_EQ(sum, 128.0f);
  EXPECT_EQ(msum, 10.0f);
}

TEST(Reduce, WholeReduceOrders) {
  std::vector<float> sums, vi, iv;
  vt::run_ok([&] {
    auto s = vt::ub<float>(0, 128), d = vt::ub<float>(1024, 16);
    std::vector<float> v(128);
    for (int i = 0; i < 128; ++i) v[i] = static_cast<float>((i * 37) % 101);
    vt::fill(s, v);
    WholeReduceSum(d, s, 64, 2, 1, 1, 8);
    sums = vt::get(d, 2);
    WholeReduceMax(d, s, 64, 2, 1, 1, 8, ReduceOrder::ORDER_VALUE_INDEX);
    vi = vt::get(d, 4);
    WholeReduceMin(d, s, 64, 2, 1, 1, 8, ReduceOrder::ORDER_INDEX_VALUE);
    iv = vt::get(d, 4);
  });
  float s0 = 0, s1 = 0, mx0 = -1, mn1 = 1e9;
  uint32_t imx0 = 0, imn1 = 0;
  for (int i = 0; i < 64; ++i) {
    const float x = static_cast<float>((i * 37) % 101), y = static_cast<float>(((64 + i) * 37) % 101);
    s0 += x;
    s1 += y;
    if (x > mx0) { mx0 = x; imx0 = i; }
    if (y < mn1) { mn1 = y; imn1 = i; }
  }
  EXPECT_EQ(sums[0], s0);
  EXPECT_EQ(sums[1], s1);
  uint32_t idx;
  EXPECT_EQ(vi[0], mx0);
  std::memcpy(&idx, &vi[1], 4);
  EXPECT_EQ(idx, imx0);
  std::memcpy(&idx, &iv[2], 4);
  EXPECT_EQ(idx, imn1);
  EXPECT_EQ(iv[3], mn1);
}

TEST(Reduce, BlockPairRepeatReduce) {
  std::vector<half> blk, pair, rep, bmax;
  vt::run_ok([&] {
    auto s = vt::ub<half>(0, 256), d = vt::ub<half>(1024, 256);
    std::vector<half> v(256);
    for (int i = 0; i < 256; ++i) v[i] = static_cast<half>(static_cast<float>(i % 16));
    vt::fill(s, v);
    BlockReduceSum(d, s, 2, 128, 1, 1, 8);  // 8 results per repeat
    blk = vt::get(d, 16);
    BlockReduceMax(d, s, 2, 128, 1, 1, 8);
    bmax = vt::get(d, 16);
    PairReduceSum(d, s, 1, 128, 1, 1, 8);  // 64 results
    pair = vt::get(d, 64);
    RepeatReduceSum(d, s, 2, 128, 0, 1, 1, 8);
    rep = vt::get(d, 2);
  });
  for (int k = 0; k < 16; ++k) {
    EXPECT_EQ(f(blk[k]), 120.0f);  // 0 + 1 + ... + 15
    EXPECT_EQ(f(bmax[k]), 15.0f);
  }
  for (int k = 0; k < 64; ++k) EXPECT_EQ(f(pair[k]), static_cast<float>((2 * k) % 16 + (2 * k + 1) % 16));
  EXPECT_EQ(f(rep[0]), 960.0f);
  EXPECT_EQ(f(rep[1]), 960.0f);
}

TEST(Gather, ByteOffsets) {
  std::vector<float> out;
  vt::run_ok([&] {
    auto s = vt::ub<float>(0, 64), d = vt::ub<float>(1024, 64);
    auto off = vt::ub<uint32_t>(2048, 64);
    std::vector<float> v(64);
    std::vector<uint32_t> o(64);
    for (int i = 0; i < 64; ++i) {
      v[i] = static_cast<float>(i) * 10;
      o[i] = static_cast<uint32_t>((63 - i) * 4);  // reverse
    }
    vt::fill(s, v);
    vt::fill(off, o);
    Gather(d, s, off, 0, 40);
    out = vt::get(d, 40);
  });
  for (int i = 0; i < 40; ++i) EXPECT_EQ(out[i], static_cast<float>(63 - i) * 10) << i;
}

// Gatherb (the documented example): 8 blocks of 32 B gathered by byte offsets, the last block first.
TEST(Gather, GatherbCollectsWholeBlocksByByteOffsets) {
  std::vector<uint16_t> out;
  vt::run_ok([&] {
    auto s = vt::ub<uint16_t>(0, 128), d = vt::ub<uint16_t>(1024, 256);
    auto off = vt::ub<uint32_t>(2048, 8);
    std::vector<uint16_t> v(128);
    for (int i = 0; i < 128; ++i) v[i] = static_cast<uint16_t>(i);
    vt::fill(s, v);
    vt::fill(off, std::vector<uint32_t>{224, 192, 160, 128, 96, 64, 32, 0});
    vt::fill(d, std::vector<uint16_t>(256, 0xffff));
    Gatherb(d, s, off, 1, GatherRepeatParams{2, 8});  // every other 32 B block of dst
    out = vt::get(d, 256);
  });
  for (int j = 0; j < 8; ++j) {
    for (int e = 0; e < 16; ++e) {
      EXPECT_EQ(out[j * 32 + e], (7 - j) * 16 + e) << j << " " << e;
      EXPECT_EQ(out[j * 32 + 16 + e], 0xffff) << "the skipped block " << j;
    }
  }
}

TEST(Gather, GatherbRefusesAnOffsetThatIsNotABlock) {
  auto r = vt::run([&] {
    auto s = vt::ub<uint32_t>(0, 64), d = vt::ub<uint32_t>(1024, 64);
    auto off = vt::ub<uint32_t>(2048, 8);
    vt::fill(off, std::vector<uint32_t>{0, 32, 64, 96, 16, 0, 0, 0});
    Gatherb(d, s, off, 1, GatherRepeatParams{1, 8});
  });
  ASSERT_TRUE(r.error.has_value());
  EXPECT_EQ(r.error->kind, aopt::sim::hw_error_kind::ub_out_of_bounds) << r.error->to_string();
  EXPECT_NE(r.error->message.find("offset[4] = 16 B"), std::string::npos) << r.error->message;
}

TEST(Gather, GatherMaskBuiltinAndUserPattern) {
  std::vector<uint16_t> even, odd, fourth;
  std::vector<uint32_t> user;
  uint64_t n_even = 0, n_odd = 0, n_fourth = 0, n_user = 0;
  vt::run_ok([&] {
    auto s = vt::ub<uint16_t>(0, 128), d = vt::ub<uint16_t>(1024, 128);
    std::vector<uint16_t> v(128);
    for (int i = 0; i < 128; ++i) v[i] = static_cast<uint16_t>(i + 1);
    vt::fill(s, v);
    GatherMask(d, s, static_cast<uint8_t>(1), false, 0, {1, 1, 0, 0}, n_even);
    even = vt::get(d, 64);
    GatherMask(d, s, static_cast<uint8_t>(2), false, 0, {1, 1, 0, 0}, n_odd);
    odd = vt::get(d, 64);
    GatherMask(d, s, static_cast<uint8_t>(6), false, 0, {1, 1, 0, 0}, n_fourth);
    fourth = vt::get(d, 32);
    // The documented user-pattern example: 256 uint32, counter mode, mask 70 per repeat,
    // 2 repeats, src0 repeat stride 4 blocks, pattern reused (src1RepeatStride 0).
    auto s32 = vt::ub<uint32_t>(2048, 256), d32 = vt::ub<uint32_t>(4096, 256);
    auto pat = vt::ub<uint32_t>(8192, 8);
    std::vector<uint32_t> w(256);
    for (int i = 0; i < 256; ++i) w[i] = static_cast<uint32_t>(i);
    vt::fill(s32, w);
    vt::fill(pat, std::vector<uint32_t>{0x80000001u, 0x00000003u, 0x20u, 0, 0, 0, 0, 0});
    GatherMask(d32, s32, pat, true, 70, {1, 2, 4, 0}, n_user);
    user = vt::get(d32, static_cast<std::size_t>(n_user));
  });
  EXPECT_EQ(n_even, 64u);
  EXPECT_EQ(n_odd, 64u);
  EXPECT_EQ(n_fourth, 32u);
  for (int k = 0; k < 64; ++k) {
    EXPECT_EQ(even[k], 2 * k + 1);
    EXPECT_EQ(odd[k], 2 * k + 2);
  }
  for (int k = 0; k < 32; ++k) EXPECT_EQ(fourth[k], 4 * k + 4);
  // Lanes 0, 31, 32, 33, 69 (bit 5 of word 2 = lane 69) in each repeat; repeat 1 starts at 32.
  const std::vector<uint32_t> want = {0, 31, 32, 33, 69, 32, 63, 64, 65, 101};
  ASSERT_EQ(n_user, want.size());
  EXPECT_EQ(user, want);
}
