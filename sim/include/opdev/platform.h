// Emulated CANN opdev/platform.h (the aclnn op_api layer's platform query): op::SocVersion and
// op::GetCurrentPlatformInfo(), answered from the device profile this process loaded (the same
// fe::PlatFormInfos PlatformAscendC reads). Enumerator names as CANN's; their values are not
// relied on (code compares names).
#pragma once

#include <cstdint>
#include <string>

#include "tiling/platform/platform_ascendc.h"

namespace op {

enum class SocVersion {
  ASCEND910 = 0,
  ASCEND910B,
  ASCEND910_93,
  ASCEND910_95,
  ASCEND910E,
  ASCEND310,
  ASCEND310P,
  ASCEND310B,
  ASCEND310C,
  ASCEND610LITE,
  RESERVED_VERSION = 99999
};

class PlatformInfo {
 public:
  SocVersion GetSocVersion() const {
    const std::string& s = info()->soc_version;
    if (s.rfind("Ascend910_93", 0) == 0) return SocVersion::ASCEND910_93;
    if (s.rfind("Ascend910_95", 0) == 0) return SocVersion::ASCEND910_95;
    if (s.rfind("Ascend910B", 0) == 0) return SocVersion::ASCEND910B;
    if (s.rfind("Ascend910", 0) == 0) return SocVersion::ASCEND910;
    if (s.rfind("Ascend310P", 0) == 0) return SocVersion::ASCEND310P;
    if (s.rfind("Ascend310B", 0) == 0) return SocVersion::ASCEND310B;
    return SocVersion::RESERVED_VERSION;
  }
  std::string GetSocLongVersion() const { return info()->soc_version; }
  int64_t GetCubeCoreNum() const { return info()->aic_cores; }
  int64_t GetVectorCoreNum() const { return info()->aiv_cores; }

 private:
  static fe::PlatFormInfos* info() { return aopt::sim::host::default_platform(); }
};

inline const PlatformInfo& GetCurrentPlatformInfo() {
  static const PlatformInfo current;
  return current;
}

}  // namespace op
