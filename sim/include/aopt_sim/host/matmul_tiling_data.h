// The Matmul tiling struct TCubeTiling (CANN: optiling::TCubeTiling on the host, the global
// TCubeTiling of the generated kernel_tiling.h in the kernel; here one struct for both, as
// SoftMaxTiling). An operator embeds it in its tiling data with
// TILING_DATA_FIELD_DEF_STRUCT(TCubeTiling, cubeTilingData); the host fills it with
// matmul_tiling::MatmulApiTiling::GetTiling (aopt_sim/host/matmul_tiling.h) and the kernel's
// Matmul object reads it (REGIST_MATMUL_OBJ / Init). Field names follow the public
// "TCubeTiling结构体" table; every field is an int32 as documented ("int"). The table groups its
// rows by meaning; the struct's order is CANN's tiling layout (stepKa/stepKb after singleBatchN,
// the dbL0* after the L1 cache depths, then the layout infos, BatchNum and mxTypePara last):
// 50 fields, 200 bytes, so an operator's tiling data that embeds it keeps CANN's size (a tiling
// that checks its data size is a multiple of 8 counts on it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "aopt_sim/host/tiling_data_ptr.h"

namespace optiling {

class TCubeTiling {
 public:
#define AOPT_CUBE_FIELD(f)                     \
  std::int32_t f = 0;                          \
  void set_##f(std::int32_t v) {                                          \
    f = v;                                                     \
    ::aopt::sim::host::write_through(&f, sizeof(f));           \
  }      \
  std::int32_t get_##f() const { return f; }
  AOPT_CUBE_FIELD(usedCoreNum)
  AOPT_CUBE_FIELD(M)
  AOPT_CUBE_FIELD(N)
  AOPT_CUBE_FIELD(Ka)
  AOPT_CUBE_FIELD(Kb)
  AOPT_CUBE_FIELD(singleCoreM)
  AOPT_CUBE_FIELD(singleCoreN)
  AOPT_CUBE_FIELD(singleCoreK)
  AOPT_CUBE_FIELD(baseM)
  AOPT_CUBE_FIELD(baseN)
  AOPT_CUBE_FIELD(baseK)
  AOPT_CUBE_FIELD(depthA1)
  AOPT_CUBE_FIELD(depthB1)
  AOPT_CUBE_FIELD(stepM)
  AOPT_CUBE_FIELD(stepN)
  AOPT_CUBE_FIELD(isBias)
  AOPT_CUBE_FIELD(transLength)
  AOPT_CUBE_FIELD(iterateOrder)
  AOPT_CUBE_FIELD(shareMode)
  AOPT_CUBE_FIELD(shareL1Size)
  AOPT_CUBE_FIELD(shareL0CSize)
  AOPT_CUBE_FIELD(shareUbSize)
  AOPT_CUBE_FIELD(batchM)
  AOPT_CUBE_FIELD(batchN)
  AOPT_CUBE_FIELD(singleBatchM)
  AOPT_CUBE_FIELD(singleBatchN)
  AOPT_CUBE_FIELD(stepKa)
  AOPT_CUBE_FIELD(stepKb)
  AOPT_CUBE_FIELD(depthAL1CacheUB)
  AOPT_CUBE_FIELD(depthBL1CacheUB)
  AOPT_CUBE_FIELD(dbL0A)
  AOPT_CUBE_FIELD(dbL0B)
  AOPT_CUBE_FIELD(dbL0C)
  AOPT_CUBE_FIELD(ALayoutInfoB)
  AOPT_CUBE_FIELD(ALayoutInfoS)
  AOPT_CUBE_FIELD(ALayoutInfoN)
  AOPT_CUBE_FIELD(ALayoutInfoG)
  AOPT_CUBE_FIELD(ALayoutInfoD)
  AOPT_CUBE_FIELD(BLayoutInfoB)
  AOPT_CUBE_FIELD(BLayoutInfoS)
  AOPT_CUBE_FIELD(BLayoutInfoN)
  AOPT_CUBE_FIELD(BLayoutInfoG)
  AOPT_CUBE_FIELD(BLayoutInfoD)
  AOPT_CUBE_FIELD(CLayoutInfoB)
  AOPT_CUBE_FIELD(CLayoutInfoS1)
  AOPT_CUBE_FIELD(CLayoutInfoN)
  AOPT_CUBE_FIELD(CLayoutInfoG)
  AOPT_CUBE_FIELD(CLayoutInfoS2)
  AOPT_CUBE_FIELD(BatchNum)
  AOPT_CUBE_FIELD(mxTypePara)
#undef AOPT_CUBE_FIELD
  std::size_t GetDataSize() const { return sizeof(TCubeTiling); }
  void SaveToBuffer(void* buf, std::size_t capacity) const {
    if (buf != nullptr) std::memcpy(buf, this, capacity < sizeof(TCubeTiling) ? capacity : sizeof(TCubeTiling));
  }
  void SetDataPtr(void* buf) {
    if (buf != nullptr) std::memcpy(this, buf, sizeof(TCubeTiling));
    ::aopt::sim::host::bind_data_ptr(this, sizeof(TCubeTiling), buf);
  }
};
static_assert(sizeof(TCubeTiling) == 50 * sizeof(std::int32_t), "TCubeTiling: the 50 int32 fields of CANN's layout");

}  // namespace optiling

// The kernel names the struct unqualified (CANN generates it at global scope) and some kernels
// as AscendC::tiling::TCubeTiling.
using optiling::TCubeTiling;
namespace AscendC::tiling {
using TCubeTiling = optiling::TCubeTiling;
}
