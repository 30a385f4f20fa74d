// The cross-core flags by their intrinsics (issue 38: the tree's matmul kernels, mat_mul_v3_common.h,
// batch_mat_mul_v3, gemm_v2): ffts_cross_core_sync(pipe, 1 | mode << 4 | flagId << 8) sets,
// wait_flag_dev(flagId) waits, with CrossCoreSetFlag / CrossCoreWaitFlag's semantics.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "aopt_sim/runtime.h"
#include "kernel_operator.h"

using namespace AscendC;
using aopt::sim::kernel_type;

namespace {

constexpr std::uint64_t config_of(std::uint64_t mode, std::uint64_t flag) { return 1 | (mode << 4) | (flag << 8); }

aopt::sim::launch_result run_mix_1_2(std::uint32_t blocks, const std::function<void()>& body) {
  aopt::sim::launch_options o;
  o.kernel = kernel_type::mix_aic_1_2;
  o.block_dim = blocks;
  return aopt::sim::launch(o, body);
}

}  // namespace

// Mode 2 both ways, as mat_mul_v3's mixed kernels: the AIVs write, set flag 4; the AIC waits,
// sums its two AIVs' parts, sets flag 5; each AIV waits and reads the sum. Repeated rounds.
TEST(CrossCoreIntrinsics, Mode2ByConfigWordPairsAnAicWithItsAivs) {
  constexpr int blocks = 2, rounds = 3;
  std::vector<int> part(blocks * 2, 0), sum(blocks, 0), got(blocks * 2 * rounds, -1);
  const auto r = run_mix_1_2(blocks, [&] {
    for (int k = 0; k < rounds; ++k) {
      if ASCEND_IS_AIV {
        part[static_cast<std::size_t>(GetBlockIdx())] = 10 * k + static_cast<int>(GetBlockIdx());
        ffts_cross_core_sync(PIPE_MTE3, config_of(2, 4));
        wait_flag_dev(5);
        got[static_cast<std::size_t>(GetBlockIdx() * rounds + k)] = sum[static_cast<std::size_t>(GetBlockIdx() / 2)];
      }
      if ASCEND_IS_AIC {
        wait_flag_dev(4);
        const auto g = static_cast<std::size_t>(GetBlockIdx());
        sum[g] = part[2 * g] + part[2 * g + 1];
        ffts_cross_core_sync(PIPE_FIX, config_of(2, 5));
      }
    }
  });
  ASSERT_FALSE(r.error) << r.error->to_string();
  for (int v = 0; v < blocks * 2; ++v) {
    for (int k = 0; k < rounds; ++k) {
      EXPECT_EQ(got[static_cast<std::size_t>(v * rounds + k)], 20 * k + 4 * (v / 2) + 1) << "AIV " << v << " round " << k;
    }
  }
}

// Mode 0 from the config word: every AIC meets on flag 3 (the AIVs are not counted).
TEST(CrossCoreIntrinsics, Mode0ByConfigWordSynchronisesEveryAic) {
  std::vector<int> v(3, 0), seen(3, -1);
  const auto r = run_mix_1_2(3, [&] {
    if (!(ASCEND_IS_AIC)) return;
    const auto me = static_cast<std::size_t>(GetBlockIdx());
    v[me] = 1 + static_cast<int>(me);
    ffts_cross_core_sync(PIPE_FIX, config_of(0, 3));
    wait_flag_dev(3);
    seen[me] = v[(me + 1) % 3];
  });
  ASSERT_FALSE(r.error) << r.error->to_string();
  EXPECT_EQ(seen, (std::vector<int>{2, 3, 1}));
}

// The flag id is the config word's bits 8 up: a set of flag 6 does not release a wait on flag 5,
// which no core can satisfy any more, a deadlock error naming wait_flag_dev.
TEST(CrossCoreIntrinsics, TheFlagIdComesFromBit8OfTheConfigWord) {
  const auto r = run_mix_1_2(1, [&] {
    if ASCEND_IS_AIV {
      ffts_cross_core_sync(PIPE_MTE3, config_of(2, 6));
    }
    if ASCEND_IS_AIC {
      wait_flag_dev(5);
    }
  });
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error->to_string().find("wait_flag_dev"), std::string::npos) << r.error->to_string();
}

// NotifyEvent<pipe>(flag) / WaitEvent(flag) (mat_mul_unaligned_base_kernel.h): the AIVs notify,
// their AIC waits for both and then reads what they wrote.
TEST(CrossCoreIntrinsics, NotifyEventFromTheAivsReleasesTheirAic) {
  constexpr int blocks = 2;
  std::vector<int> part(blocks * 2, 0), sum(blocks, -1);
  const auto r = run_mix_1_2(blocks, [&] {
    if ASCEND_IS_AIV {
      part[static_cast<std::size_t>(GetBlockIdx())] = 5 + static_cast<int>(GetBlockIdx());
      NotifyEvent<PIPE_MTE3>(7);
    }
    if ASCEND_IS_AIC {
      WaitEvent(7);
      const auto g = static_cast<std::size_t>(GetBlockIdx());
      sum[g] = part[2 * g] + part[2 * g + 1];
    }
  });
  ASSERT_FALSE(r.error) << r.error->to_string();
  EXPECT_EQ(sum, (std::vector<int>{11, 15}));
}
