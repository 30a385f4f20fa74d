// The register-level idioms of the norm family (cann-ops src/norm): the raw CCE intrinsics on
// __ubuf__ pointers (cce_intrinsics.h), the AscendC block/repeat constants, get_max_min_cnt,
// SetDeqScale, BroadCast, FusedMulAdd/MulAddDst, the global block_idx, and Sort32 (vec_sort.h),
// each against a plain C++ reference.
#include <algorithm>
#include <cstring>
#include <numeric>

#include "vec_test_util.h"
// The norm family's internal header, which declares nothing at global scope (as the real one).
#include "impl/dav_c220/kernel_operator_reg_others_impl.h"

using namespace AscendC;

static_assert(ONE_BLK_FLOAT_NUM == 8 && ONE_BLK_HALF_NUM == 16);
static_assert(ONE_REPEAT_FLOAT_SIZE == 64 && ONE_REPEAT_HALF_SIZE == 128);
static_assert(MAX_REPEAT_FLOAT_SIZE == 64 * 255 && MAX_REPEAT_HALF_SIZE == 128 * 255);

TEST(CceIntrinsics, VcaddSumsEachRepeatUnderTheMaskRegister) {
  // 6 rows of 128 floats (srcRepStride 16 blocks); the mask register selects the first 40 lanes.
  const int rows = 6, cols = 128;
  auto a = vt::random_vec<float>(rows * cols, -4, 4, 31);
  std::vector<float> got(rows * 2, -1.0f);
  auto r = vt::run_ok([&] {
    auto s = vt::ub<float>(0, rows * cols), d = vt::ub<float>(8192, 64);
    vt::fill(s, a);
    vt::fill(d, std::vector<float>(64, -1.0f));
    AscendCUtils::SetMask<float>(40);
    vcadd((__ubuf__ float*)d.GetPhyAddr(), (__ubuf__ float*)s.GetPhyAddr(), rows, 2, 1, 16, false);
    got = vt::get(d, rows * 2);
  });
  for (int i = 0; i < rows; ++i) {
    double ref = 0;
    for (int k = 0; k < 40; ++k) ref += a[i * cols + k];
    EXPECT_NEAR(got[i * 2], ref, 1e-4) << "row " << i;
    EXPECT_EQ(got[i * 2 + 1], -1.0f) << "dstRepStride 2 leaves the slot between results alone";
  }
  const auto recs = vt::vector_recs(r);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].vclass, aopt::sim::vec_class::reduce_sum);
  EXPECT_EQ(recs[0].repeats, static_cast<std::uint32_t>(rows));
}

TEST(CceIntrinsics, VcaddAccumulateModeAndPointersOutsideUbAreRefused) {
  auto r = vt::run([] {
    auto s = vt::ub<float>(0, 64);
    vcadd((__ubuf__ float*)s.GetPhyAddr(), (__ubuf__ float*)s.GetPhyAddr(), 1, 1, 1, 8, true);
  });
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->kind, aopt::sim::hw_error_kind::param_out_of_range);
  float outside[64] = {};
  r = vt::run([&] { vcadd((__ubuf__ float*)outside, (__ubuf__ float*)outside, 1, 1, 1, 8); });
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->kind, aopt::sim::hw_error_kind::ub_out_of_bounds);
}

TEST(CceIntrinsics, GetMaxMinCntHoldsTheLastReduceMaxValueAndIndex) {
  const int n = 300;
  auto a = vt::random_vec<float>(n, -5, 5, 32);
  a[211] = 9.5f;
  a[17] = -9.0f;
  std::uint64_t after_max = 0, after_min = 0;
  vt::run_ok([&] {
    auto s = vt::ub<float>(0, n), d = vt::ub<float>(4096, 8), w = vt::ub<float>(8192, 64);
    vt::fill(s, a);
    ReduceMax(d, s, w, n, true);
    after_max = get_max_min_cnt();
    ReduceMin(d, s, w, n, true);
    after_min = get_max_min_cnt();
  });
  float v = 0;
  std::memcpy(&v, &after_max, 4);
  EXPECT_EQ(v, 9.5f);
  EXPECT_EQ(after_max >> 32, 211u);
  std::memcpy(&v, &after_min, 4);
  EXPECT_EQ(v, -9.0f);
  EXPECT_EQ(after_min >> 32, 17u);
}

TEST(CceIntrinsics, VectorDupVorAndUbToUbCopy) {
  std::vector<int16_t> a(128), b(128);
  std::iota(a.begin(), a.end(), int16_t{0});
  for (int i = 0; i < 128; ++i) b[i] = static_cast<int16_t>(0x100 * (i % 5));
  std::vector<int16_t> dup, ord, cpy;
  vt::run_ok([&] {
    auto x = vt::ub<int16_t>(0, 128), y = vt::ub<int16_t>(1024, 128), z = vt::ub<int16_t>(2048, 256);
    vt::fill(x, a);
    vt::fill(y, b);
    AscendCUtils::SetMask<int16_t>(128);
    vector_dup((__ubuf__ int16_t*)z.GetPhyAddr(), (int16_t)7, 2, 1, 1, 8, 8);
    dup = vt::get(z, 256);
    vor((__ubuf__ int16_t*)z.GetPhyAddr(), (__ubuf__ int16_t*)x.GetPhyAddr(), (__ubuf__ int16_t*)y.GetPhyAddr(), 1,
        1, 1, 1, 8, 8, 8);
    ord = vt::get(z, 128);
    // Two bursts of 1 block, source gap 1 block, destination gap 0: blocks 0 and 2 of x.
    copy_ubuf_to_ubuf((__ubuf__ int16_t*)z.GetPhyAddr(), (__ubuf__ int16_t*)x.GetPhyAddr(), 0, 2, 1, 1, 0);
    cpy = vt::get(z, 32);
  });
  EXPECT_TRUE(std::all_of(dup.begin(), dup.end(), [](int16_t v) { return v == 7; }));
  for (int i = 0; i < 128; ++i) EXPECT_EQ(ord[i], static_cast<int16_t>(a[i] | b[i])) << i;
  for (int i = 0; i < 16; ++i) {
    EXPECT_EQ(cpy[i], a[i]);
    EXPECT_EQ(cpy[16 + i], a[32 + i]);
  }
}

TEST(CceIntrinsics, VtransposeAndScatterVnchwconvTranspose16x16) {
  std::vector<uint16_t> a(512);
  for (int i = 0; i < 512; ++i) a[i] = static_cast<uint16_t>(i * 7 + 1);
  std::vector<uint16_t> t, sc;
  vt::run_ok([&] {
    auto s = vt::ub<uint16_t>(0, 512), d = vt::ub<uint16_t>(4096, 512);
    vt::fill(s, a);
    vtranspose((__ubuf__ uint16_t*)d.GetPhyAddr(), (__ubuf__ uint16_t*)s.GetPhyAddr());
    t = vt::get(d, 256);
    // Source rows: 16 rows of 32 B, row j at byte s + 32 j; destination rows likewise at d + 32 i
    // (GetPhyAddr is a byte address, as on the chip). Two repeats: the second one 16 blocks (512 B)
    // further on both sides.
    uint64_t dst_rows[16], src_rows[16];
    for (int i = 0; i < 16; ++i) {
      dst_rows[i] = d.GetPhyAddr() + 32 * i;
      src_rows[i] = s.GetPhyAddr() + 32 * i;
    }
    set_va_reg_sb(VA0, dst_rows);
    set_va_reg_sb(VA1, dst_rows + 8);
    set_va_reg_sb(VA2, src_rows);
    set_va_reg_sb(VA3, src_rows + 8);
    scatter_vnchwconv_b16(VA0, VA2, 2, 16, 16);
    sc = vt::get(d, 512);
  });
  for (int i = 0; i < 16; ++i) {
    for (int j = 0; j < 16; ++j) {
      EXPECT_EQ(t[i * 16 + j], a[j * 16 + i]);
      EXPECT_EQ(sc[i * 16 + j], a[j * 16 + i]);
      EXPECT_EQ(sc[256 + i * 16 + j], a[256 + j * 16 + i]);
    }
  }
}

template <typename T>
static void check_sort32(std::uint32_t salt) {
  const int reps = 3, n = reps * 32;
  auto sc = vt::random_vec<T>(n, -3, 3, salt);
  sc[5] = sc[9] = static_cast<T>(2.5f);  // a tie: position 5 comes first
  std::vector<uint32_t> idx(n);
  for (int i = 0; i < n; ++i) idx[i] = 1000u + static_cast<uint32_t>(i);
  std::vector<std::byte> out(reps * 256);
  auto r = vt::run_ok([&] {
    auto s = vt::ub<T>(0, n);
    auto ix = vt::ub<uint32_t>(1024, n);
    auto d = vt::ub<T>(4096, reps * 256 / sizeof(T));
    vt::fill(s, sc);
    vt::fill(ix, idx);
    Sort32(d, s, ix, reps);
    std::memcpy(out.data(), d.aopt_ptr(), out.size());
  });
  for (int rp = 0; rp < reps; ++rp) {
    std::vector<int> order(32);
    std::iota(order.begin(), order.end(), rp * 32);
    std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return vt::f(sc[x]) > vt::f(sc[y]); });
    for (int k = 0; k < 32; ++k) {
      T s{};
      uint32_t i = 0;
      std::memcpy(&s, out.data() + rp * 256 + k * 8, sizeof(T));
      std::memcpy(&i, out.data() + rp * 256 + k * 8 + 4, 4);
      EXPECT_EQ(vt::f(s), vt::f(sc[order[k]])) << "repeat " << rp << " rank " << k;
      EXPECT_EQ(i, idx[order[k]]) << "repeat " << rp << " rank " << k;
    }
  }
  const auto recs = vt::vector_recs(r);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].repeats, static_cast<std::uint32_t>(reps));
}

TEST(Sort, Sort32FloatAndHalfDescendingWithIndices) {
  check_sort32<float>(33);
  check_sort32<half>(34);
}

TEST(NormIdioms, SetDeqScaleScalesTheInt32ToHalfCast) {
  std::vector<int32_t> a = {0, 1, -3, 100, 2047, -2048, 7, 40000};
  a.resize(16, 5);
  std::vector<half> plain, scaled, rint;
  vt::run_ok([&] {
    auto s = vt::ub<int32_t>(0, 16);
    auto d = vt::ub<half>(1024, 16);
    vt::fill(s, a);
    Cast(d, s, RoundMode::CAST_NONE, 16);
    plain = vt::get(d, 16);
    SetDeqScale((half)0.25f);
    Cast(d, s, RoundMode::CAST_NONE, 16);
    scaled = vt::get(d, 16);
    Cast(d, s, RoundMode::CAST_RINT, 16);  // not the deq form: the scale does not apply
    rint = vt::get(d, 16);
  });
  for (int i = 0; i < 16; ++i) {
    EXPECT_EQ(vt::f(plain[i]), static_cast<float>(static_cast<half>(static_cast<float>(a[i])))) << i;
    EXPECT_EQ(vt::f(scaled[i]), static_cast<float>(static_cast<half>(a[i] * 0.25f))) << i;
    EXPECT_EQ(vt::f(rint[i]), vt::f(plain[i])) << i;
  }
}

TEST(NormIdioms, BroadCastRowsColumnsAndScalar) {
  const uint32_t rows = 3, cols = 40;
  auto row = vt::random_vec<float>(cols, -2, 2, 35);
  auto col = vt::random_vec<float>(rows, -2, 2, 36);
  std::vector<float> by_row, by_col, one;
  auto r = vt::run_ok([&] {
    auto s = vt::ub<float>(0, cols), c = vt::ub<float>(512, rows), d = vt::ub<float>(1024, rows * cols);
    auto tmp = vt::ub<uint8_t>(8192, 1024);
    vt::fill(s, row);
    vt::fill(c, col);
    const uint32_t dst2[2] = {rows, cols}, src_row[2] = {1, cols}, src_col[2] = {rows, 1};
    BroadCast<float, 2, 0>(d, s, dst2, src_row, tmp);
    by_row = vt::get(d, rows * cols);
    BroadCast<float, 2, 1>(d, c, dst2, src_col);
    by_col = vt::get(d, rows * cols);
    const uint32_t dst1[1] = {cols}, src1[1] = {1};
    BroadCast<float, 1, 0>(d, c, dst1, src1);
    one = vt::get(d, cols);
  });
  for (uint32_t i = 0; i < rows; ++i) {
    for (uint32_t j = 0; j < cols; ++j) {
      EXPECT_EQ(by_row[i * cols + j], row[j]);
      EXPECT_EQ(by_col[i * cols + j], col[i]);
    }
  }
  for (uint32_t j = 0; j < cols; ++j) EXPECT_EQ(one[j], col[0]);
  EXPECT_EQ(vt::vector_recs(r).size(), 3u);
  auto bad = vt::run([] {
    const uint32_t dst2[2] = {2, 8}, src[2] = {2, 8};
    BroadCast<float, 2, 0>(vt::ub<float>(0, 16), vt::ub<float>(256, 16), dst2, src);
  });
  ASSERT_TRUE(bad.error);
  EXPECT_EQ(bad.error->kind, aopt::sim::hw_error_kind::param_out_of_range);
}

TEST(NormIdioms, FusedMulAddAndMulAddDst) {
  const int n = 100;
  auto a = vt::random_vec<float>(n, -2, 2, 37), b = vt::random_vec<float>(n, -2, 2, 38),
       c = vt::random_vec<float>(n, -2, 2, 39);
  std::vector<float> fused, dstacc;
  auto r = vt::run_ok([&] {
    auto x = vt::ub<float>(0, n), y = vt::ub<float>(512, n), d = vt::ub<float>(1024, n);
    vt::fill(x, a);
    vt::fill(y, b);
    vt::fill(d, c);
    FusedMulAdd(d, x, y, n);
    fused = vt::get(d, n);
    vt::fill(d, c);
    MulAddDst(d, x, y, n);
    dstacc = vt::get(d, n);
  });
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(fused[i], a[i] * c[i] + b[i]) << i;
    EXPECT_EQ(dstacc[i], a[i] * b[i] + c[i]) << i;
  }
  const auto recs = vt::vector_recs(r);
  ASSERT_EQ(recs.size(), 2u);
  EXPECT_EQ(recs[0].vclass, aopt::sim::vec_class::mul_add);
  EXPECT_EQ(recs[0].repeats, 2u);
}

// A kernel's own is_same in its namespace, used beside AscendC through using-directives (cann-ops
// max_pool3d_grad_with_argmax): the internal header declares none, as the real one, so the name is
// unambiguous.
namespace own_common {
template <typename, typename>
struct is_same {
  static constexpr bool value = false;
};
template <typename T>
struct is_same<T, T> {
  static constexpr bool value = true;
};
}  // namespace own_common
using namespace own_common;
namespace own_kernel {
using namespace AscendC;
using namespace own_common;
static_assert(is_same<float, float>::value && !is_same<half, float>::value, "the kernel's own is_same");
}  // namespace own_kernel

TEST(NormIdioms, GlobalBlockIdx) {
  aopt::sim::launch_options o;
  o.block_dim = 3;
  std::vector<int64_t> seen(3, -1);
  const auto r = aopt::sim::launch(o, [&] {
    const int64_t i = block_idx;
    seen[static_cast<std::size_t>(i)] = block_idx * 10 + GetBlockIdx();
  });
  ASSERT_FALSE(r.error);
  for (int64_t i = 0; i < 3; ++i) EXPECT_EQ(seen[i], i * 11);
}
