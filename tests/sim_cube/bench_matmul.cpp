// The matmul ladder (issue 38, item 5): a tiled multi-core matmul kernel of our own (GM -> L1 with
// Nd2Nz, L1 -> L0A/L0B with LoadData, Mmad accumulating over k in L0C, Fixpipe NZ2ND to GM),
// written with TQue depths as real kernels double-buffer, run on sim and priced by the timing
// model. Prints one row per case: shape, dtype, base block, L0 buffers, simulated time, TFLOPS.
//
//   sim_cube_bench [--profile 910b4] [--quick]
// scripts/bench-matmul.sh runs it with AOPT_SIM_CUBE_TIMING_ONLY=1 (Mmad's values are not
// computed, the trace is the same); the correctness of the same kernel is tests/sim_cube's.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "aopt_sim/timing.h"
#include "kernel_operator.h"

using namespace AscendC;

namespace {

struct shape {
  std::uint32_t m, n, k;
};
struct base_block {
  std::uint32_t m, n, k;
};

// C[m x n] = A[m x k] x B[k x n], row-major in GM; each block takes the output tiles
// i = GetBlockIdx(), i + GetBlockNum(), ... of baseM x baseN; k in steps of baseK; L1 holds two
// steps (depth 2), L0 one or two (l0_buffers).
template <typename In, typename Acc, typename Out>
void mm_tiled(GM_ADDR a, GM_ADDR b, GM_ADDR c, shape s, base_block bb, int l0_buffers) {
  TPipe pipe;
  TQue<TPosition::A1, 2> qa1;
  TQue<TPosition::B1, 2> qb1;
  TQue<TPosition::A2, 2> qa2;
  TQue<TPosition::B2, 2> qb2;
  TQue<TPosition::CO1, 1> qc;
  pipe.InitBuffer(qa1, 2, bb.m * bb.k * sizeof(In));
  pipe.InitBuffer(qb1, 2, bb.k * bb.n * sizeof(In));
  pipe.InitBuffer(qa2, static_cast<std::uint8_t>(l0_buffers), bb.m * bb.k * sizeof(In));
  pipe.InitBuffer(qb2, static_cast<std::uint8_t>(l0_buffers), bb.k * bb.n * sizeof(In));
  pipe.InitBuffer(qc, 1, bb.m * bb.n * sizeof(Acc));
  GlobalTensor<In> ga, gb;
  GlobalTensor<Out> gc;
  ga.SetGlobalBuffer(reinterpret_cast<__gm__ In*>(a), std::uint64_t{s.m} * s.k);
  gb.SetGlobalBuffer(reinterpret_cast<__gm__ In*>(b), std::uint64_t{s.k} * s.n);
  gc.SetGlobalBuffer(reinterpret_cast<__gm__ Out*>(c), std::uint64_t{s.m} * s.n);
  constexpr std::uint32_t c0 = 32 / sizeof(In);
  const std::uint32_t tiles_m = (s.m + bb.m - 1) / bb.m, tiles_n = (s.n + bb.n - 1) / bb.n;
  const std::uint32_t ksteps = (s.k + bb.k - 1) / bb.k;
  for (std::uint32_t t = GetBlockIdx(); t < tiles_m * tiles_n; t += GetBlockNum()) {
    const std::uint32_t tm = t / tiles_n, tn = t % tiles_n;
    const std::uint32_t rm = std::min(bb.m, s.m - tm * bb.m), rn = std::min(bb.n, s.n - tn * bb.n);
    const std::uint32_t am = (rm + 15) / 16 * 16, an = (rn + 15) / 16 * 16;
    LocalTensor<Acc> c1 = qc.AllocTensor<Acc>();
    for (std::uint32_t ks = 0; ks < ksteps; ++ks) {
      const std::uint32_t rk = std::min(bb.k, s.k - ks * bb.k);
      const std::uint32_t ak = (rk + c0 - 1) / c0 * c0, akb = (rk + 15) / 16 * 16;
      LocalTensor<In> a1 = qa1.AllocTensor<In>();
      LocalTensor<In> b1 = qb1.AllocTensor<In>();
      DataCopy(a1, ga[std::uint64_t{tm} * bb.m * s.k + ks * bb.k],
               Nd2NzParams(1, static_cast<std::uint16_t>(rm), static_cast<std::uint16_t>(rk), 0,
                           static_cast<std::uint16_t>(s.k), static_cast<std::uint16_t>(am), 1, 0));
      DataCopy(b1, gb[std::uint64_t{ks} * bb.k * s.n + tn * bb.n],
               Nd2NzParams(1, static_cast<std::uint16_t>(rk), static_cast<std::uint16_t>(rn), 0,
                           static_cast<std::uint16_t>(s.n), static_cast<std::uint16_t>(akb), 1, 0));
      qa1.EnQue(a1);
      qb1.EnQue(b1);
      a1 = qa1.DeQue<In>();
      b1 = qb1.DeQue<In>();
      LocalTensor<In> a2 = qa2.AllocTensor<In>();
      LocalTensor<In> b2 = qb2.AllocTensor<In>();
      for (std::uint32_t i = 0; i < am / 16; ++i) {
        LoadData(a2[i * ak * 16], a1,
                 LoadData2DParams(static_cast<std::uint16_t>(i), static_cast<std::uint8_t>(ak / c0),
                                  static_cast<std::uint16_t>(am / 16), 0, 0, false, 0));
      }
      if constexpr (sizeof(In) == 2) {
        for (std::uint32_t i = 0; i < akb / 16; ++i) {
          LoadData(b2[i * an * 16], b1,
                   LoadData2DParams(static_cast<std::uint16_t>(i), static_cast<std::uint8_t>(an / 16),
                                    static_cast<std::uint16_t>(akb / 16), 0, 0, true, 0));
        }
      } else {
        for (std::uint32_t i = 0; i < ak / 32; ++i) {
          LoadDataWithTranspose(b2[i * 32 * an], b1,
                                LoadData2dTransposeParams(static_cast<std::uint16_t>(i), static_cast<std::uint8_t>(an / 32),
                                                          static_cast<std::uint16_t>(ak / 32), 1, 0));
        }
      }
      qa1.FreeTensor(a1);
      qb1.FreeTensor(b1);
      qa2.EnQue(a2);
      qb2.EnQue(b2);
      a2 = qa2.DeQue<In>();
      b2 = qb2.DeQue<In>();
      MmadParams p;
      p.m = static_cast<std::uint16_t>(rm);
      p.n = static_cast<std::uint16_t>(rn);
      p.k = static_cast<std::uint16_t>(rk);
      p.cmatrixInitVal = ks == 0;
      Mmad(c1, a2, b2, p);
      qa2.FreeTensor(a2);
      qb2.FreeTensor(b2);
    }
    qc.EnQue(c1);
    c1 = qc.DeQue<Acc>();
    FixpipeParamsV220 f(static_cast<std::uint16_t>(an), static_cast<std::uint16_t>(rm), static_cast<std::uint16_t>(am),
                        s.n, false);
    if constexpr (std::is_same_v<Out, half>) f.quantPre = QuantMode_t::F322F16;
    Fixpipe<Out, Acc, CFG_ROW_MAJOR>(gc[std::uint64_t{tm} * bb.m * s.n + tn * bb.n], c1, f);
    qc.FreeTensor(c1);
  }
}

struct result {
  double us = 0, tflops = 0, mac_ratio = 0;
  std::string error;
};

template <typename In, typename Acc, typename Out>
result run_case(const aopt::sim::device_profile& prof, shape s, base_block bb, int l0) {
  const std::size_t abytes = std::size_t{s.m} * s.k * sizeof(In), bbytes = std::size_t{s.k} * s.n * sizeof(In);
  const std::size_t cbytes = std::size_t{s.m} * s.n * sizeof(Out);
  auto* a = static_cast<std::uint8_t*>(aopt::sim::gm_alloc_device(abytes, "a"));
  auto* b = static_cast<std::uint8_t*>(aopt::sim::gm_alloc_device(bbytes, "b"));
  auto* c = static_cast<std::uint8_t*>(aopt::sim::gm_alloc_device(cbytes, "c"));
  std::memset(a, 0, abytes);
  std::memset(b, 0, bbytes);
  aopt::sim::launch_options o;
  o.block_dim = prof.aic_cores;  // one block per AI Core's Cube
  o.core_count = prof.aic_cores;
  o.ub_bytes = static_cast<std::uint32_t>(prof.ub_bytes);
  o.l1_bytes = static_cast<std::uint32_t>(prof.l1_bytes);
  o.l0a_bytes = static_cast<std::uint32_t>(prof.l0a_bytes);
  o.l0b_bytes = static_cast<std::uint32_t>(prof.l0b_bytes);
  o.l0c_bytes = static_cast<std::uint32_t>(prof.l0c_bytes);
  auto lr = aopt::sim::launch(o, [&] { mm_tiled<In, Acc, Out>(a, b, c, s, bb, l0); });
  result r;
  if (lr.error) {
    r.error = lr.error->to_string();
  } else {
    aopt::sim::timing_options to;
    to.cores = prof.aic_cores;
    const auto rep = aopt::sim::simulate(lr.cores, prof, to);
    if (rep.error) {
      r.error = rep.error->message;
    } else {
      r.us = rep.task_duration_us;
      r.tflops = 2.0 * s.m * s.n * s.k / (r.us * 1e6);
      r.mac_ratio = rep.mac_ratio;
    }
  }
  aopt::sim::gm_free(a);
  aopt::sim::gm_free(b);
  aopt::sim::gm_free(c);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  std::string profile = "910b4";
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--profile" && i + 1 < argc) profile = argv[++i];
    else if (a == "--quick") quick = true;
    else {
      std::fprintf(stderr, "usage: sim_cube_bench [--profile NAME] [--quick]\n");
      return 2;
    }
  }
  const auto prof = aopt::sim::load_profile(profile);
  const double peak = 2.0 * 4096 * prof.aic_cores * prof.clock_ghz * 1e9 / 1e12;
  std::printf("profile %s: %u AIC at %.2f GHz, model peak %.1f TFLOPS half, %.1f int8 (TOPS)\n", prof.name.c_str(),
              prof.aic_cores, prof.clock_ghz, peak, 2 * peak);
  std::printf("| shape (m x n x k) | dtype | base (m,n,k) | L0 buffers | time (us) | TFLOPS | mac ratio |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  auto row = [](const shape& s, const char* dt, const base_block& bb, int l0, const result& r) {
    if (!r.error.empty()) {
      std::printf("| %ux%ux%u | %s | %u,%u,%u | %d | error: %s | | |\n", s.m, s.n, s.k, dt, bb.m, bb.n, bb.k, l0,
                  r.error.c_str());
    } else {
      std::printf("| %ux%ux%u | %s | %u,%u,%u | %d | %.1f | %.1f | %.2f |\n", s.m, s.n, s.k, dt, bb.m, bb.n, bb.k, l0,
                  r.us, r.tflops, r.mac_ratio);
    }
    std::fflush(stdout);
  };
  const base_block b128{128, 128, 64}, b64{64, 64, 64}, b256{256, 128, 64}, b128i8{128, 128, 128};
  std::vector<shape> squares = quick ? std::vector<shape>{{1024, 1024, 1024}}
                                     : std::vector<shape>{{1024, 1024, 1024}, {2048, 2048, 2048}, {4096, 4096, 4096}};
  for (const auto& s : squares) {
    row(s, "half", b128, 2, run_case<half, float, half>(prof, s, b128, 2));
    row(s, "int8", b128i8, 2, run_case<std::int8_t, std::int32_t, std::int32_t>(prof, s, b128i8, 2));
  }
  // Skinny shapes (decode-like GEMV-ish and tall-thin).
  const std::vector<shape> skinny = quick ? std::vector<shape>{{16, 4096, 4096}}
                                          : std::vector<shape>{{16, 4096, 4096}, {128, 8192, 1024}, {8192, 128, 1024}};
  for (const auto& s : skinny) row(s, "half", b128, 2, run_case<half, float, half>(prof, s, b128, 2));
  // Single vs double-buffered L0 and the base block, on 2048^3 half (1024^3 with --quick).
  const shape mid = quick ? shape{1024, 1024, 1024} : shape{2048, 2048, 2048};
  row(mid, "half", b128, 1, run_case<half, float, half>(prof, mid, b128, 1));
  row(mid, "half", b128, 2, run_case<half, float, half>(prof, mid, b128, 2));
  row(mid, "half", b64, 2, run_case<half, float, half>(prof, mid, b64, 2));
  row(mid, "half", b256, 2, run_case<half, float, half>(prof, mid, b256, 2));
  return 0;
}
