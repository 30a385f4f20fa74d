// Emulated fe::PlatFormInfos: the device facts a tiling function may ask for. On `sim` the
// harness fills it from the device profile (sim/profiles/<name>.json); PlatformAscendC reads it.
#pragma once

#include <cstdint>
#include <string>

// As the real platform_info.h does (global using std::map/string/vector), for host sources only.
// A kernel TU sees this header only because sim's tiling headers reach platform_ascendc.h there
// (register/tilingdata_base.h); a real kernel build never includes it, and a kernel may declare
// its own global `map`, `string` or `vector` (cann-ops math/cross declares a `struct map`).
#if !(defined(__CCE_AICORE__) || defined(AOPT_KERNEL_TU))
#include "platform/platform_info_def.h"
#else
#include <cstdint>
#include <map>
#include <string>
#include <vector>
#endif

namespace fe {

// The on-chip memories PlatFormInfos::GetLocalMemSize answers for.
enum class LocalMemType { L0_A = 0, L0_B = 1, L0_C = 2, L1 = 3, L2 = 4, UB = 5, HBM = 6, RESERVED };

class PlatFormInfos {
 public:
  std::string soc_version = "Ascend910B4";  // full SoC name, e.g. "Ascend910B4"
  std::string short_soc_version = "Ascend910B";
  std::string profile_name = "910b4";
  uint32_t aiv_cores = 40;
  uint32_t aic_cores = 20;
  uint64_t ub_bytes = 196608;  // usable UB (GetCoreMemSize(UB))
  uint64_t l1_bytes = 524288;
  uint64_t l2_bytes = 100663296;
  uint64_t hbm_bytes = 34359738368ull;
  uint64_t l0a_bytes = 65536;
  uint64_t l0b_bytes = 65536;
  uint64_t l0c_bytes = 131072;
  // System workspace the AscendC library API reserves at the start of the kernel workspace
  // (GetLibApiWorkSpaceSize). 16 MiB on Atlas A2 (910B), per the CANN PlatformAscendC docs.
  uint32_t lib_api_workspace_bytes = 16u * 1024u * 1024u;
  double clock_ghz = 1.5;
  // Chip bandwidths in bytes per clock cycle (PlatformAscendC::GetCoreMemBw): the profile's
  // timing.chip.{hbm,l2}_bandwidth_gbs over clock_ghz (defaults: 910b4's 800 and 2400 GB/s at 1.5 GHz).
  uint64_t hbm_bw_bytes_per_cycle = 533;
  uint64_t l2_bw_bytes_per_cycle = 1600;

  // PlatFormInfos' own query API (string-valued, as CANN's platform ini).
  bool GetPlatformRes(const std::string& label, const std::string& key, std::string& val) const {
    if (label == "SoCInfo" && key == "ai_core_cnt") { val = std::to_string(aic_cores); return true; }
    if (label == "SoCInfo" && key == "vector_core_cnt") { val = std::to_string(aiv_cores); return true; }
    if (label == "SoCInfo" && key == "cube_core_cnt") { val = std::to_string(aic_cores); return true; }
    if (label == "AICoreSpec" && key == "ub_size") { val = std::to_string(ub_bytes); return true; }
    if (label == "AICoreSpec" && key == "l1_size") { val = std::to_string(l1_bytes); return true; }
    if (label == "SoCInfo" && key == "l2_size") { val = std::to_string(l2_bytes); return true; }
    if (label == "version" && key == "SoC_version") { val = soc_version; return true; }
    if (label == "version" && key == "Short_SoC_version") { val = short_soc_version; return true; }
    if (label == "AICoreSpec" && key == "cube_freq") { val = std::to_string(static_cast<uint64_t>(clock_ghz * 1000.0 + 0.5)); return true; }
    if (label == "AICoreintrinsicDtypeMap") return intrinsic_dtypes(key, val);
    return false;
  }
  // The data-path intrinsics of the chip (the platform ini's AICoreintrinsicDtypeMap: an
  // intrinsic the chip has maps to the dtypes it takes; one it lacks is absent). Cube tilings
  // (cann-ops' cube_tiling_runtime.cc, dynamic_rnn, gemm_v2) take presence as "the chip is
  // 910B-class" and read "bf16" in Intrinsic_data_move_l12bt. On Atlas A2 (910B, separate AIC and
  // AIV): Fixpipe L0C->GM, L1->BiasTable and the ND->NZ GM->L1 copy exist; L0C->UB, L1->UB and the
  // UB-to-UB cube paths of the 310P do not (the cores are split), nor 950's Fixpipe L0C->UB.
  // Only presence and the dtype names code compares are relied on; the lists are not the ini's.
  bool intrinsic_dtypes(const std::string& name, std::string& val) const {
    const bool a2 = short_soc_version == "Ascend910B" || soc_version.rfind("Ascend910_93", 0) == 0;
    if (!a2) return false;
    if (name == "Intrinsic_fix_pipe_l0c2out") { val = "f322f32,f322f16,f322bf16,s322s32,s322f16,s322s8"; return true; }
    if (name == "Intrinsic_data_move_l12bt") { val = "f16,f32,s32,bf16"; return true; }
    if (name == "Intrinsic_data_move_out2l1_nd2nz") { val = "f16,bf16,f32,s8,s32"; return true; }
    return false;
  }
  // The core count of the op's core type, "AiCore" for AI Core operators: the platform ini's
  // ai_core_cnt, one per AIC on a 910B-class chip (24 on the A2, 20 on 910B4), not the vector
  // cores (PlatformAscendC::GetCoreNum answers those). cann-ops' dynamic_rnn / dynamic_rnnv2 read it
  // so (`sysAicCoreNum = GetCoreNum()`, AIVs = twice it, the block dim "24上限") and, launched MIX
  // 1:2 with 40 AI Cores on sim's earlier answer, their SyncAll could not meet.
  uint32_t GetCoreNum() const { return aic_cores; }
  // Cores of one kind, by the platform ini's names: "AiCore" (the cube cores of a 910B-class chip,
  // as SoCInfo ai_core_cnt) and "VectorCore" (as vector_core_cnt); 0 for another name.
  uint32_t GetCoreNumByType(const std::string& core_type) const {
    if (core_type == "AiCore") return aic_cores;
    if (core_type == "VectorCore") return aiv_cores;
    return 0;
  }
  // The size in bytes of one of the core's memories (UB: the usable UB, as GetCoreMemSize); 0 for
  // RESERVED.
  void GetLocalMemSize(const LocalMemType& mem_type, uint64_t& size) const {
    switch (mem_type) {
      case LocalMemType::L0_A: size = l0a_bytes; break;
      case LocalMemType::L0_B: size = l0b_bytes; break;
      case LocalMemType::L0_C: size = l0c_bytes; break;
      case LocalMemType::L1: size = l1_bytes; break;
      case LocalMemType::L2: size = l2_bytes; break;
      case LocalMemType::UB: size = ub_bytes; break;
      case LocalMemType::HBM: size = hbm_bytes; break;
      default: size = 0; break;
    }
  }
};

}  // namespace fe
