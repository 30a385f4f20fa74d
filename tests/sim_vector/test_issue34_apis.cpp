// Issue 34: kernel APIs sim lacked, each checked for its documented values (AscendC basic and
// advanced API): TransDataTo5HD (three forms, internal Impl form; 1-, 2-, 4-byte elements),
// Arange/ArithProgression, get_block_idx, the kernel assert and ASSERT_MSG, TQueSync,
// CrossCoreSetFlag/CrossCoreWaitFlag (mode 0), ToBfloat16, IsSameType, int4b_t,
// GetDataBlockSizeInBytes, PopStackBuffer, DuplicateImpl, DataCopyUB2GMImpl,
// DataCopyPadGm2UBImpl, Tan/Sinh/Cosh/Erfc, the scalar Ceil(uint32_t, uint32_t), and the header
// names kernels include.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

// The kernel assert is compiled out under NDEBUG (release test builds define it): this file
// checks it, so it is on here, as in kernel builds.
#undef NDEBUG
// GoogleTest includes <cassert>, whose assert(expr) replaces the kernel's: first.
#include "vec_test_util.h"

#include "kernel_log.h"
#include "kernel_operator_intf.h"
#include "kernel_type.h"
#include "lib/math/kernel_operator_cosh_intf.h"
#include "lib/math/kernel_operator_tan_intf.h"
#include "lib/sigmoid/kernel_operator_sigmoid_intf.h"

using namespace AscendC;
using aopt::sim::hw_error_kind;
using aopt::sim::rec_kind;

namespace {

aopt::sim::launch_result run_blocks(std::uint32_t blocks, const std::function<void()>& body) {
  aopt::sim::launch_options o;
  o.block_dim = blocks;
  return aopt::sim::launch(o, body);
}

// ---- TransDataTo5HD ----------------------------------------------------------------------------

TEST(Issue34Api, TransDataTo5HDHalfTransposes16By16) {
  std::vector<std::uint16_t> out(256);
  vt::run_ok([&] {
    auto src = vt::ub<std::uint16_t>(0, 256), dst = vt::ub<std::uint16_t>(1024, 256);
    for (int i = 0; i < 256; ++i) src.aopt_ptr()[i] = static_cast<std::uint16_t>(i);
    std::uint64_t d[16], s[16];
    for (int i = 0; i < 16; ++i) {
      d[i] = reinterpret_cast<std::uintptr_t>(dst[16 * i].GetPhyAddr());
      s[i] = reinterpret_cast<std::uintptr_t>(src[16 * i].GetPhyAddr());
    }
    TransDataTo5HDParams p;
    p.repeatTimes = 1;
    TransDataTo5HD<half>(d, s, p);
    out = vt::get(dst, 256);
  });
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 16; ++c) EXPECT_EQ(out[r * 16 + c], c * 16 + r) << r << "," << c;
}

// NCHW (C = 16, H*W = 16) -> NC1HWC0 with 4-byte data: C0 = 16, two blocks per HW position.
TEST(Issue34Api, TransDataTo5HDFloatNchwToNc1hwc0WithRepeats) {
  constexpr int C = 16, HW = 16;
  std::vector<float> out(C * HW);
  auto r = vt::run_ok([&] {
    auto src = vt::ub<float>(0, C * HW), dst = vt::ub<float>(2048, C * HW);
    for (int c = 0; c < C; ++c)
      for (int p = 0; p < HW; ++p) src.aopt_ptr()[c * HW + p] = static_cast<float>(100 * c + p);
    LocalTensor<float> dl[16], sl[16];
    for (int i = 0; i < 16; ++i) {
      sl[i] = src[i * HW];  // channel planes
      dl[i] = dst[8 * i];   // consecutive blocks
    }
    TransDataTo5HDParams p(false, false, HW / 8, 16, 1);
    TransDataTo5HD<float>(dl, sl, p);
    out = vt::get(dst, C * HW);
  });
  for (int p = 0; p < HW; ++p)
    for (int c = 0; c < C; ++c) EXPECT_EQ(out[p * C + c], static_cast<float>(100 * c + p)) << p << "," << c;
  const auto recs = vt::vector_recs(r);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].repeats, 4u);  // 2 repeats of 8 positions: 2 unary repeats each
}

TEST(Issue34Api, TransDataTo5HDInt8HalvesAndImplForm) {
  std::vector<std::uint8_t> out(512);
  vt::run_ok([&] {
    auto src = vt::ub<std::uint8_t>(0, 512), dst = vt::ub<std::uint8_t>(1024, 512);
    for (int i = 0; i < 512; ++i) src.aopt_ptr()[i] = static_cast<std::uint8_t>(i % 251);
    std::memset(dst.aopt_ptr(), 0, 512);
    __ubuf__ std::uint8_t* d[16];
    __ubuf__ std::uint8_t* s[16];
    for (int i = 0; i < 16; ++i) {
      d[i] = reinterpret_cast<__ubuf__ std::uint8_t*>(dst.GetPhyAddr(32 * i));
      s[i] = reinterpret_cast<__ubuf__ std::uint8_t*>(src.GetPhyAddr(32 * i));
    }
    TransDataTo5HDParams p;
    p.srcHighHalf = true;  // elements 16..31 of every source block
    p.dstHighHalf = false; // into the lower half of each destination block
    TransDataTo5HDImpl(d, s, p);
    out = vt::get(dst, 512);
  });
  for (int j = 0; j < 16; ++j) {
    for (int i = 0; i < 16; ++i) EXPECT_EQ(out[32 * j + i], (32 * i + 16 + j) % 251) << j << "," << i;
    for (int i = 16; i < 32; ++i) EXPECT_EQ(out[32 * j + i], 0) << "upper half untouched";
  }
}

TEST(Issue34Api, TransDataTo5HDMisalignedAddressIsAnError) {
  auto r = vt::run([] {
    auto t = vt::ub<half>(0, 1024);
    std::uint64_t d[16], s[16];
    for (int i = 0; i < 16; ++i) {
      d[i] = reinterpret_cast<std::uintptr_t>(t[512 + 16 * i].GetPhyAddr());
      s[i] = reinterpret_cast<std::uintptr_t>(t[16 * i + 1].GetPhyAddr());
    }
    TransDataTo5HD<half>(d, s, TransDataTo5HDParams{});
  });
  ASSERT_TRUE(r.error.has_value());
  EXPECT_EQ(r.error->kind, hw_error_kind::misaligned);
}

// ---- Arange / ArithProgression -----------------------------------------------------------------

TEST(Issue34Api, ArithProgressionIntAndFloat) {
  std::vector<std::int32_t> vi;
  std::vector<float> vf;
  std::vector<half> vh;
  auto r = vt::run_ok([&] {
    auto ti = vt::ub<std::int32_t>(0, 200);
    ArithProgression<int>(ti, 5, 3, 150);
    vi = vt::get(ti, 150);
    auto tf = vt::ub<float>(1024, 100);
    ArithProgression(tf, -1.0f, 0.25f, 100);
    vf = vt::get(tf, 100);
    auto th = vt::ub<half>(2048, 16);
    Arange<half>(th, static_cast<half>(0.0f), static_cast<half>(1.0f), 10);
    vh = vt::get(th, 10);
  });
  for (int i = 0; i < 150; ++i) EXPECT_EQ(vi[i], 5 + 3 * i) << i;
  for (int i = 0; i < 100; ++i) EXPECT_FLOAT_EQ(vf[i], -1.0f + 0.25f * static_cast<float>(i)) << i;
  for (int i = 0; i < 10; ++i) EXPECT_EQ(static_cast<float>(vh[i]), static_cast<float>(i));
  // 150 ints: 8 by SetValue, 7 blocks of 8 to 64, then 2 blocks of 64: 9 vector records.
  std::size_t n = 0;
  for (const auto& rec : r.cores[0].recs) {
    if (rec.kind == rec_kind::vector && r.cores[0].sites[rec.site].api == "Arange") ++n;
  }
  EXPECT_GE(n, 9u);
}

// ---- system variables, types, assert -----------------------------------------------------------

TEST(Issue34Api, BlockIdxTypesAndConstants) {
  std::vector<std::int64_t> idx(3, -1);
  auto r = run_blocks(3, [&] {
    idx[static_cast<std::size_t>(get_block_idx())] = get_block_num();
  });
  ASSERT_FALSE(r.error.has_value()) << r.error->to_string();
  EXPECT_EQ(idx, (std::vector<std::int64_t>{3, 3, 3}));
  static_assert(IsSameType<half, half>::value && !IsSameType<half, float>::value);
  static_assert(GetDataBlockSizeInBytes() == 32);
  static_assert(sizeof(int4b_t) == 1);
  EXPECT_EQ(ToBfloat16(1.5f).ToFloat(), 1.5f);
  EXPECT_EQ(ToBfloat16(1.00390625f).ToFloat(), 1.0f);  // rounds to the nearest even bfloat16
  EXPECT_EQ(g_coreType, AscendC::AIV);
}

TEST(Issue34Api, KernelAssertWithAndWithoutMessage) {
  auto ok = vt::run([] {
    int v = 10;
    assert(v == 10);
    assert(v == 10, "v is %d\n", v);
    ASSERT_MSG(v > 0, "positive %d", v);
  });
  ASSERT_FALSE(ok.error.has_value()) << ok.error->to_string();
  auto bad = vt::run([] {
    int v = 7;
    half h = static_cast<half>(2.5f);
    assert(v == 10, "v is %d, h is %.1f", v, h);
  });
  ASSERT_TRUE(bad.error.has_value());
  EXPECT_EQ(bad.error->kind, hw_error_kind::invalid_use);
  EXPECT_NE(bad.error->message.find("v == 10"), std::string::npos) << bad.error->message;
  EXPECT_NE(bad.error->message.find("v is 7, h is 2.5"), std::string::npos) << bad.error->message;
  EXPECT_NE(bad.error->site.file.find("test_issue34_apis.cpp"), std::string::npos);
  auto msg = vt::run([] {
    int osize = 0;
    ASSERT_MSG(osize != 0, "Division by zero error!");
  });
  ASSERT_TRUE(msg.error.has_value());
  EXPECT_NE(msg.error->message.find("Division by zero error!"), std::string::npos) << msg.error->message;
}

// ---- synchronisation ----------------------------------------------------------------------------

TEST(Issue34Api, TQueSyncRecordsThePipePairsFlags) {
  auto r = vt::run_ok([] {
    TQueSync<PIPE_MTE2, PIPE_V> s1;
    s1.SetFlag(2);
    s1.WaitFlag(2);
    TQueSync<PIPE_V, PIPE_MTE3> s2;
    s2.SetFlag(3);
    s2.WaitFlag(3);
  });
  std::vector<std::tuple<rec_kind, aopt::sim::pipe, aopt::sim::pipe, int>> got;
  for (const auto& rec : r.cores[0].recs) {
    if (rec.kind == rec_kind::set_flag || rec.kind == rec_kind::wait_flag) got.emplace_back(rec.kind, rec.src, rec.dst, rec.event);
  }
  using P = aopt::sim::pipe;
  const decltype(got) want = {{rec_kind::set_flag, P::mte2, P::v, 2},
                              {rec_kind::wait_flag, P::mte2, P::v, 2},
                              {rec_kind::set_flag, P::v, P::mte3, 3},
                              {rec_kind::wait_flag, P::v, P::mte3, 3}};
  EXPECT_EQ(got, want);
}

// Mode 0: every AIV core reports, then each waits until all have: block 0's write is visible to
// the others after the wait.
TEST(Issue34Api, CrossCoreFlagsMode0SynchroniseAllBlocks) {
  std::vector<int> shared(1, 0), seen(4, -1);
  auto r = run_blocks(4, [&] {
    if (GetBlockIdx() == 0) shared[0] = 42;
    CrossCoreSetFlag<0x0, PIPE_MTE3>(1);
    CrossCoreWaitFlag(1);
    seen[static_cast<std::size_t>(GetBlockIdx())] = shared[0];
  });
  ASSERT_FALSE(r.error.has_value()) << r.error->to_string();
  EXPECT_EQ(seen, (std::vector<int>{42, 42, 42, 42}));
  auto unset = run_blocks(2, [] { CrossCoreWaitFlag(2); });
  ASSERT_TRUE(unset.error.has_value());
  EXPECT_EQ(unset.error->kind, hw_error_kind::deadlock);
  auto mode2 = run_blocks(1, [] { CrossCoreSetFlag<0x2, PIPE_MTE3>(1); });
  ASSERT_TRUE(mode2.error.has_value());
  EXPECT_NE(mode2.error->message.find("Cube"), std::string::npos) << mode2.error->message;
}

// ---- internal functions ------------------------------------------------------------------------

TEST(Issue34Api, InternalImplFunctions) {
  constexpr int n = 64;
  std::vector<std::int16_t> gm_out(n + 16, 0);
  std::vector<float> gm_in(n);
  for (int i = 0; i < n; ++i) gm_in[static_cast<std::size_t>(i)] = static_cast<float>(i) + 0.5f;
  auto* out = static_cast<std::int16_t*>(aopt::sim::gm_alloc(gm_out.size() * 2, "out"));
  auto* in = static_cast<float*>(aopt::sim::gm_alloc(n * 4, "in"));
  std::memcpy(in, gm_in.data(), n * 4);
  std::vector<float> padded;
  std::uint32_t stack_bytes = 0;
  vt::run_ok([&] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 1000);
    LocalTensor<std::int16_t> pop;
    if (!PopStackBuffer<std::int16_t, TPosition::LCM>(pop)) return;
    stack_bytes = pop.GetSize() * 2;
    DuplicateImpl<std::int16_t>(reinterpret_cast<__ubuf__ std::int16_t*>(pop.GetPhyAddr()), 7, n);
    SetFlag<HardEvent::V_MTE3>(0);
    WaitFlag<HardEvent::V_MTE3>(0);
    DataCopyParams cp{1, static_cast<uint16_t>(n * 2 / 32), 0, 0};
    DataCopyUB2GMImpl(reinterpret_cast<__gm__ std::int16_t*>(out), reinterpret_cast<__ubuf__ std::int16_t*>(pop.GetPhyAddr()), cp);
    LocalTensor<float> f = b.Get<float>();
    DataCopyExtParams ep{1, 20 * 4, 0, 0, 0};
    DataCopyPadExtParams<float> pp{true, 0, 4, -1.0f};
    DataCopyPadGm2UBImpl(reinterpret_cast<__ubuf__ float*>(f.GetPhyAddr()), reinterpret_cast<__gm__ float*>(in), ep, pp);
    padded = vt::get(f, 24);
  });
  EXPECT_EQ(stack_bytes, aopt::sim::launch_options{}.ub_bytes - 1024u);
  for (int i = 0; i < n; ++i) EXPECT_EQ(out[i], 7) << i;
  for (int i = 0; i < 20; ++i) EXPECT_EQ(padded[static_cast<std::size_t>(i)], gm_in[static_cast<std::size_t>(i)]);
  for (int i = 20; i < 24; ++i) EXPECT_EQ(padded[static_cast<std::size_t>(i)], -1.0f) << "right padding";
  aopt::sim::gm_free(out);
  aopt::sim::gm_free(in);
}

// ---- advanced unary functions of the foreach family ---------------------------------------------

TEST(Issue34Api, TanSinhCoshErfc) {
  const auto x = vt::random_vec<float>(64, -1.2f, 1.2f, 77);
  std::vector<float> t, sh, ch, ec;
  vt::run_ok([&] {
    auto s = vt::ub<float>(0, 64), d = vt::ub<float>(512, 64);
    vt::fill(s, x);
    Tan(d, s, 64u);
    t = vt::get(d, 64);
    Sinh(d, s, 64u);
    sh = vt::get(d, 64);
    Cosh(d, s, 64u);
    ch = vt::get(d, 64);
    Erfc(d, s, 64u);
    ec = vt::get(d, 64);
  });
  for (int i = 0; i < 64; ++i) {
    EXPECT_NEAR(t[i], std::tan(x[i]), 1e-5f * (1 + std::fabs(std::tan(x[i]))));
    EXPECT_NEAR(sh[i], std::sinh(x[i]), 1e-6f);
    EXPECT_NEAR(ch[i], std::cosh(x[i]), 1e-6f);
    EXPECT_NEAR(ec[i], std::erfc(x[i]), 1e-6f);
  }
}

TEST(Issue34Api, GetReduceMaxMinCountReadsTheLastWholeReduceMax) {
  float val = 0, idx = 0;
  vt::run_ok([&] {
    auto s = vt::ub<float>(0, 128), d = vt::ub<float>(512, 16);
    for (int i = 0; i < 128; ++i) s.aopt_ptr()[i] = static_cast<float>((i * 37) % 101);
    WholeReduceMax(d, s, 64, 2, 1, 1, 8, ReduceOrder::ORDER_VALUE_INDEX);
    GetReduceMaxMinCount<float>(val, idx);
  });
  // Over both repeats the largest value is 100: (i * 37) % 101 == 100 at i = 30, in repeat 0.
  std::uint32_t index = 0;
  std::memcpy(&index, &idx, 4);
  EXPECT_EQ(val, 100.0f);
  EXPECT_EQ(index, 30u);
}

// ---- SoftMax ----------------------------------------------------------------------------------------

TEST(Issue34Api, SoftMaxRowsWithSumAndMaxAndTheHostTiling) {
  constexpr std::uint32_t m = 3, k = 16;
  const auto x = vt::random_vec<float>(m * k, -3.0f, 3.0f, 91);
  SoftMaxTiling tiling;
  SoftMaxTilingFunc(ge::Shape(std::vector<int64_t>{m, k}), 4, GetSoftMaxMinTmpSize(ge::Shape(std::vector<int64_t>{m, k}), 4, false),
                    tiling);
  EXPECT_EQ(tiling.srcM, m);
  EXPECT_EQ(tiling.srcK, k);
  EXPECT_EQ(tiling.outMaxK, 8u);
  std::vector<float> y, sum, mx, y2;
  std::vector<half> yh;
  vt::run_ok([&] {
    auto src = vt::ub<float>(0, m * k), dst = vt::ub<float>(512, m * k);
    auto s = vt::ub<float>(1024, m * 8), mxt = vt::ub<float>(1280, m * 8);
    vt::fill(src, x);
    SoftMax<float>(dst, s, mxt, src, tiling);  // the shape from the tiling
    y = vt::get(dst, m * k);
    sum = vt::get(s, m * 8);
    mx = vt::get(mxt, m * 8);
    SoftMax<float>(src, src, tiling, SoftMaxShapeInfo{m, k, m, k});  // in place, no sum/max
    y2 = vt::get(src, m * k);
    auto hs = vt::ub<half>(2048, m * k), hd = vt::ub<half>(2304, m * k);
    for (std::uint32_t i = 0; i < m * k; ++i) hs.aopt_ptr()[i] = static_cast<half>(x[i]);
    SoftMax<half>(hd, s, mxt, hs, tiling, SoftMaxShapeInfo{m, k, m, k});
    yh = vt::get(hd, m * k);
  });
  for (std::uint32_t r = 0; r < m; ++r) {
    float want_max = -1e30f, want_sum = 0.0f;
    for (std::uint32_t c = 0; c < k; ++c) want_max = std::max(want_max, x[r * k + c]);
    for (std::uint32_t c = 0; c < k; ++c) want_sum += std::exp(x[r * k + c] - want_max);
    for (std::uint32_t j = 0; j < 8; ++j) {
      EXPECT_FLOAT_EQ(mx[r * 8 + j], want_max);
      EXPECT_NEAR(sum[r * 8 + j], want_sum, 1e-5f * want_sum);
    }
    float row_total = 0.0f;
    for (std::uint32_t c = 0; c < k; ++c) {
      const float want = std::exp(x[r * k + c] - want_max) / want_sum;
      EXPECT_NEAR(y[r * k + c], want, 1e-6f);
      EXPECT_EQ(y2[r * k + c], y[r * k + c]);
      EXPECT_NEAR(static_cast<float>(yh[r * k + c]), want, 2e-3f);
      row_total += y[r * k + c];
    }
    EXPECT_NEAR(row_total, 1.0f, 1e-5f);
  }
}

// The scalar Ceil of kernel_operator.h: one (uint32_t, uint32_t) function, so mixed integer
// arguments convert (grid_sample: `Ceil(calCElems, B32_ALIGN_FACTOR)`, an int32_t and an int64_t
// constant; adaptive_max_pool3d: `Ceil(long, int64_t)`).
TEST(ScalarCeil, MixedIntegerArgumentsConvertToUint32) {
  const std::int32_t elems = 17;
  const std::int64_t factor = 8;
  EXPECT_EQ(Ceil(elems, factor) * factor, 24);
  const long span = 10;
  EXPECT_EQ(Ceil(span, std::int64_t{5}), 2u);
  EXPECT_EQ(Ceil(0, 4), 0u);
  EXPECT_EQ(Ceil(7u, 0u), 0u) << "a zero divisor answers 0";
  static_assert(std::is_same_v<decltype(Ceil(elems, factor)), std::uint32_t>);
}

}  // namespace

// A kernel's own one-type template Ceil beside `using namespace AscendC;` stays the one called for
// its own argument types (not ambiguous with the API's).
namespace own_ceil_user {
using namespace AscendC;
template <typename T>
inline T Ceil(T a, T b) {
  return (a + b - 1) / b + 100;  // + 100: shows which one was called
}
inline std::int64_t tiles(std::int64_t n, std::int64_t per) { return Ceil(n, per); }
}  // namespace own_ceil_user

TEST(ScalarCeil, KernelsOwnTemplateCeilStaysTheExactMatch) {
  EXPECT_EQ(own_ceil_user::tiles(10, 3), 104);
}
