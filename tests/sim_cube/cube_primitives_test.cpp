// The Cube unit's primitives (issue 38, item 1): a matmul kernel of our own written as real
// AscendC cube kernels are (GM -> A1/B1 with Nd2Nz, LoadData to A2/B2, Mmad into CO1, Fixpipe to
// GM), its values against a plain C++ reference for half, bfloat16 and int8 inputs, with
// accumulation, bias, ReLU, quantisation and the NZ output; the positions' capacities and the
// records on the cube pipes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "kernel_operator.h"
#include "sim_core_test_util.h"

using namespace AscendC;
using aopt::sim::rec_kind;
using aopt::sim::test::gm_buffer;
using aopt::sim::test::run;
using spipe = aopt::sim::pipe;

namespace {

constexpr std::uint32_t seed = 38;

std::uint32_t ceil16(std::uint32_t v) { return (v + 15) / 16 * 16; }

// C = A (m x k, ND) x B (k x n, ND) through L1/L0 for 2-byte inputs (half or bfloat16_t):
// the whole problem fits one base block. `mode` selects the Fixpipe output.
struct mm_opts {
  bool relu = false;
  bool split_k = false;      // two Mmads over the two halves of k, the second accumulating
  const float* bias = nullptr;  // host values; the kernel reads them from GM (bias_gm)
  GM_ADDR bias_gm = nullptr;
  QuantMode_t quant = QuantMode_t::NoQuant;
};

template <typename In, typename Out>
void mm_kernel_b16(GM_ADDR a, GM_ADDR b, GM_ADDR c, std::uint32_t m, std::uint32_t k, std::uint32_t n, mm_opts o) {
  TPipe pipe;
  TQue<TPosition::A1, 1> qa1;
  TQue<TPosition::B1, 1> qb1;
  TQue<TPosition::A2, 1> qa2;
  TQue<TPosition::B2, 1> qb2;
  TQue<TPosition::CO1, 1> qc;
  TBuf<TPosition::C2> bias_buf;
  TBuf<TPosition::C1> bias_l1;
  const std::uint32_t M = ceil16(m), K = ceil16(k), N = ceil16(n);
  pipe.InitBuffer(qa1, 1, M * K * sizeof(In));
  pipe.InitBuffer(qb1, 1, K * N * sizeof(In));
  pipe.InitBuffer(qa2, 1, M * K * sizeof(In));
  pipe.InitBuffer(qb2, 1, K * N * sizeof(In));
  pipe.InitBuffer(qc, 1, M * N * sizeof(float));
  pipe.InitBuffer(bias_buf, N * sizeof(float));
  pipe.InitBuffer(bias_l1, N * sizeof(float));
  GlobalTensor<In> ga, gb;
  GlobalTensor<Out> gc;
  ga.SetGlobalBuffer(reinterpret_cast<__gm__ In*>(a), m * k);
  gb.SetGlobalBuffer(reinterpret_cast<__gm__ In*>(b), k * n);
  gc.SetGlobalBuffer(reinterpret_cast<__gm__ Out*>(c), m * n);

  LocalTensor<In> a1 = qa1.AllocTensor<In>();
  LocalTensor<In> b1 = qb1.AllocTensor<In>();
  // ND -> NZ: one matrix, rows of d elements into 16-column blocks M (K) rows apart.
  DataCopy(a1, ga, Nd2NzParams(1, m, k, 0, k, M, 1, 0));
  DataCopy(b1, gb, Nd2NzParams(1, k, n, 0, n, K, 1, 0));
  qa1.EnQue(a1);
  qb1.EnQue(b1);
  a1 = qa1.DeQue<In>();
  b1 = qb1.DeQue<In>();

  LocalTensor<In> a2 = qa2.AllocTensor<In>();
  LocalTensor<In> b2 = qb2.AllocTensor<In>();
  // A: Nz (column blocks) -> Zz (row of fractals per m-block).
  for (std::uint32_t i = 0; i < M / 16; ++i) {
    LoadData(a2[i * K * 16], a1, LoadData2DParams(i, K / 16, M / 16, 0, 0, false, 0));
  }
  // B: Nz -> Zn, each fractal transposed.
  for (std::uint32_t i = 0; i < K / 16; ++i) {
    LoadData(b2[i * N * 16], b1, LoadData2DParams(i, N / 16, K / 16, 0, 0, true, 0));
  }
  qa1.FreeTensor(a1);
  qb1.FreeTensor(b1);
  qa2.EnQue(a2);
  qb2.EnQue(b2);
  a2 = qa2.DeQue<In>();
  b2 = qb2.DeQue<In>();

  LocalTensor<float> c1 = qc.AllocTensor<float>();
  if (o.bias != nullptr) {
    // GM -> L1 (C1) -> bias table (C2): blockLen in 64-byte units of the destination.
    GlobalTensor<float> gbias;
    gbias.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(o.bias_gm), N);
    LocalTensor<float> l1b = bias_l1.Get<float>();
    DataCopy(l1b, gbias, N);
    SetFlag<HardEvent::MTE2_MTE1>(0);
    WaitFlag<HardEvent::MTE2_MTE1>(0);
    LocalTensor<float> bt = bias_buf.Get<float>();
    DataCopy(bt, l1b, DataCopyParams(1, static_cast<std::uint16_t>(N * sizeof(float) / 64), 0, 0));
    SetFlag<HardEvent::MTE1_M>(1);
    WaitFlag<HardEvent::MTE1_M>(1);
    MmadParams p;
    p.m = m; p.n = n; p.k = k;
    Mmad(c1, a2, b2, bt, p);
  } else if (o.split_k) {
    const std::uint32_t k0 = K / 2;  // a multiple of 16: the first half's fractals
    MmadParams p;
    p.m = m; p.n = n; p.k = k0;
    Mmad(c1, a2, b2, p);
    MmadParams q;
    q.m = m; q.n = n; q.k = k - k0;
    q.cmatrixInitVal = false;
    // The second half of k: A's fractals from column block k0/16 on (Zz: per m-block rows of
    // K/16 fractals, so the k-offset needs a separate view per m-block: use a single m-block).
    Mmad(c1, a2[k0 * 16], b2[k0 * N], q);
  } else {
    MmadParams p;
    p.m = m; p.n = n; p.k = k;
    Mmad(c1, a2, b2, p);
  }
  qa2.FreeTensor(a2);
  qb2.FreeTensor(b2);
  qc.EnQue(c1);
  c1 = qc.DeQue<float>();
  FixpipeParamsV220 f(n, m, M, n, o.relu);
  f.quantPre = o.quant;
  Fixpipe<Out, float, CFG_ROW_MAJOR>(gc, c1, f);
  qc.FreeTensor(c1);
}

template <typename In>
std::vector<In> rand_matrix(std::uint32_t rows, std::uint32_t cols, std::mt19937& g) {
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<In> v(rows * cols);
  for (auto& x : v) x = In(d(g));
  return v;
}

template <typename In>
std::vector<double> ref_mm(const std::vector<In>& a, const std::vector<In>& b, std::uint32_t m, std::uint32_t k,
                           std::uint32_t n) {
  std::vector<double> c(m * n, 0.0);
  for (std::uint32_t i = 0; i < m; ++i)
    for (std::uint32_t j = 0; j < n; ++j) {
      double s = 0;
      for (std::uint32_t t = 0; t < k; ++t)
        s += static_cast<double>(static_cast<float>(a[i * k + t])) * static_cast<double>(static_cast<float>(b[t * n + j]));
      c[i * n + j] = s;
    }
  return c;
}

template <typename In, typename Out>
std::vector<Out> run_mm(std::uint32_t m, std::uint32_t k, std::uint32_t n, const std::vector<In>& a,
                        const std::vector<In>& b, mm_opts o, aopt::sim::launch_result* out = nullptr) {
  gm_buffer ga(a.size() * sizeof(In), "a"), gb(b.size() * sizeof(In), "b"), gc(m * n * sizeof(Out), "c");
  gm_buffer gbias(ceil16(n) * sizeof(float), "bias");
  if (o.bias != nullptr) {
    std::memset(gbias.get(), 0, ceil16(n) * sizeof(float));
    std::memcpy(gbias.get(), o.bias, n * sizeof(float));
    o.bias_gm = gbias.get();
  }
  std::memcpy(ga.get(), a.data(), a.size() * sizeof(In));
  std::memcpy(gb.get(), b.data(), b.size() * sizeof(In));
  auto r = run(1, [&] { mm_kernel_b16<In, Out>(ga.get(), gb.get(), gc.get(), m, k, n, o); });
  EXPECT_FALSE(r.error) << (r.error ? r.error->to_string() : "");
  std::vector<Out> c(m * n);
  std::memcpy(c.data(), gc.get(), c.size() * sizeof(Out));
  if (out != nullptr) *out = std::move(r);
  return c;
}

TEST(CubePrimitives, HalfMatmulMatchesTheReference) {
  std::printf("seed %u\n", seed);
  std::mt19937 g(seed);
  // m and n not multiples of 16 (fractal padding), k not a multiple of 16 (Nd2Nz zero fill).
  const std::uint32_t m = 37, k = 40, n = 48;
  auto a = rand_matrix<half>(m, k, g);
  auto b = rand_matrix<half>(k, n, g);
  aopt::sim::launch_result lr;
  auto c = run_mm<half, float>(m, k, n, a, b, {}, &lr);
  auto ref = ref_mm(a, b, m, k, n);
  for (std::uint32_t i = 0; i < m * n; ++i) ASSERT_NEAR(c[i], ref[i], 1e-4 + 1e-5 * std::fabs(ref[i])) << "element " << i;
  // The records: copies in on MTE2, loads on MTE1, the Mmad on M, the Fixpipe on FIX.
  int mte1 = 0, m_ops = 0, fix = 0;
  for (const auto& r : lr.cores[0].recs) {
    if (r.kind == rec_kind::cube_move && r.p == spipe::mte1) ++mte1;
    if (r.kind == rec_kind::mmad && r.p == spipe::m) {
      ++m_ops;
      EXPECT_EQ(r.blocks, m);
      EXPECT_EQ(r.block_bytes, n);
      EXPECT_EQ(r.repeats, k);
    }
    if (r.kind == rec_kind::copy_out && r.p == spipe::fix) ++fix;
  }
  EXPECT_EQ(mte1, 3 + 3);  // 3 m-blocks of A, 3 k-blocks of B
  EXPECT_EQ(m_ops, 1);
  EXPECT_EQ(fix, 1);
  // The queues between the cube's positions flag MTE2 -> MTE1 and MTE1 -> M, M -> FIX.
  bool mte2_mte1 = false, mte1_m = false, m_fix = false;
  for (const auto& r : lr.cores[0].recs) {
    if (r.kind != rec_kind::set_flag) continue;
    mte2_mte1 |= r.src == spipe::mte2 && r.dst == spipe::mte1;
    mte1_m |= r.src == spipe::mte1 && r.dst == spipe::m;
    m_fix |= r.src == spipe::m && r.dst == spipe::fix;
  }
  EXPECT_TRUE(mte2_mte1 && mte1_m && m_fix);
}

TEST(CubePrimitives, Bf16ToHalfAndBf16OutputsRoundOnce) {
  std::mt19937 g(seed + 1);
  const std::uint32_t m = 16, k = 32, n = 32;
  auto a = rand_matrix<bfloat16_t>(m, k, g);
  auto b = rand_matrix<bfloat16_t>(k, n, g);
  auto ref = ref_mm(a, b, m, k, n);
  mm_opts o;
  o.quant = QuantMode_t::F322BF16;
  auto c = run_mm<bfloat16_t, bfloat16_t>(m, k, n, a, b, o);
  for (std::uint32_t i = 0; i < m * n; ++i) {
    const float want = bfloat16_t(static_cast<float>(ref[i])).ToFloat();
    ASSERT_NEAR(c[i].ToFloat(), want, std::fabs(want) * 0.008 + 1e-6) << "element " << i;
  }
  o.quant = QuantMode_t::F322F16;
  auto ch = run_mm<bfloat16_t, half>(m, k, n, a, b, o);
  for (std::uint32_t i = 0; i < m * n; ++i) ASSERT_NEAR(static_cast<float>(ch[i]), ref[i], std::fabs(ref[i]) * 1e-3 + 1e-3);
}

TEST(CubePrimitives, AccumulateBiasAndRelu) {
  std::mt19937 g(seed + 2);
  const std::uint32_t m = 16, k = 64, n = 32;
  auto a = rand_matrix<half>(m, k, g);
  auto b = rand_matrix<half>(k, n, g);
  auto ref = ref_mm(a, b, m, k, n);
  mm_opts split;
  split.split_k = true;
  auto c = run_mm<half, float>(m, k, n, a, b, split);
  for (std::uint32_t i = 0; i < m * n; ++i) ASSERT_NEAR(c[i], ref[i], 1e-4) << "accumulated element " << i;

  std::vector<float> bias(n);
  for (std::uint32_t j = 0; j < n; ++j) bias[j] = 0.25f * static_cast<float>(j) - 3.0f;
  mm_opts ob;
  ob.bias = bias.data();
  ob.relu = true;
  auto cb = run_mm<half, float>(m, k, n, a, b, ob);
  int zeros = 0;
  for (std::uint32_t i = 0; i < m; ++i)
    for (std::uint32_t j = 0; j < n; ++j) {
      const double want = std::max(0.0, ref[i * n + j] + bias[j]);
      zeros += want == 0.0;
      ASSERT_NEAR(cb[i * n + j], want, 1e-4) << "bias+relu element " << i << "," << j;
    }
  EXPECT_GT(zeros, 0);  // ReLU had something to do
}

// int8 x int8 -> int32: B goes to L0B through LoadDataWithTranspose (b8 cannot use ifTranspose).
void mm_kernel_i8(GM_ADDR a, GM_ADDR b, GM_ADDR c, std::uint32_t m, std::uint32_t k, std::uint32_t n, QuantMode_t q,
                  std::uint64_t scale, bool to_i8) {
  TPipe pipe;
  TBuf<TPosition::A1> ba1;
  TBuf<TPosition::B1> bb1;
  TBuf<TPosition::A2> ba2;
  TBuf<TPosition::B2> bb2;
  TBuf<TPosition::CO1> bc;
  const std::uint32_t M = ceil16(m), K = (k + 31) / 32 * 32, N = (n + 31) / 32 * 32;
  pipe.InitBuffer(ba1, M * K);
  pipe.InitBuffer(bb1, K * N);
  pipe.InitBuffer(ba2, M * K);
  pipe.InitBuffer(bb2, K * N);
  pipe.InitBuffer(bc, M * N * 4);
  GlobalTensor<std::int8_t> ga, gb;
  ga.SetGlobalBuffer(reinterpret_cast<__gm__ std::int8_t*>(a), m * k);
  gb.SetGlobalBuffer(reinterpret_cast<__gm__ std::int8_t*>(b), k * n);
  LocalTensor<std::int8_t> a1 = ba1.Get<std::int8_t>(), b1 = bb1.Get<std::int8_t>();
  LocalTensor<std::int8_t> a2 = ba2.Get<std::int8_t>(), b2 = bb2.Get<std::int8_t>();
  LocalTensor<std::int32_t> c1 = bc.Get<std::int32_t>();
  DataCopy(a1, ga, Nd2NzParams(1, m, k, 0, k, M, 1, 0));
  DataCopy(b1, gb, Nd2NzParams(1, k, n, 0, n, K, 1, 0));
  SetFlag<HardEvent::MTE2_MTE1>(0);
  WaitFlag<HardEvent::MTE2_MTE1>(0);
  for (std::uint32_t i = 0; i < M / 16; ++i) {
    LoadData(a2[i * K * 16], a1, LoadData2DParams(i, K / 32, M / 16, 0, 0, false, 0));
  }
  // Two 16 x 32 fractals of B's L1 column block j (k rows 32i..32i+31) make one 32 x 32 block.
  for (std::uint32_t i = 0; i < K / 32; ++i) {
    LoadDataWithTranspose(b2[i * 32 * N], b1, LoadData2dTransposeParams(i, N / 32, K / 32, 1, 0));
  }
  SetFlag<HardEvent::MTE1_M>(0);
  WaitFlag<HardEvent::MTE1_M>(0);
  MmadParams p;
  p.m = m; p.n = n; p.k = k;
  Mmad(c1, a2, b2, p);
  SetFlag<HardEvent::M_FIX>(0);
  WaitFlag<HardEvent::M_FIX>(0);
  FixpipeParamsV220 f(n, m, M, n, false);
  f.quantPre = q;
  f.deqScalar = scale;
  if (to_i8) {
    GlobalTensor<std::int8_t> gc;
    gc.SetGlobalBuffer(reinterpret_cast<__gm__ std::int8_t*>(c), m * n);
    Fixpipe(gc, c1, f);
  } else if (q == QuantMode_t::DEQF16) {
    GlobalTensor<half> gc;
    gc.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(c), m * n);
    Fixpipe(gc, c1, f);
  } else {
    GlobalTensor<std::int32_t> gc;
    gc.SetGlobalBuffer(reinterpret_cast<__gm__ std::int32_t*>(c), m * n);
    Fixpipe(gc, c1, f);
  }
}

std::uint64_t scale_bits(float s, bool sign, int offset = 0) {
  std::uint32_t u;
  std::memcpy(&u, &s, 4);
  return u | (std::uint64_t(offset & 0x1FF) << 37) | (std::uint64_t(sign) << 46);
}

TEST(CubePrimitives, Int8MatmulWithInt32DequantAndRequant) {
  std::mt19937 g(seed + 3);
  const std::uint32_t m = 20, k = 64, n = 64;
  std::uniform_int_distribution<int> d(-128, 127);
  std::vector<std::int8_t> a(m * k), b(k * n);
  for (auto& x : a) x = static_cast<std::int8_t>(d(g));
  for (auto& x : b) x = static_cast<std::int8_t>(d(g));
  std::vector<std::int64_t> ref(m * n, 0);
  for (std::uint32_t i = 0; i < m; ++i)
    for (std::uint32_t j = 0; j < n; ++j)
      for (std::uint32_t t = 0; t < k; ++t) ref[i * n + j] += std::int64_t{a[i * k + t]} * b[t * n + j];
  gm_buffer ga(m * k, "a"), gb(k * n, "b"), gc(m * n * 4, "c");
  std::memcpy(ga.get(), a.data(), a.size());
  std::memcpy(gb.get(), b.data(), b.size());
  auto r = run(1, [&] { mm_kernel_i8(ga.get(), gb.get(), gc.get(), m, k, n, QuantMode_t::NoQuant, 0, false); });
  ASSERT_FALSE(r.error) << r.error->to_string();
  for (std::uint32_t i = 0; i < m * n; ++i) ASSERT_EQ(gc.as<std::int32_t>()[i], ref[i]) << "element " << i;

  const float s = 1.0f / 1024.0f;  // exactly representable with a 10-bit mantissa
  r = run(1, [&] { mm_kernel_i8(ga.get(), gb.get(), gc.get(), m, k, n, QuantMode_t::DEQF16, scale_bits(s, false), false); });
  ASSERT_FALSE(r.error) << r.error->to_string();
  for (std::uint32_t i = 0; i < m * n; ++i) {
    ASSERT_EQ(static_cast<float>(gc.as<half>()[i]), static_cast<float>(half(static_cast<float>(ref[i]) * s))) << i;
  }
  const float rs = 1.0f / 256.0f;
  r = run(1, [&] { mm_kernel_i8(ga.get(), gb.get(), gc.get(), m, k, n, QuantMode_t::REQ8, scale_bits(rs, true, 3), true); });
  ASSERT_FALSE(r.error) << r.error->to_string();
  for (std::uint32_t i = 0; i < m * n; ++i) {
    double x = std::nearbyint(static_cast<double>(static_cast<float>(ref[i]) * rs)) + 3;
    x = std::min(127.0, std::max(-128.0, x));
    ASSERT_EQ(gc.as<std::int8_t>()[i], static_cast<std::int8_t>(x)) << i;
  }
}

TEST(CubePrimitives, FixpipeNzOutputKeepsTheFractalLayout) {
  std::mt19937 g(seed + 4);
  const std::uint32_t m = 32, k = 16, n = 32;
  auto a = rand_matrix<half>(m, k, g);
  auto b = rand_matrix<half>(k, n, g);
  auto ref = ref_mm(a, b, m, k, n);
  gm_buffer ga(m * k * 2, "a"), gb(k * n * 2, "b"), gc(m * n * 4, "c");
  std::memcpy(ga.get(), a.data(), m * k * 2);
  std::memcpy(gb.get(), b.data(), k * n * 2);
  auto r = run(1, [&] {
    TPipe pipe;
    TBuf<TPosition::A1> a1b;
    TBuf<TPosition::B1> b1b;
    TBuf<TPosition::A2> a2b;
    TBuf<TPosition::B2> b2b;
    TBuf<TPosition::CO1> cb;
    pipe.InitBuffer(a1b, m * k * 2);
    pipe.InitBuffer(b1b, k * n * 2);
    pipe.InitBuffer(a2b, m * k * 2);
    pipe.InitBuffer(b2b, k * n * 2);
    pipe.InitBuffer(cb, m * n * 4);
    GlobalTensor<half> gaa, gbb;
    GlobalTensor<float> gcc;
    gaa.SetGlobalBuffer(reinterpret_cast<half*>(ga.get()));
    gbb.SetGlobalBuffer(reinterpret_cast<half*>(gb.get()));
    gcc.SetGlobalBuffer(reinterpret_cast<float*>(gc.get()));
    auto a1 = a1b.Get<half>();
    auto b1 = b1b.Get<half>();
    auto a2 = a2b.Get<half>();
    auto b2 = b2b.Get<half>();
    auto c1 = cb.Get<float>();
    DataCopy(a1, gaa, Nd2NzParams(1, m, k, 0, k, m, 1, 0));
    DataCopy(b1, gbb, Nd2NzParams(1, k, n, 0, n, k, 1, 0));
    for (std::uint32_t i = 0; i < m / 16; ++i) LoadData(a2[i * k * 16], a1, LoadData2DParams(i, k / 16, m / 16, 0, 0, false, 0));
    for (std::uint32_t i = 0; i < k / 16; ++i) LoadData(b2[i * n * 16], b1, LoadData2DParams(i, n / 16, k / 16, 0, 0, true, 0));
    MmadParams p;
    p.m = m; p.n = n; p.k = k;
    Mmad(c1, a2, b2, p);
    // NZ output: column blocks of 16 floats (64 B = 2 blocks per row) m rows each, so
    // dstStride = m * 64 / 32 blocks between the column blocks.
    FixpipeParamsV220 f(n, m, m, m * 2, false);
    Fixpipe<float, float, CFG_NZ>(gcc, c1, f);
  });
  ASSERT_FALSE(r.error) << r.error->to_string();
  for (std::uint32_t i = 0; i < m; ++i)
    for (std::uint32_t j = 0; j < n; ++j) {
      const float got = gc.as<float>()[(j / 16) * m * 16 + i * 16 + j % 16];
      ASSERT_NEAR(got, ref[i * n + j], 1e-4) << i << "," << j;
    }
}

TEST(CubePrimitives, CapacitiesComeFromTheProfileAndErrorsNameTheBuffer) {
  auto r = run(1, [] {
    TPipe pipe;
    TQue<TPosition::A2, 2> q;
    pipe.InitBuffer(q, 2, 40 * 1024);  // 80 KiB in the 64 KiB L0A
  });
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->kind, aopt::sim::hw_error_kind::ub_overflow);
  EXPECT_NE(r.error->message.find("L0A"), std::string::npos) << r.error->message;
  EXPECT_NE(r.error->message.find("65536"), std::string::npos) << r.error->message;
  EXPECT_NE(r.error->message.find("81920"), std::string::npos) << r.error->message;

  // L1 (512 KiB) holds what L0C (128 KiB) does not; a smaller profile's L0C is honoured.
  aopt::sim::launch_options o;
  o.l0c_bytes = 64 * 1024;
  auto r2 = aopt::sim::launch(o, [] {
    TPipe pipe;
    TBuf<TPosition::A1> l1;
    pipe.InitBuffer(l1, 256 * 1024);
    TBuf<TPosition::CO1> l0c;
    pipe.InitBuffer(l0c, 96 * 1024);
  });
  ASSERT_TRUE(r2.error);
  EXPECT_NE(r2.error->message.find("L0C"), std::string::npos) << r2.error->message;
  EXPECT_NE(r2.error->message.find("65536"), std::string::npos) << r2.error->message;
}

TEST(CubePrimitives, OperandsInTheWrongBufferAreRefused) {
  auto r = run(1, [] {
    TPipe pipe;
    TBuf<TPosition::A1> l1;
    TBuf<TPosition::B2> l0b;
    TBuf<TPosition::CO1> l0c;
    pipe.InitBuffer(l1, 4096);
    pipe.InitBuffer(l0b, 4096);
    pipe.InitBuffer(l0c, 4096);
    MmadParams p;
    p.m = 16; p.n = 16; p.k = 16;
    auto c = l0c.Get<float>();
    Mmad(c, l1.Get<half>(), l0b.Get<half>(), p);  // A from L1: not a Mmad operand
  });
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error->message.find("L0A (A2)"), std::string::npos) << r.error->message;
}

TEST(CubePrimitives, FillSetsBlocksOfL1AndL0) {
  std::vector<float> l1(64), l0a(512);
  auto r = run(1, [&] {
    TPipe pipe;
    TBuf<TPosition::A1> a1;
    TBuf<TPosition::A2> a2;
    pipe.InitBuffer(a1, 256);
    pipe.InitBuffer(a2, 2048);
    auto t1 = a1.Get<float>();
    auto t2 = a2.Get<half>();
    InitConstValue(t1, {1, 8, 0, 0.0f});  // the braced form real kernels write: 8 blocks of 32 B
    Fill(t1, InitConstValueParams<float>(2, 1, 2, 2.5f));  // blocks 0 and 3 (a gap of 2 blocks)
    Fill(t2, InitConstValueParams<half>(2, 1, 1, half(1.5f)));  // L0A: fractals 0 and 2 of 512 B
    for (int i = 0; i < 64; ++i) l1[i] = t1.aopt_ptr()[i];
    for (int i = 0; i < 1024; i += 2) l0a[i / 2] = static_cast<float>(t2.aopt_ptr()[i]);
  });
  ASSERT_FALSE(r.error) << r.error->to_string();
  for (int i = 0; i < 64; ++i) EXPECT_EQ(l1[i], (i < 8 || (i >= 24 && i < 32)) ? 2.5f : 0.0f) << i;
  // half elements 0..255 (fractal 0) and 512..767 (fractal 2) are 1.5; sampled every other one.
  for (int i = 0; i < 512; ++i) {
    const int e = i * 2;
    if (e < 256 || (e >= 512 && e < 768)) {
      EXPECT_EQ(l0a[i], 1.5f) << e;
    }
  }
}

}  // namespace
