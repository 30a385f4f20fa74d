// The engine behind AscendC::Matmul (aopt_sim/kernel/matmul.h): the state of one Matmul object
// and its block loop. Values: A and B are read from where SetTensorA/B point (GM or a local
// tensor), each baseM x baseN block of C is accumulated over singleCoreK in the L0C dtype (float,
// int32 for int8) and converted on the way out.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "aopt_sim/host/matmul_tiling_data.h"
#include "aopt_sim/kernel/core.h"
#include "aopt_sim/kernel/types.h"

namespace AscendC {
class TPipe;
}

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
    static_cast<void>(pipe);
    if (t != nullptr) tiling_ = *t;
    M_ = tiling_.M;
    N_ = tiling_.N;
    Ka_ = tiling_.Ka;
    Kb_ = tiling_.Kb;
    sm_ = tiling_.singleCoreM;
    sn_ = tiling_.singleCoreN;
    sk_ = tiling_.singleCoreK;
    has_bias_ = tiling_.isBias != 0;
    started_ = false;
  }
  void org_shape(int m, int n, int ka, int kb) {
    M_ = m;
    N_ = n;
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
    static_cast<void>(gm);
    a_ = p;
    trans_a_ = trans;
    started_ = false;
  }
  void set_b(const SrcBT* p, bool gm, bool trans) {
    static_cast<void>(gm);
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
    compute_block(bm, bn);
    return true;
  }

  // C block -> GM at the block's place, row stride N.
  AOPT_SIM_UNTRACED void get_c_gm(DstT* c, std::uint8_t atomic, bool sequential) {
    const int bn = tiling_.baseN;
    if (atomic != 0) aopt::sim::gm_atomic_lock();
    for (int i = 0; i < rows_; ++i) {
      for (int j = 0; j < cols_; ++j) {
        const DstT v = convert_out<DstT>(acc_[static_cast<std::size_t>(i) * bn + j], deq_scale_);
        DstT* dst = sequential ? c + static_cast<std::int64_t>(i) * bn + j
                               : c + static_cast<std::int64_t>(m0_ + i) * N_ + (n0_ + j);
        *dst = atomic != 0 ? combine<DstT>(atomic, *dst, v) : v;
      }
    }
    if (atomic != 0) aopt::sim::gm_atomic_unlock();
  }
  // C block -> a local tensor, dense baseM x baseN.
  void get_c_local(DstT* c, std::uint8_t atomic) {
    const int bn = tiling_.baseN;
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
    for (int i = 0; i < rows_; ++i) {
      for (int j = 0; j < cols_; ++j) {
        const DstT v = convert_out<DstT>(acc_[static_cast<std::size_t>(i) * bn + j], deq_scale_);
        DstT* dst = c + static_cast<std::int64_t>(m0_ + i) * sn_ + (n0_ + j);
        *dst = atomic != 0 ? combine<DstT>(atomic, *dst, v) : v;
      }
    }
  }
  void end() { started_ = false; }

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

  TCubeTiling tiling_{};
  const SrcAT* a_ = nullptr;
  const SrcBT* b_ = nullptr;
  const BiasT* bias_ = nullptr;
  bool trans_a_ = false, trans_b_ = false, has_bias_ = false, started_ = false;
  int M_ = 0, N_ = 0, Ka_ = 0, Kb_ = 0, sm_ = 0, sn_ = 0, sk_ = 0;
  int cur_ = 0, mi_ = 0, ni_ = 0, m0_ = 0, n0_ = 0, rows_ = 0, cols_ = 0;
  float deq_scale_ = 1.0f;
  std::vector<AccT> acc_;
};

}  // namespace aopt::sim::matmul_detail
