// The engine behind AscendC::Matmul (aopt_sim/kernel/matmul.h): the state of one Matmul object
// and its block loop. Each baseM x baseN block of C is accumulated over singleCoreK in the L0C
// dtype (float, int32 for int8) and converted on the way out.
//
// Two data paths:
// - the cube path (when the emulator has the cube primitives, aopt_sim/kernel/cube.h), as the
//   library runs on the chip: A and B from GM, per L1 load (one K step with CFG_NORM, stepKa /
//   stepKb K steps with CFG_MDL) DataCopy GM -> A1/B1 with the ND -> NZ conversion (MTE2); per K
//   step LoadData A1 -> A2 and B1 -> B2 (MTE1; transposing 16 x 16 fractals where the layout asks:
//   B not transposed, A transposed) and Mmad into CO1 (M), accumulating; queues at A1/B1 (depthA1 /
//   depthB1 >= 2 K-step groups: two slots), A2/B2 (dbL0A / dbL0B slots: L0 double buffering) and
//   CO1 (dbL0C slots) carry the flags between the pipes; GetTensorC moves the block out with Fixpipe
//   (FIX: NZ -> ND, F322F16 / F322BF16 / DEQF16 conversion, atomic add) when its N is a multiple of
//   16 and the destination is GM. Inputs: half / bfloat16_t (any transpose), int8 with A not
//   transposed and B transposed.
// - the plain path for the rest (A or B in a local tensor, int8 with other transposes, float
//   inputs): the same values computed directly, untimed.
// Also untimed on the cube path [ASSUMED simplification]: the bias row is written into CO1 before
// the first Mmad (the chip loads it through C2, whose L1 -> C2 copy sim lacks), a block whose N is
// not a multiple of 16, GetTensorC to a local tensor and enAtomic max/min are converted from CO1
// directly (no Fixpipe record).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "aopt_sim/host/matmul_tiling_data.h"
#include "kernel_operator.h"

#if __has_include("aopt_sim/kernel/cube.h")
#define AOPT_MM_CUBE 1
#endif

namespace aopt::sim::matmul_detail {

template <typename T>
inline constexpr bool is_int8_v = std::is_same_v<T, std::int8_t> || std::is_same_v<T, std::uint8_t>;

template <typename T>
AOPT_SIM_UNTRACED inline float to_f(const T* p, std::int64_t i) {
  return static_cast<float>(p[i]);
}

// float / int32 accumulator value -> C's dtype.
template <typename D, typename Acc>
inline D convert_out(Acc v, float deq_scale) {
  if constexpr (std::is_same_v<Acc, std::int32_t>) {
    if constexpr (std::is_same_v<D, std::int32_t>) {
      return v;
    } else {
      return static_cast<D>(static_cast<float>(v) * deq_scale);
    }
  } else {
    return static_cast<D>(v);
  }
}

template <typename D>
inline D combine(std::uint8_t atomic, D old_v, D new_v) {
  switch (atomic) {
    case 1: return static_cast<D>(static_cast<float>(old_v) + static_cast<float>(new_v));
    case 2: return static_cast<float>(new_v) > static_cast<float>(old_v) ? new_v : old_v;
    case 3: return static_cast<float>(new_v) < static_cast<float>(old_v) ? new_v : old_v;
    default: return new_v;
  }
}
template <>
inline std::int32_t combine<std::int32_t>(std::uint8_t atomic, std::int32_t old_v, std::int32_t new_v) {
  switch (atomic) {
    case 1: return old_v + new_v;
    case 2: return std::max(old_v, new_v);
    case 3: return std::min(old_v, new_v);
    default: return new_v;
  }
}

template <class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE, const auto& CFG>
class engine {
 public:
  using SrcAT = typename A_TYPE::T;
  using SrcBT = typename B_TYPE::T;
  using DstT = typename C_TYPE::T;
  using BiasT = typename BIAS_TYPE::T;
  using AccT = std::conditional_t<is_int8_v<SrcAT>, std::int32_t, float>;

 protected:
  void init(const TCubeTiling* t, AscendC::TPipe* pipe) {
    if (t != nullptr) tiling_ = *t;
#ifdef AOPT_MM_CUBE
    init_cube(pipe != nullptr ? pipe : GetTPipePtr());
#else
    static_cast<void>(pipe);
#endif
    M_ = tiling_.M;
    N_ = tiling_.N;
    Nc_ = N_;
    Ka_ = tiling_.Ka;
    Kb_ = tiling_.Kb;
    sm_ = tiling_.singleCoreM;
    sn_ = tiling_.singleCoreN;
    sk_ = tiling_.singleCoreK;
    has_bias_ = tiling_.isBias != 0;
    started_ = false;
  }
  // kc: C's row length in GM when it differs from B's N (SetOrgShape's orgKc; 0: B's N).
  void org_shape(int m, int n, int ka, int kb, int kc = 0) {
    M_ = m;
    N_ = n;
    Nc_ = kc > 0 ? kc : n;
    Ka_ = ka;
    Kb_ = kb;
  }
  void single_shape(int m, int n, int k) {
    sm_ = m;
    sn_ = n;
    sk_ = k;
    started_ = false;
  }
  void tail(int m, int n, int k) {
    if (m > 0) sm_ = m;
    if (n > 0) sn_ = n;
    if (k > 0) sk_ = k;
    started_ = false;
  }
  void set_a(const SrcAT* p, bool gm, bool trans) {
    a_gm_ = gm;
    a_ = p;
    trans_a_ = trans;
    started_ = false;
  }
  void set_b(const SrcBT* p, bool gm, bool trans) {
    b_gm_ = gm;
    b_ = p;
    trans_b_ = trans;
    started_ = false;
  }
  void set_bias(const BiasT* p, bool gm) {
    static_cast<void>(gm);
    bias_ = p;
    has_bias_ = true;
    started_ = false;
  }
  void disable_bias() {
    has_bias_ = false;
    bias_ = nullptr;
  }
  void quant_scalar(std::uint64_t q) {
    quant_ = q;
    const std::uint32_t lo = static_cast<std::uint32_t>(q & 0xffffffffu);
    float f = 0;
    std::memcpy(&f, &lo, sizeof(f));
    deq_scale_ = f;
  }

  // The next block; false (and the loop reset) when every block of the single shape is done.
  bool iterate(bool partial_sum) {
    static_cast<void>(partial_sum);
    const int bm = tiling_.baseM > 0 ? tiling_.baseM : 16, bn = tiling_.baseN > 0 ? tiling_.baseN : 16;
    const int m_iter = (sm_ + bm - 1) / bm, n_iter = (sn_ + bn - 1) / bn;
    if (!started_) {
      started_ = true;
      cur_ = 0;
    } else {
      ++cur_;
    }
    if (m_iter <= 0 || n_iter <= 0 || cur_ >= m_iter * n_iter) {
      started_ = false;
#ifdef AOPT_MM_CUBE
      release_block();
#endif
      return false;
    }
    const bool order_n = CFG.iterateOrder == AscendC::IterateOrder::ORDER_N ||
                         (CFG.iterateOrder == AscendC::IterateOrder::UNDEF && tiling_.iterateOrder == 1);
    if (order_n) {
      mi_ = cur_ / n_iter;
      ni_ = cur_ % n_iter;
    } else {
      mi_ = cur_ % m_iter;
      ni_ = cur_ / m_iter;
    }
    m0_ = mi_ * bm;
    n0_ = ni_ * bn;
    rows_ = std::min(bm, sm_ - m0_);
    cols_ = std::min(bn, sn_ - n0_);
#ifdef AOPT_MM_CUBE
    release_block();
    if (cube_ok()) {
      cube_block();
      return true;
    }
#endif
    compute_block(bm, bn);
    return true;
  }

  // C block -> GM at the block's place, row stride N.
  // seq_stride: the row stride of a sequential write (0: baseN; the async blocks: their width).
  AOPT_SIM_UNTRACED void get_c_gm(DstT* c, std::uint8_t atomic, bool sequential, int seq_stride = 0) {
#ifdef AOPT_MM_CUBE
    if (held_) {
      cube_out_gm(c, atomic, sequential, seq_stride);
      return;
    }
#endif
    const int bn = tiling_.baseN;
    const int seq = seq_stride > 0 ? seq_stride : bn;
    if (atomic != 0) aopt::sim::gm_atomic_lock();
    for (int i = 0; i < rows_; ++i) {
      for (int j = 0; j < cols_; ++j) {
        const DstT v = convert_out<DstT>(acc_[static_cast<std::size_t>(i) * bn + j], deq_scale_);
        DstT* dst = sequential ? c + static_cast<std::int64_t>(i) * seq + j
                               : c + static_cast<std::int64_t>(m0_ + i) * Nc_ + (n0_ + j);
        *dst = atomic != 0 ? combine<DstT>(atomic, *dst, v) : v;
      }
    }
    if (atomic != 0) aopt::sim::gm_atomic_unlock();
  }
  // C block -> a local tensor, dense baseM x baseN.
  void get_c_local(DstT* c, std::uint8_t atomic) {
    const int bn = tiling_.baseN;
#ifdef AOPT_MM_CUBE
    if (held_) {
      for (int i = 0; i < rows_; ++i)
        for (int j = 0; j < cols_; ++j) {
          DstT* dst = c + static_cast<std::int64_t>(i) * bn + j;
          *dst = combine<DstT>(atomic, *dst, convert_out<DstT>(co1_at(i, j), deq_scale_));
        }
      return;
    }
#endif
    for (int i = 0; i < rows_; ++i) {
      for (int j = 0; j < cols_; ++j) {
        const DstT v = convert_out<DstT>(acc_[static_cast<std::size_t>(i) * bn + j], deq_scale_);
        DstT* dst = c + static_cast<std::int64_t>(i) * bn + j;
        *dst = atomic != 0 ? combine<DstT>(atomic, *dst, v) : v;
      }
    }
  }
  // C block -> its place in a local singleCoreM x singleCoreN matrix (IterateAll to UB).
  void get_c_whole_local(DstT* c, std::uint8_t atomic) {
    const int bn = tiling_.baseN;
#ifdef AOPT_MM_CUBE
    if (held_) {
      for (int i = 0; i < rows_; ++i)
        for (int j = 0; j < cols_; ++j) {
          DstT* dst = c + static_cast<std::int64_t>(m0_ + i) * sn_ + (n0_ + j);
          *dst = combine<DstT>(atomic, *dst, convert_out<DstT>(co1_at(i, j), deq_scale_));
        }
      return;
    }
#endif
    for (int i = 0; i < rows_; ++i) {
      for (int j = 0; j < cols_; ++j) {
        const DstT v = convert_out<DstT>(acc_[static_cast<std::size_t>(i) * bn + j], deq_scale_);
        DstT* dst = c + static_cast<std::int64_t>(m0_ + i) * sn_ + (n0_ + j);
        *dst = atomic != 0 ? combine<DstT>(atomic, *dst, v) : v;
      }
    }
  }
  // Async mode (GetTensorC.md, Iterate.md: `Iterate<false>()` once, then one GetTensorC per
  // block). One call computes every block of the single shape, in iteration order, into the
  // workspace of SetWorkspace (required, as in the documented example): block after block, each
  // packed rows x cols (row stride: its own width), so they fill exactly singleM x singleN.
  // GetTensorC() hands them out in that order (quant_batch_matmul_v3 copies each with its width).
  void set_workspace(std::uint8_t* ws, std::uint64_t bytes) {
    ws_ = ws;
    ws_bytes_ = bytes;
  }
  void iterate_async(const aopt::sim::src_loc& loc) {
    if (ws_ == nullptr) {
      aopt::sim::fail(aopt::sim::hw_error_kind::param_out_of_range,
                      "Iterate<false> (async) needs a workspace for its results: call SetWorkspace first "
                      "(GetTensorC.md, the asynchronous mode)",
                      loc, "Matmul::Iterate");
    }
    async_.clear();
    async_next_ = 0;
    std::uint64_t off = 0;
    while (iterate(false)) {
      const std::uint64_t bytes = static_cast<std::uint64_t>(rows_) * cols_ * sizeof(DstT);
      if (off + bytes > ws_bytes_) {
        aopt::sim::fail(aopt::sim::hw_error_kind::param_out_of_range,
                        "the async results of this single shape need " + std::to_string(off + bytes) +
                            " bytes of workspace, SetWorkspace gave " + std::to_string(ws_bytes_),
                        loc, "Matmul::Iterate");
      }
      DstT* dst = reinterpret_cast<DstT*>(ws_ + off);
      get_c_gm(dst, 0, true, cols_);
      async_.push_back({m0_, n0_, rows_, cols_, dst});
      off += bytes;
    }
  }
  struct async_block {
    int m0, n0, rows, cols;
    DstT* data;
  };
  const async_block& next_async(const aopt::sim::src_loc& loc) {
    if (async_next_ >= async_.size()) {
      aopt::sim::fail(aopt::sim::hw_error_kind::param_out_of_range,
                      "GetTensorC after every block of the async Iterate<false> was taken (" +
                          std::to_string(async_.size()) + " blocks)",
                      loc, "Matmul::GetTensorC");
    }
    return async_[async_next_++];
  }
  bool async_pending() const { return async_next_ < async_.size(); }
  // An async block to GM at its place (or packed at c, sequential), or to a local baseM x baseN.
  // A plain copy: the block's fixpipe out of L0C was priced when Iterate<false> wrote it.
  void async_to(DstT* c, bool local, std::uint8_t atomic, bool sequential, const aopt::sim::src_loc& loc) {
    const async_block& b = next_async(loc);
    const int bn = tiling_.baseN;
    for (int i = 0; i < b.rows; ++i) {
      for (int j = 0; j < b.cols; ++j) {
        DstT* dst = local || sequential ? c + static_cast<std::int64_t>(i) * bn + j
                                        : c + static_cast<std::int64_t>(b.m0 + i) * Nc_ + (b.n0 + j);
        const DstT v = b.data[static_cast<std::int64_t>(i) * b.cols + j];
        *dst = atomic != 0 ? combine<DstT>(atomic, *dst, v) : v;
      }
    }
  }
  // SetBatchNum: the A and B matrices one IterateBatch computes with.
  void batch_num(int batch_a, int batch_b) {
    batch_a_ = batch_a;
    batch_b_ = batch_b;
  }
  // IterateBatch to GM (LayoutMode NORMAL, BMNK): batch_c = max(batchA, batchB) products, each the
  // whole single shape (every block, as IterateAll). Product i reads A's matrix i / (batch_c /
  // batchA) (the larger batch broadcasts the smaller; [ASSUMED] whole groups, as the G-axis
  // broadcast of the reference), stride_a elements apart (0: one M x Ka matrix), B's likewise
  // (0: Kb x N), the bias N apart when the config's isBiasBatch, and writes C's matrix i, M x N
  // apart (matrixStrideC is reserved in the reference). Afterwards A, B and the bias are where
  // SetTensorA/B/SetBias put them.
  void iterate_batch_gm(DstT* c, bool partial_sum, std::uint8_t atomic, std::uint32_t stride_a,
                        std::uint32_t stride_b, const aopt::sim::src_loc& loc) {
    const int ba = batch_a_, bb = batch_b_;
    if (ba <= 0 || bb <= 0 || (ba > bb ? ba % bb : bb % ba) != 0) {
      aopt::sim::fail(aopt::sim::hw_error_kind::invalid_use,
                      "Matmul::IterateBatch: batchA " + std::to_string(ba) + " and batchB " + std::to_string(bb) +
                          " must be positive and one a multiple of the other (set them with SetBatchNum or "
                          "IterateBatch's batchA/batchB)",
                      loc, "IterateBatch");
    }
    const int bc = std::max(ba, bb);
    const std::int64_t sa = stride_a != 0 ? stride_a : static_cast<std::int64_t>(M_) * Ka_;
    const std::int64_t sb = stride_b != 0 ? stride_b : static_cast<std::int64_t>(Kb_) * N_;
    const std::int64_t sc = static_cast<std::int64_t>(M_) * N_;
    const SrcAT* a0 = a_;
    const SrcBT* b0 = b_;
    const BiasT* bias0 = bias_;
    for (int i = 0; i < bc; ++i) {
      a_ = a0 + (i / (bc / ba)) * sa;
      b_ = b0 + (i / (bc / bb)) * sb;
      if (bias0 != nullptr && CFG.isBiasBatch) bias_ = bias0 + static_cast<std::int64_t>(i) * N_;
      started_ = false;
      while (iterate(partial_sum)) get_c_gm(c + i * sc, atomic, false);
    }
    a_ = a0;
    b_ = b0;
    bias_ = bias0;
    started_ = false;
  }
  void end() {
    started_ = false;
#ifdef AOPT_MM_CUBE
    release_block();
#endif
  }

 private:
  AOPT_SIM_UNTRACED float a_at(int i, int k) const {
    return trans_a_ ? static_cast<float>(a_[static_cast<std::int64_t>(k) * M_ + i])
                    : static_cast<float>(a_[static_cast<std::int64_t>(i) * Ka_ + k]);
  }
  AOPT_SIM_UNTRACED float b_at(int k, int j) const {
    return trans_b_ ? static_cast<float>(b_[static_cast<std::int64_t>(j) * Kb_ + k])
                    : static_cast<float>(b_[static_cast<std::int64_t>(k) * N_ + j]);
  }
  AOPT_SIM_UNTRACED std::int32_t a_int(int i, int k) const {
    return trans_a_ ? static_cast<std::int32_t>(a_[static_cast<std::int64_t>(k) * M_ + i])
                    : static_cast<std::int32_t>(a_[static_cast<std::int64_t>(i) * Ka_ + k]);
  }
  AOPT_SIM_UNTRACED std::int32_t b_int(int k, int j) const {
    return trans_b_ ? static_cast<std::int32_t>(b_[static_cast<std::int64_t>(j) * Kb_ + k])
                    : static_cast<std::int32_t>(b_[static_cast<std::int64_t>(k) * N_ + j]);
  }

  AOPT_SIM_UNTRACED void compute_block(int bm, int bn) {
    acc_.assign(static_cast<std::size_t>(bm) * bn, AccT{});
    const int bk = tiling_.baseK > 0 ? tiling_.baseK : 16;
    if (has_bias_ && bias_ != nullptr) {
      for (int i = 0; i < rows_; ++i)
        for (int j = 0; j < cols_; ++j) acc_[static_cast<std::size_t>(i) * bn + j] = static_cast<AccT>(bias_[n0_ + j]);
    }
    if (a_ == nullptr || b_ == nullptr) return;
    for (int k0 = 0; k0 < sk_; k0 += bk) {
      const int kl = std::min(bk, sk_ - k0);
      for (int i = 0; i < rows_; ++i) {
        for (int j = 0; j < cols_; ++j) {
          AccT s{};
          for (int k = 0; k < kl; ++k) {
            if constexpr (std::is_same_v<AccT, std::int32_t>) {
              s += a_int(m0_ + i, k0 + k) * b_int(k0 + k, n0_ + j);
            } else {
              s += a_at(m0_ + i, k0 + k) * b_at(k0 + k, n0_ + j);
            }
          }
          acc_[static_cast<std::size_t>(i) * bn + j] += s;
        }
      }
    }
  }


#ifdef AOPT_MM_CUBE
  static constexpr bool b16_v = sizeof(SrcAT) == 2 && !std::is_same_v<SrcAT, std::int16_t> && !std::is_same_v<SrcAT, std::uint16_t>;
  static constexpr std::int64_t c0_v = 32 / static_cast<std::int64_t>(sizeof(SrcAT));

  void init_cube(AscendC::TPipe* pipe) {
    cube_ready_ = false;
    if (pipe == nullptr || tiling_.baseM <= 0 || tiling_.baseN <= 0 || tiling_.baseK <= 0) return;
    const bool mdl = CFG.doMultiDataLoad || CFG.doSpecialMDL;
    step_ka_ = mdl ? std::max(1, tiling_.stepKa) : 1;
    step_kb_ = mdl ? std::max(1, tiling_.stepKb) : 1;
    step_k_ = std::min(step_ka_, step_kb_);
    const std::uint32_t in = static_cast<std::uint32_t>(sizeof(SrcAT));
    const std::uint32_t k1 = static_cast<std::uint32_t>(step_k_ * tiling_.baseK);
    const std::uint32_t k1p = static_cast<std::uint32_t>((k1 + 15) / 16 * 16);
    const int slots_a1 = tiling_.depthA1 >= 2 * step_ka_ ? 2 : 1;
    const int slots_b1 = tiling_.depthB1 >= 2 * step_kb_ ? 2 : 1;
    pipe->InitBuffer(qa1_, slots_a1, static_cast<std::uint32_t>(tiling_.baseM) * k1p * in);
    pipe->InitBuffer(qb1_, slots_b1, static_cast<std::uint32_t>(tiling_.baseN) * k1p * in);
    pipe->aopt_begin_matmul_l0();  // L0 is shared by the pipe's Matmul objects (TPipe::aopt_begin_matmul_l0)
    pipe->InitBuffer(qa2_, tiling_.dbL0A >= 2 ? 2 : 1, static_cast<std::uint32_t>(tiling_.baseM * tiling_.baseK) * in);
    pipe->InitBuffer(qb2_, tiling_.dbL0B >= 2 ? 2 : 1, static_cast<std::uint32_t>(tiling_.baseN * tiling_.baseK) * in);
    pipe->InitBuffer(qco1_, tiling_.dbL0C >= 2 ? 2 : 1,
                     static_cast<std::uint32_t>(tiling_.baseM * tiling_.baseN) * static_cast<std::uint32_t>(sizeof(AccT)));
    pipe->aopt_end_matmul_l0();
    cube_ready_ = true;
  }

  bool cube_ok() const {
    if (!cube_ready_ || !a_gm_ || !b_gm_ || a_ == nullptr || b_ == nullptr) return false;
    if (M_ > 65535 || N_ > 65535 || Ka_ > 65535 || Kb_ > 65535) return false;  // Nd2Nz's srcDValue
    if constexpr (b16_v) {
      return true;
    } else if constexpr (is_int8_v<SrcAT>) {
      return !trans_a_ && trans_b_;  // no transposing load of b8 fractals here
    } else {
      return false;
    }
  }

  void release_block() {
    if (held_) {
      qco1_.FreeTensor(co1_);
      held_ = false;
    }
  }

  AccT co1_at(int i, int j) const {
    const AccT* p = co1_.aopt_ptr();
    const int mblk = (rows_ + 15) / 16;
    return p[(static_cast<std::int64_t>(j / 16) * mblk + i / 16) * 256 + (i % 16) * 16 + j % 16];
  }

  // One block: L1 loads of step_k_ K steps, per K step the L0 loads and Mmad into CO1.
  void cube_block() {
    using namespace AscendC;
    const int bk = tiling_.baseK;
    const int mblk = (rows_ + 15) / 16, nblk = (cols_ + 15) / 16;
    const int mpad = mblk * 16, npad = nblk * 16;
    co1_ = qco1_.template AllocTensor<AccT>();
    held_ = true;
    const bool bias = has_bias_ && bias_ != nullptr;
    if (bias) write_bias_rows(mblk, nblk);
    const int ksteps = (sk_ + bk - 1) / bk;
    bool first = true;
    for (int s0 = 0; s0 < ksteps; s0 += step_k_) {
      const int k0 = s0 * bk;
      const int kl1 = std::min(step_k_ * bk, sk_ - k0);  // K of this L1 load
      const int kp1 = (kl1 + 15) / 16 * 16;
      LocalTensor<SrcAT> a1 = qa1_.template AllocTensor<SrcAT>();
      LocalTensor<SrcBT> b1 = qb1_.template AllocTensor<SrcBT>();
      const auto* ag = const_cast<SrcAT*>(a_);
      const auto* bg = const_cast<SrcBT*>(b_);
      GlobalTensor<SrcAT> agm;
      GlobalTensor<SrcBT> bgm;
      if (!trans_a_) {
        agm.SetGlobalBuffer(const_cast<SrcAT*>(ag) + static_cast<std::int64_t>(m0_) * Ka_ + k0);
        DataCopy(a1, agm, Nd2NzParams(1, static_cast<std::uint16_t>(rows_), static_cast<std::uint16_t>(kl1), 0,
                                      static_cast<std::uint16_t>(Ka_), static_cast<std::uint16_t>(mpad), 1, 0));
      } else {
        agm.SetGlobalBuffer(const_cast<SrcAT*>(ag) + static_cast<std::int64_t>(k0) * M_ + m0_);
        DataCopy(a1, agm, Nd2NzParams(1, static_cast<std::uint16_t>(kl1), static_cast<std::uint16_t>(rows_), 0,
                                      static_cast<std::uint16_t>(M_), static_cast<std::uint16_t>(kp1), 1, 0));
      }
      if (!trans_b_) {
        bgm.SetGlobalBuffer(const_cast<SrcBT*>(bg) + static_cast<std::int64_t>(k0) * N_ + n0_);
        DataCopy(b1, bgm, Nd2NzParams(1, static_cast<std::uint16_t>(kl1), static_cast<std::uint16_t>(cols_), 0,
                                      static_cast<std::uint16_t>(N_), static_cast<std::uint16_t>(kp1), 1, 0));
      } else {
        bgm.SetGlobalBuffer(const_cast<SrcBT*>(bg) + static_cast<std::int64_t>(n0_) * Kb_ + k0);
        DataCopy(b1, bgm, Nd2NzParams(1, static_cast<std::uint16_t>(cols_), static_cast<std::uint16_t>(kl1), 0,
                                      static_cast<std::uint16_t>(Kb_), static_cast<std::uint16_t>(npad), 1, 0));
      }
      qa1_.EnQue(a1);
      qb1_.EnQue(b1);
      a1 = qa1_.template DeQue<SrcAT>();
      b1 = qb1_.template DeQue<SrcBT>();
      for (int s = 0; s * bk < kl1; ++s) {
        const int kl = std::min(bk, kl1 - s * bk);
        const int kb = static_cast<int>((kl + c0_v - 1) / c0_v);  // K fractals of this step
        const int kf0 = static_cast<int>(s * bk / c0_v);          // its first K fractal in L1 (c0 units)
        LocalTensor<SrcAT> a2 = qa2_.template AllocTensor<SrcAT>();
        LocalTensor<SrcBT> b2 = qb2_.template AllocTensor<SrcBT>();
        // A2 (Zz): fractal (m block, k block) at m block x kb + k block.
        for (int mb = 0; mb < mblk; ++mb) {
          LoadData2DParams p;
          if (!trans_a_) {  // A1 NZ: fractal (k block, m block) at k block x mblk + m block
            p = LoadData2DParams(static_cast<std::uint16_t>(kf0 * mblk + mb), static_cast<std::uint8_t>(kb),
                                 static_cast<std::uint16_t>(mblk), 0, 0, false, 0);
          } else {  // A1 NZ of A^T: fractal (m block, k16 block) at m block x kp1/16 + k16 block, transposed
            p = LoadData2DParams(static_cast<std::uint16_t>(mb * (kp1 / 16) + s * bk / 16), static_cast<std::uint8_t>(kb), 1,
                                 0, 0, true, 0);
          }
          LoadData(a2[static_cast<std::uint32_t>(mb * kb * 16 * c0_v)], a1, p);
        }
        // B2 (Zn): fractal (k block, n block) at k block x nblk + n block.
        for (int q = 0; q < kb; ++q) {
          LoadData2DParams p;
          if (!trans_b_) {  // B1 NZ of B: fractal (n block, k16 block) at n block x kp1/16 + k16 block, transposed
            p = LoadData2DParams(static_cast<std::uint16_t>(s * bk / 16 + q), static_cast<std::uint8_t>(nblk),
                                 static_cast<std::uint16_t>(kp1 / 16), 0, 0, true, 0);
          } else {  // B1 NZ of B^T: fractal (k block, n block) at k block x nblk + n block
            p = LoadData2DParams(static_cast<std::uint16_t>((kf0 + q) * nblk), static_cast<std::uint8_t>(nblk), 1, 0, 0,
                                 false, 0);
          }
          LoadData(b2[static_cast<std::uint32_t>(q * nblk * 16 * c0_v)], b1, p);
        }
        qa2_.EnQue(a2);
        qb2_.EnQue(b2);
        a2 = qa2_.template DeQue<SrcAT>();
        b2 = qb2_.template DeQue<SrcBT>();
        MmadParams mp;
        mp.m = static_cast<std::uint16_t>(rows_);
        mp.n = static_cast<std::uint16_t>(cols_);
        mp.k = static_cast<std::uint16_t>(kl);
        mp.cmatrixInitVal = first && !bias;
        mp.cmatrixSource = false;
        Mmad(co1_, a2, b2, mp);
        first = false;
        qa2_.FreeTensor(a2);
        qb2_.FreeTensor(b2);
      }
      qa1_.FreeTensor(a1);
      qb1_.FreeTensor(b1);
    }
    qco1_.EnQue(co1_);
    co1_ = qco1_.template DeQue<AccT>();
  }

  AOPT_SIM_UNTRACED void write_bias_rows(int mblk, int nblk) {
    AccT* p = co1_.aopt_ptr();
    for (int i = 0; i < mblk * 16; ++i)
      for (int j = 0; j < nblk * 16; ++j)
        p[(static_cast<std::int64_t>(j / 16) * mblk + i / 16) * 256 + (i % 16) * 16 + j % 16] =
            j < cols_ ? static_cast<AccT>(bias_[n0_ + j]) : AccT{};
  }

  AOPT_SIM_UNTRACED void cube_out_gm(DstT* c, std::uint8_t atomic, bool sequential, int seq_stride) {
    using namespace AscendC;
    const int bn = seq_stride > 0 ? seq_stride : tiling_.baseN;
    constexpr bool f32_acc = std::is_same_v<AccT, float>;
    constexpr bool fix_type = (f32_acc && (std::is_same_v<DstT, float> || std::is_same_v<DstT, half> ||
                                           std::is_same_v<DstT, bfloat16_t>)) ||
                              (!f32_acc && (std::is_same_v<DstT, std::int32_t> || std::is_same_v<DstT, half>));
    if constexpr (fix_type) {
      if (cols_ % 16 == 0 && (atomic == 0 || atomic == 1)) {
        FixpipeParamsV220 fp;
        fp.nSize = static_cast<std::uint16_t>(cols_);
        fp.mSize = static_cast<std::uint16_t>(rows_);
        fp.srcStride = static_cast<std::uint16_t>((rows_ + 15) / 16 * 16);
        fp.dstStride = static_cast<std::uint32_t>(sequential ? bn : Nc_);
        if constexpr (std::is_same_v<DstT, half> && f32_acc) fp.quantPre = QuantMode_t::F322F16;
        if constexpr (std::is_same_v<DstT, bfloat16_t>) fp.quantPre = QuantMode_t::F322BF16;
        if constexpr (std::is_same_v<DstT, half> && !f32_acc) {
          fp.quantPre = QuantMode_t::DEQF16;
          fp.deqScalar = quant_;
        }
        GlobalTensor<DstT> cg;
        cg.SetGlobalBuffer(sequential ? c : c + static_cast<std::int64_t>(m0_) * Nc_ + n0_);
        if (atomic == 1) SetAtomicAdd<DstT>();
        Fixpipe(cg, co1_, fp);
        if (atomic == 1) SetAtomicNone();
        qco1_.FreeTensor(co1_);
        held_ = false;
        return;
      }
    }
    if (atomic != 0) aopt::sim::gm_atomic_lock();
    for (int i = 0; i < rows_; ++i) {
      for (int j = 0; j < cols_; ++j) {
        const DstT v = convert_out<DstT>(co1_at(i, j), deq_scale_);
        DstT* dst = sequential ? c + static_cast<std::int64_t>(i) * bn + j
                               : c + static_cast<std::int64_t>(m0_ + i) * Nc_ + (n0_ + j);
        *dst = atomic != 0 ? combine<DstT>(atomic, *dst, v) : v;
      }
    }
    if (atomic != 0) aopt::sim::gm_atomic_unlock();
    qco1_.FreeTensor(co1_);
    held_ = false;
  }

  AscendC::TQue<AscendC::TPosition::A1, 2> qa1_;
  AscendC::TQue<AscendC::TPosition::B1, 2> qb1_;
  AscendC::TQue<AscendC::TPosition::A2, 2> qa2_;
  AscendC::TQue<AscendC::TPosition::B2, 2> qb2_;
  AscendC::TQue<AscendC::TPosition::CO1, 2> qco1_;
  AscendC::LocalTensor<AccT> co1_;
  bool cube_ready_ = false, held_ = false;
  int step_ka_ = 1, step_kb_ = 1, step_k_ = 1;
#endif

  TCubeTiling tiling_{};
  const SrcAT* a_ = nullptr;
  const SrcBT* b_ = nullptr;
  const BiasT* bias_ = nullptr;
  bool trans_a_ = false, trans_b_ = false, has_bias_ = false, started_ = false, a_gm_ = false, b_gm_ = false;
  std::uint64_t quant_ = 0;
  int M_ = 0, N_ = 0, Nc_ = 0, Ka_ = 0, Kb_ = 0, sm_ = 0, sn_ = 0, sk_ = 0;
  int cur_ = 0, mi_ = 0, ni_ = 0, m0_ = 0, n0_ = 0, rows_ = 0, cols_ = 0;
  std::uint8_t* ws_ = nullptr;
  std::uint64_t ws_bytes_ = 0;
  std::vector<async_block> async_;
  std::size_t async_next_ = 0;
  int batch_a_ = 1, batch_b_ = 1;
  float deq_scale_ = 1.0f;
  std::vector<AccT> acc_;
};

}  // namespace aopt::sim::matmul_detail
