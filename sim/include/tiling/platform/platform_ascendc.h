// Emulated platform_ascendc::PlatformAscendC: hardware facts for tiling functions, answered
// from the device profile the harness loaded (fe::PlatFormInfos). Names and signatures follow
// CANN's PlatformAscendC documentation.
#pragma once

#include <cstdint>
#include <string>

#include "platform/platform_info.h"

namespace aopt::sim::host {
// The platform of this process: the one the harness loaded, else the default profile
// ("910b4", or $AOPT_PROFILE). Defined in sim/host (aopt_sim_host).
fe::PlatFormInfos* default_platform();
}  // namespace aopt::sim::host

namespace platform_ascendc {

enum class CoreMemType { L0_A = 0, L0_B = 1, L0_C = 2, L1 = 3, L2 = 4, UB = 5, HBM = 6, FB = 7, BT = 8, RESERVED };

enum class SocVersion {
  ASCEND910 = 0,
  ASCEND910B,
  ASCEND310P,
  ASCEND310B,
  ASCEND910_95 = 4,
  ASCEND950 = 4,
  ASCEND910_93,
  ASCEND610,
  ASCEND610LITE,
  ASCEND031,
  ASCEND035,
  BS9SX1A,
  BS9SX2A,
  MC61AM21A,
  KIRINX90,
  RESERVED_VERSION = 99999
};

class PlatformAscendC {
 public:
  PlatformAscendC() : info_(aopt::sim::host::default_platform()) {}
  explicit PlatformAscendC(fe::PlatFormInfos* info)
      : info_(info != nullptr ? info : aopt::sim::host::default_platform()) {}

  // Vector cores on Cube/Vector-separated chips (910B), per the docs.
  uint32_t GetCoreNum() const { return info_->aiv_cores; }
  uint32_t GetCoreNumAic() const { return info_->aic_cores; }
  uint32_t GetCoreNumAiv() const { return info_->aiv_cores; }
  uint32_t GetCoreNumVector() const { return 0; }  // no separate Vector Core on 910B
  void GetCoreMemSize(const CoreMemType& mem_type, uint64_t& size) const {
    switch (mem_type) {
      case CoreMemType::UB: size = info_->ub_bytes; break;
      case CoreMemType::L1: size = info_->l1_bytes; break;
      case CoreMemType::L2: size = info_->l2_bytes; break;
      case CoreMemType::HBM: size = info_->hbm_bytes; break;
      case CoreMemType::L0_A: size = info_->l0a_bytes; break;
      case CoreMemType::L0_B: size = info_->l0b_bytes; break;
      case CoreMemType::L0_C: size = info_->l0c_bytes; break;
      default: size = 0; break;
    }
  }
  // Bandwidth of a memory in bytes per clock cycle; the docs support L2 and HBM only (0 for the
  // others, which they mark reserved).
  void GetCoreMemBw(const CoreMemType& mem_type, uint64_t& bw_size) const {
    switch (mem_type) {
      case CoreMemType::L2: bw_size = info_->l2_bw_bytes_per_cycle; break;
      case CoreMemType::HBM: bw_size = info_->hbm_bw_bytes_per_cycle; break;
      default: bw_size = 0; break;
    }
  }
  SocVersion GetSocVersion() const {
    const std::string& s = info_->soc_version;
    if (s.rfind("Ascend910_93", 0) == 0) return SocVersion::ASCEND910B;  // A3 reports the 910B family
    if (s.rfind("Ascend910B", 0) == 0) return SocVersion::ASCEND910B;
    if (s.rfind("Ascend910_95", 0) == 0 || s.rfind("Ascend950", 0) == 0) return SocVersion::ASCEND950;
    if (s.rfind("Ascend910", 0) == 0) return SocVersion::ASCEND910;
    if (s.rfind("Ascend310P", 0) == 0) return SocVersion::ASCEND310P;
    if (s.rfind("Ascend310B", 0) == 0) return SocVersion::ASCEND310B;
    return SocVersion::RESERVED_VERSION;
  }
  std::string GetSocVersionStr() const { return info_->soc_version; }
  uint32_t GetLibApiWorkSpaceSize() const { return info_->lib_api_workspace_bytes; }
  uint32_t GetResCubeGroupWorkSpaceSize() const { return 0; }
  uint32_t GetResGroupBarrierWorkSpaceSize() const { return 0; }
  // blockDim for a launch that splits work into `slice_num` pieces: AIV- or AIC-only kernels
  // launch one block per slice; mixed kernels count one block per AIC with its AIV group.
  uint32_t CalcTschBlockDim(uint32_t slice_num, uint32_t aic_core_num, uint32_t aiv_core_num) const {
    if (aic_core_num == 0 || aiv_core_num == 0 || aic_core_num > aiv_core_num) return slice_num;
    const uint32_t ratio = aiv_core_num / aic_core_num;
    return ratio == 0 ? slice_num : (slice_num + ratio - 1) / ratio;
  }
  uint32_t CalcTschNumBlocks(uint32_t slice_num, uint32_t aic_core_num, uint32_t aiv_core_num) const {
    return CalcTschBlockDim(slice_num, aic_core_num, aiv_core_num);
  }
  fe::PlatFormInfos* GetPlatFormInfos() const { return info_; }

 private:
  fe::PlatFormInfos* info_;
};

// For host code without a TilingContext (kernel-direct layout).
class PlatformAscendCManager {
 public:
  static PlatformAscendC* GetInstance() {
    static PlatformAscendC instance;
    return &instance;
  }
  static PlatformAscendC* GetInstance(const char* /*custom_soc_version*/) { return GetInstance(); }
};

}  // namespace platform_ascendc
