// The kernel Matmul object (lib/matmul_intf.h) against a plain C++ matmul: fp16 / bf16 in with
// fp32 out, int8 in with int32 out (and dequantised to fp16), fp16 out, bias, transposed A / B,
// tails on the last cores, Iterate + GetTensorC to GM and to UB, IterateAll with atomic add,
// CFG_NORM and CFG_MDL, two objects under one REGIST_MATMUL_OBJ. Tilings come from the host
// API (MultiCoreMatmulTiling).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "aopt_sim/runtime.h"
#include "kernel_operator.h"
#include "matmul_kernels17.h"
#include "tiling/tiling_api.h"

namespace {

using aopt::sim::test::mm_args;
using aopt::sim::test::mm_out;
using matmul_tiling::CubeFormat;
using matmul_tiling::DataType;
using matmul_tiling::TPosition;

std::uint32_t seed() {
  static const std::uint32_t s = [] {
    const char* e = std::getenv("AOPT_TEST_SEED");
    const std::uint32_t v = e ? static_cast<std::uint32_t>(std::strtoul(e, nullptr, 10)) : 3839u;
    std::cout << "[sim_matmul] random seed " << v << " (set AOPT_TEST_SEED to change)\n";
    return v;
  }();
  return s;
}

struct gm_buf {
  void* p = nullptr;
  explicit gm_buf(std::size_t bytes, const char* name) : p(aopt::sim::gm_alloc(bytes, name)) {}
  ~gm_buf() { aopt::sim::gm_free(p); }
  gm_buf(const gm_buf&) = delete;
  gm_buf& operator=(const gm_buf&) = delete;
  std::uint8_t* u8() const { return static_cast<std::uint8_t*>(p); }
  template <class T>
  T* as() const {
    return static_cast<T*>(p);
  }
};

optiling::TCubeTiling tiling_for(int M, int N, int K, DataType in, DataType out, bool bias, int dim, bool trans_a = false,
                                 bool trans_b = false, int fix_m = -1, int fix_n = -1, int fix_k = -1) {
  matmul_tiling::MultiCoreMatmulTiling mm;
  mm.SetAType(TPosition::GM, CubeFormat::ND, in, trans_a);
  mm.SetBType(TPosition::GM, CubeFormat::ND, in, trans_b);
  mm.SetCType(TPosition::GM, CubeFormat::ND, out);
  mm.SetBiasType(TPosition::GM, CubeFormat::ND, out == DataType::DT_INT32 ? DataType::DT_INT32 : DataType::DT_FLOAT);
  mm.SetDim(dim);
  mm.SetShape(M, N, K);
  mm.SetOrgShape(M, N, K);
  mm.SetBias(bias);
  mm.SetFixSplit(fix_m, fix_n, fix_k);
  optiling::TCubeTiling t;
  EXPECT_EQ(mm.GetTiling(t), 0);
  return t;
}

// Plain C++ reference: C = op(A) x op(B) + bias in double, A (M x K, or stored K x M when
// transposed), B (K x N, or stored N x K).
std::vector<double> reference(const std::vector<double>& a, const std::vector<double>& b, const std::vector<double>* bias,
                              int M, int N, int K, bool ta, bool tb) {
  std::vector<double> c(static_cast<std::size_t>(M) * N, 0.0);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double s = bias ? (*bias)[j] : 0.0;
      for (int k = 0; k < K; ++k) {
        const double av = ta ? a[static_cast<std::size_t>(k) * M + i] : a[static_cast<std::size_t>(i) * K + k];
        const double bv = tb ? b[static_cast<std::size_t>(j) * K + k] : b[static_cast<std::size_t>(k) * N + j];
        s += av * bv;
      }
      c[static_cast<std::size_t>(i) * N + j] = s;
    }
  return c;
}

void run_blocks(std::uint32_t blocks, const std::function<void()>& body) {
  aopt::sim::launch_options o;
  o.block_dim = blocks;
  const auto r = aopt::sim::launch(o, body);
  ASSERT_FALSE(r.error) << r.error->to_string();
}

template <class In>
std::vector<double> fill(In* dst, std::size_t n, std::uint32_t salt, double lo, double hi) {
  std::mt19937 g(seed() + salt);
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    dst[i] = static_cast<In>(static_cast<float>(d(g)));
    v[i] = static_cast<double>(static_cast<float>(dst[i]));
  }
  return v;
}

// The kernel arguments of GM buffers a, b, c (and the bias when given) under tiling t.
mm_args args_of(const gm_buf& a, const gm_buf& b, const gm_buf* bias, const gm_buf& c, const optiling::TCubeTiling& t) {
  mm_args x;
  x.a = a.u8();
  x.b = b.u8();
  x.bias = bias != nullptr ? bias->u8() : nullptr;
  x.c = c.u8();
  x.tiling = &t;
  return x;
}

struct float_case {
  int M, N, K, dim;
  bool ta, tb, bias;
  mm_out out;
};

template <class In>
void check_float_case(const float_case& fc, void (*kernel)(const mm_args&), DataType in_dt) {
  SCOPED_TRACE(::testing::Message() << fc.M << "x" << fc.N << "x" << fc.K << " dim " << fc.dim << " ta " << fc.ta
                                    << " tb " << fc.tb << " bias " << fc.bias << " out " << static_cast<int>(fc.out));
  const int M = fc.M, N = fc.N, K = fc.K;
  gm_buf a(sizeof(In) * M * K, "a"), b(sizeof(In) * K * N, "b"), bias(sizeof(float) * N, "bias"), c(sizeof(float) * M * N, "c");
  const auto av = fill(a.as<In>(), static_cast<std::size_t>(M) * K, 1, -1.0, 1.0);
  const auto bv = fill(b.as<In>(), static_cast<std::size_t>(K) * N, 2, -1.0, 1.0);
  const auto biasv = fill(bias.as<float>(), static_cast<std::size_t>(N), 3, -2.0, 2.0);
  std::vector<double> prior(static_cast<std::size_t>(M) * N, 0.0);
  if (fc.out == mm_out::iterate_all_atomic_add) prior = fill(c.as<float>(), prior.size(), 4, -1.0, 1.0);
  const auto t = tiling_for(M, N, K, in_dt, DataType::DT_FLOAT, fc.bias, fc.dim, fc.ta, fc.tb);
  mm_args x = args_of(a, b, fc.bias ? &bias : nullptr, c, t);
  x.trans_a = fc.ta;
  x.trans_b = fc.tb;
  x.out = fc.out;
  run_blocks(static_cast<std::uint32_t>(t.usedCoreNum), [&] { kernel(x); });
  const auto want = reference(av, bv, fc.bias ? &biasv : nullptr, M, N, K, fc.ta, fc.tb);
  int bad = 0;
  for (std::size_t i = 0; i < want.size() && bad < 5; ++i) {
    const double got = c.as<float>()[i];
    const double w = want[i] + prior[i];
    if (std::fabs(got - w) > 1e-4 * K + 1e-5 * std::fabs(w)) {
      ++bad;
      ADD_FAILURE() << "C[" << i / N << "][" << i % N << "] = " << got << ", want " << w;
    }
  }
}

TEST(MatmulKernel, Fp16InFp32OutMatchesPlainMatmulWithBiasTailsAndTransposes) {
  const std::vector<float_case> cases = {
      {64, 64, 64, 1, false, false, false, mm_out::iterate_all},
      {100, 70, 90, 4, false, false, true, mm_out::iterate_all},     // tails on M, N, K
      {100, 70, 90, 4, true, false, true, mm_out::iterate_get_gm},   // transposed A
      {96, 200, 130, 3, false, true, false, mm_out::iterate_get_gm}, // transposed B
      {130, 48, 260, 2, true, true, true, mm_out::iterate_get_ub},   // both, to UB
      {70, 90, 40, 4, false, false, true, mm_out::iterate_all_atomic_add},
  };
  for (const auto& fc : cases) check_float_case<half>(fc, aopt::sim::test::mm17_f16_f32_norm, DataType::DT_FLOAT16);
}

TEST(MatmulKernel, MdlConfigGivesTheSameValues) {
  check_float_case<half>({300, 260, 520, 6, false, false, true, mm_out::iterate_all}, aopt::sim::test::mm17_f16_f32_mdl,
                         DataType::DT_FLOAT16);
  check_float_case<half>({33, 17, 1000, 1, true, true, false, mm_out::iterate_get_gm}, aopt::sim::test::mm17_f16_f32_mdl,
                         DataType::DT_FLOAT16);
}

TEST(MatmulKernel, Bf16InFp32Out) {
  check_float_case<bfloat16_t>({80, 112, 96, 4, true, false, true, mm_out::iterate_all},
                               aopt::sim::test::mm17_bf16_f32_norm, DataType::DT_BF16);
}

TEST(MatmulKernel, Int8InInt32OutIsExact) {
  const int M = 77, N = 65, K = 300;
  gm_buf a(M * K, "a"), b(K * N, "b"), bias(4 * N, "bias"), c(4 * M * N, "c");
  std::mt19937 g(seed() + 11);
  std::uniform_int_distribution<int> d(-128, 127), db(-100000, 100000);
  std::vector<double> av(M * K), bv(K * N), biasv(N);
  for (int i = 0; i < M * K; ++i) av[i] = a.as<std::int8_t>()[i] = static_cast<std::int8_t>(d(g));
  for (int i = 0; i < K * N; ++i) bv[i] = b.as<std::int8_t>()[i] = static_cast<std::int8_t>(d(g));
  for (int i = 0; i < N; ++i) biasv[i] = bias.as<std::int32_t>()[i] = db(g);
  for (bool tb : {false, true}) {
    const auto t = tiling_for(M, N, K, DataType::DT_INT8, DataType::DT_INT32, true, 4, false, tb);
    EXPECT_EQ(t.baseK % 32, 0);
    mm_args x;
    x.a = a.u8();
    x.b = b.u8();
    x.bias = bias.u8();
    x.c = c.u8();
    x.tiling = &t;
    x.trans_b = tb;
    run_blocks(static_cast<std::uint32_t>(t.usedCoreNum), [&] { aopt::sim::test::mm17_i8_i32_norm(x); });
    const auto want = reference(av, bv, &biasv, M, N, K, false, tb);
    for (int i = 0; i < M * N; ++i) ASSERT_EQ(c.as<std::int32_t>()[i], static_cast<std::int32_t>(want[i])) << i << " tb " << tb;
  }
}

TEST(MatmulKernel, Int8DequantisedToFp16WithTheQuantScalar) {
  const int M = 32, N = 48, K = 64;
  gm_buf a(M * K, "a"), b(K * N, "b"), c(2 * M * N, "c");
  std::mt19937 g(seed() + 12);
  std::uniform_int_distribution<int> d(-20, 20);
  std::vector<double> av(M * K), bv(K * N);
  for (int i = 0; i < M * K; ++i) av[i] = a.as<std::int8_t>()[i] = static_cast<std::int8_t>(d(g));
  for (int i = 0; i < K * N; ++i) bv[i] = b.as<std::int8_t>()[i] = static_cast<std::int8_t>(d(g));
  const auto t = tiling_for(M, N, K, DataType::DT_INT8, DataType::DT_FLOAT16, false, 1);
  const float scale = 0.125f;
  std::uint32_t bits = 0;
  std::memcpy(&bits, &scale, 4);
  mm_args x;
  x.a = a.u8();
  x.b = b.u8();
  x.c = c.u8();
  x.tiling = &t;
  x.quant_scalar = bits;
  run_blocks(1, [&] { aopt::sim::test::mm17_i8_f16_norm(x); });
  const auto want = reference(av, bv, nullptr, M, N, K, false, false);
  for (int i = 0; i < M * N; ++i)
    ASSERT_EQ(static_cast<float>(c.as<half>()[i]), static_cast<float>(static_cast<half>(static_cast<float>(want[i] * scale))))
        << i;
}

TEST(MatmulKernel, Fp16OutIsTheFloatResultRoundedToHalf) {
  const int M = 48, N = 80, K = 64;
  gm_buf a(2 * M * K, "a"), b(2 * K * N, "b"), c(2 * M * N, "c"), cf(4 * M * N, "cf");
  fill(a.as<half>(), M * K, 21, -1.0, 1.0);
  fill(b.as<half>(), K * N, 22, -1.0, 1.0);
  const auto t = tiling_for(M, N, K, DataType::DT_FLOAT16, DataType::DT_FLOAT16, false, 2);
  mm_args x;
  x.a = a.u8();
  x.b = b.u8();
  x.c = c.u8();
  x.tiling = &t;
  run_blocks(static_cast<std::uint32_t>(t.usedCoreNum), [&] { aopt::sim::test::mm17_f16_f16_mdl(x); });
  x.c = cf.u8();
  run_blocks(static_cast<std::uint32_t>(t.usedCoreNum), [&] { aopt::sim::test::mm17_f16_f32_mdl(x); });
  for (int i = 0; i < M * N; ++i)
    ASSERT_EQ(static_cast<float>(c.as<half>()[i]), static_cast<float>(static_cast<half>(cf.as<float>()[i]))) << i;
}

TEST(MatmulKernel, IterateFollowsIterateOrderMFirst) {
  const int M = 64, N = 64, K = 32;
  gm_buf a(2 * M * K, "a"), b(2 * K * N, "b"), c(4 * M * N, "c");
  const auto t = tiling_for(M, N, K, DataType::DT_FLOAT16, DataType::DT_FLOAT, false, 1, false, false, 32, 16, 32);
  ASSERT_EQ(t.iterateOrder, 0);
  std::vector<int> order;
  mm_args x;
  x.a = a.u8();
  x.b = b.u8();
  x.c = c.u8();
  x.tiling = &t;
  x.out = mm_out::iterate_get_gm;
  x.order = &order;
  run_blocks(1, [&] { aopt::sim::test::mm17_f16_f32_norm(x); });
  // 2 blocks along M, 4 along N: 8 Iterate calls.
  EXPECT_EQ(order.size(), 8u);
}

TEST(MatmulKernel, TwoObjectsUnderOneRegistration) {
  const int M = 32, N = 32, K = 48;
  gm_buf a(2 * M * K, "a"), b(2 * K * N, "b"), b2(2 * K * N, "b2"), c(4 * M * N, "c"), c2(4 * M * N, "c2");
  const auto av = fill(a.as<half>(), M * K, 31, -1.0, 1.0);
  const auto bv = fill(b.as<half>(), K * N, 32, -1.0, 1.0);
  const auto b2v = fill(b2.as<half>(), K * N, 33, -1.0, 1.0);
  const auto t1 = tiling_for(M, N, K, DataType::DT_FLOAT16, DataType::DT_FLOAT, false, 1, false, false, 16, 16, 16);
  const auto t2 = tiling_for(M, N, K, DataType::DT_FLOAT16, DataType::DT_FLOAT, false, 1);
  mm_args x;
  x.a = a.u8();
  x.b = b.u8();
  x.c = c.u8();
  x.tiling = &t1;
  run_blocks(1, [&] { aopt::sim::test::mm17_two_objects(x, b2.u8(), c2.u8(), &t2); });
  const auto w1 = reference(av, bv, nullptr, M, N, K, false, false);
  const auto w2 = reference(av, b2v, nullptr, M, N, K, false, false);
  for (int i = 0; i < M * N; ++i) {
    ASSERT_NEAR(c.as<float>()[i], w1[i], 1e-3) << i;
    ASSERT_NEAR(c2.as<float>()[i], w2[i], 1e-3) << i;
  }
}

// Two Matmul objects on one TPipe, each with a tiling that fills L0A and L0B (two base blocks of
// double buffering): they share L0 as on the chip, where the library uses L0 whole (before, the
// second object's InitBuffer failed with ub_overflow: "brings this TPipe's L0A use to ...").
// Found by the corpus rerun: image/upsample_bilinear2d_grad and upsample_bicubic2d_aa_grad.
TEST(MatmulKernel, TwoObjectsThatEachFillL0ShareIt) {
  const int M = 256, N = 256, K = 128;  // one L1 load per object: both fit L1
  gm_buf a(2 * M * K, "a"), b(2 * K * N, "b"), b2(2 * K * N, "b2"), c(4 * M * N, "c"), c2(4 * M * N, "c2");
  const auto av = fill(a.as<half>(), M * K, 41, -1.0, 1.0);
  const auto bv = fill(b.as<half>(), K * N, 42, -1.0, 1.0);
  const auto b2v = fill(b2.as<half>(), K * N, 43, -1.0, 1.0);
  const auto t = tiling_for(M, N, K, DataType::DT_FLOAT16, DataType::DT_FLOAT, false, 1);
  std::uint64_t l0a = 0;
  platform_ascendc::PlatformAscendC().GetCoreMemSize(platform_ascendc::CoreMemType::L0_A, l0a);
  ASSERT_GT(2 * std::uint64_t{2} * t.baseM * t.baseK * t.dbL0A, l0a) << "the two objects' L0A together must not fit";
  mm_args x;
  x.a = a.u8();
  x.b = b.u8();
  x.c = c.u8();
  x.tiling = &t;
  run_blocks(1, [&] { aopt::sim::test::mm17_two_objects(x, b2.u8(), c2.u8(), &t); });
  const auto w1 = reference(av, bv, nullptr, M, N, K, false, false);
  const auto w2 = reference(av, b2v, nullptr, M, N, K, false, false);
  for (int i = 0; i < M * N; ++i) {
    ASSERT_NEAR(c.as<float>()[i], w1[i], 1e-4 * K) << i;
    ASSERT_NEAR(c2.as<float>()[i], w2[i], 1e-4 * K) << i;
  }
}

// A Matmul whose CFG is a constant tiling (MatmulShapeParams, GetMMConfig<CONFIG_NORM>,
// GetMatmulApiTiling), as cann-ops' math/matmul_api_constant (compile_error on main:
// 'MatmulShapeParams' does not name a type).
TEST(MatmulKernel, AConstantTilingAsTheConfigComputesTheProduct) {
  check_float_case<half>({256, 256, 256, 4, false, false, true, mm_out::iterate_all}, aopt::sim::test::mm17_f16_f32_static,
                         DataType::DT_FLOAT16);
}

TEST(MatmulKernel, MatMulV3sStaticMdlConfigurationComputesTheProduct) {
  check_float_case<half>({256, 256, 256, 4, false, false, true, mm_out::iterate_all},
                         aopt::sim::test::mm17_f16_f32_static_mdl, DataType::DT_FLOAT16);
}

// Async mode: one Iterate<false>() per single shape, its blocks packed in the workspace (row
// stride: the block's own width) and handed out by GetTensorC() in iteration order. 200 columns
// over base 128 leave a 72-wide tail block; 2 cores split M.
TEST(MatmulKernel, AsyncIterateFillsTheWorkspaceBlockByBlockWithTails) {
  const int M = 160, N = 200, K = 64;
  gm_buf a(sizeof(half) * M * K, "a"), b(sizeof(half) * K * N, "b"), c(sizeof(float) * M * N, "c");
  const auto av = fill(a.as<half>(), static_cast<std::size_t>(M) * K, 11, -1.0, 1.0);
  const auto bv = fill(b.as<half>(), static_cast<std::size_t>(K) * N, 12, -1.0, 1.0);
  const auto t = tiling_for(M, N, K, DataType::DT_FLOAT16, DataType::DT_FLOAT, false, 2);
  ASSERT_LT(t.baseN, N) << "the case needs more than one block along N";
  gm_buf ws(sizeof(float) * static_cast<std::size_t>(t.singleCoreM) * t.singleCoreN * t.usedCoreNum, "ws");
  mm_args x = args_of(a, b, nullptr, c, t);
  x.out = mm_out::iterate_async_ws;
  x.workspace = ws.u8();
  run_blocks(static_cast<std::uint32_t>(t.usedCoreNum), [&] { aopt::sim::test::mm17_f16_f32_norm(x); });
  const auto want = reference(av, bv, nullptr, M, N, K, false, false);
  int bad = 0;
  for (std::size_t i = 0; i < want.size() && bad < 5; ++i) {
    if (std::fabs(c.as<float>()[i] - want[i]) > 1e-4 * K + 1e-5 * std::fabs(want[i])) {
      ++bad;
      ADD_FAILURE() << "C[" << i / N << "][" << i % N << "] = " << c.as<float>()[i] << ", want " << want[i];
    }
  }
}

TEST(MatmulKernel, AsyncIterateWithoutAWorkspaceIsAClearError) {
  const int M = 64, N = 64, K = 32;
  gm_buf a(sizeof(half) * M * K, "a"), b(sizeof(half) * K * N, "b"), c(sizeof(float) * M * N, "c");
  const auto t = tiling_for(M, N, K, DataType::DT_FLOAT16, DataType::DT_FLOAT, false, 1);
  mm_args x = args_of(a, b, nullptr, c, t);
  x.out = mm_out::iterate_async_ws;
  x.skip_set_workspace = true;
  aopt::sim::launch_options o;
  o.block_dim = 1;
  const auto r = aopt::sim::launch(o, [&] { aopt::sim::test::mm17_f16_f32_norm(x); });
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error->message.find("SetWorkspace"), std::string::npos) << r.error->message;
}

// GetSysWorkSpacePtr at global scope, as the device headers have it: a class template that calls
// it unqualified, outside namespace AscendC (cann-ops math/matmul_api_constant did not compile).
template <class T>
struct workspace_probe {
  static auto get() { return GetSysWorkSpacePtr(); }
};
TEST(MatmulKernel, GetSysWorkSpacePtrIsFoundUnqualifiedInATemplate) {
  run_blocks(1, [&] { EXPECT_EQ(workspace_probe<int>::get(), AscendC::GetSysWorkSpacePtr()); });
}

// ---- Batch matmul (issue 38, session 28): SetBatchNum / IterateBatch, LayoutMode::NORMAL ----
// On main neither existed (cann-ops' batch_mat_mul_v3: "'class Matmul<...>' has no member named
// 'SetBatchNum'"). Each product is checked against the plain matmul of its own matrices.
namespace batch {

struct batch_case {
  int M, N, K, batch_a, batch_b;
  bool tb, bias, by_set_batch_num;
  std::uint32_t pad_a, pad_b;  // elements between consecutive matrices (explicit strides)
};

aopt::sim::launch_result run_batch(const batch_case& bc, gm_buf& a, gm_buf& b, gm_buf& bias, gm_buf& c,
                                   const optiling::TCubeTiling& t) {
  mm_args x = args_of(a, b, bc.bias ? &bias : nullptr, c, t);
  x.trans_b = bc.tb;
  aopt::sim::test::mm_batch_args bx;
  bx.batch_a = bc.batch_a;
  bx.batch_b = bc.batch_b;
  bx.by_set_batch_num = bc.by_set_batch_num;
  if (bc.pad_a != 0) bx.stride_a = static_cast<std::uint32_t>(bc.M * bc.K) + bc.pad_a;
  if (bc.pad_b != 0) bx.stride_b = static_cast<std::uint32_t>(bc.K * bc.N) + bc.pad_b;
  aopt::sim::launch_options o;
  o.block_dim = 1;
  return aopt::sim::launch(o, [&] { aopt::sim::test::mm17_f16_f32_batch(x, bx); });
}

void check(const batch_case& bc) {
  SCOPED_TRACE(::testing::Message() << bc.M << "x" << bc.N << "x" << bc.K << " batch " << bc.batch_a << "/"
                                    << bc.batch_b << " tb " << bc.tb << " bias " << bc.bias);
  const int M = bc.M, N = bc.N, K = bc.K, B = std::max(bc.batch_a, bc.batch_b);
  const std::size_t sa = static_cast<std::size_t>(M) * K + bc.pad_a, sb = static_cast<std::size_t>(K) * N + bc.pad_b;
  gm_buf a(sizeof(half) * sa * bc.batch_a, "a"), b(sizeof(half) * sb * bc.batch_b, "b"),
      bias(sizeof(float) * N * B, "bias"), c(sizeof(float) * M * N * B, "c");
  const auto av = fill(a.as<half>(), sa * bc.batch_a, 11, -1.0, 1.0);
  const auto bv = fill(b.as<half>(), sb * bc.batch_b, 12, -1.0, 1.0);
  const auto biasv = fill(bias.as<float>(), static_cast<std::size_t>(N) * B, 13, -2.0, 2.0);
  const auto t = tiling_for(M, N, K, DataType::DT_FLOAT16, DataType::DT_FLOAT, bc.bias, 1, false, bc.tb);
  ASSERT_EQ(t.singleCoreM, M);
  ASSERT_EQ(t.singleCoreN, N);
  const auto r = run_batch(bc, a, b, bias, c, t);
  ASSERT_FALSE(r.error) << r.error->to_string();
  for (int i = 0; i < B; ++i) {
    const int ia = i / (B / bc.batch_a), ib = i / (B / bc.batch_b);
    const std::vector<double> ai(av.begin() + ia * sa, av.begin() + ia * sa + static_cast<std::size_t>(M) * K);
    const std::vector<double> bi(bv.begin() + ib * sb, bv.begin() + ib * sb + static_cast<std::size_t>(K) * N);
    const std::vector<double> biasi(biasv.begin() + static_cast<std::size_t>(i) * N,
                                    biasv.begin() + static_cast<std::size_t>(i + 1) * N);
    const auto want = reference(ai, bi, bc.bias ? &biasi : nullptr, M, N, K, false, bc.tb);
    int bad = 0;
    for (std::size_t e = 0; e < want.size() && bad < 5; ++e) {
      const double got = c.as<float>()[static_cast<std::size_t>(i) * M * N + e];
      if (std::fabs(got - want[e]) > 1e-4 * K + 1e-5 * std::fabs(want[e])) {
        ++bad;
        ADD_FAILURE() << "C" << i << "[" << e / N << "][" << e % N << "] = " << got << ", want " << want[e];
      }
    }
  }
}

}  // namespace batch

TEST(MatmulKernel, SetBatchNumThenIterateBatchWithMatrixStrides) {
  // batch_mat_mul_v3's form: SetBatchNum(n, n), IterateBatch(gm, 0, 0, 0, strideA, strideB).
  batch::check({40, 48, 72, 3, 3, false, true, true, 32, 16});
  batch::check({64, 32, 48, 2, 2, true, false, true, 0, 0});
}

TEST(MatmulKernel, IterateBatchBroadcastsTheSmallerBatch) {
  batch::check({32, 48, 40, 1, 4, false, false, false, 0, 0});  // one A for four Bs
  batch::check({48, 32, 40, 4, 2, true, true, false, 0, 0});    // B i / 2 for product i
}

TEST(MatmulKernel, IterateBatchRefusesBatchesThatAreNotMultiples) {
  gm_buf a(sizeof(half) * 16 * 16 * 2, "a"), b(sizeof(half) * 16 * 16 * 3, "b"), bias(64, "bias"),
      c(sizeof(float) * 16 * 16 * 3, "c");
  const auto t = tiling_for(16, 16, 16, DataType::DT_FLOAT16, DataType::DT_FLOAT, false, 1);
  const auto r = batch::run_batch({16, 16, 16, 2, 3, false, false, true, 0, 0}, a, b, bias, c, t);
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error->to_string().find("IterateBatch"), std::string::npos) << r.error->to_string();
  EXPECT_NE(r.error->to_string().find("multiple"), std::string::npos) << r.error->to_string();
}

}  // namespace
