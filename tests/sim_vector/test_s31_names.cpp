// Names weight_quant_batch_matmul_v2's kernel asks for (issue 38, session 31): ShapeInfo and
// DataFormat (基础API/辅助数据结构/ShapeInfo.md), AscendC::int4b_t, ONE_FOURTH_DEFAULT_REPEAT_STRIDE,
// the Matmul configurations at global scope, InitDump, and vconv_s42f16 refusing clearly.
#include <cstdint>
#include <type_traits>

#include "vec_test_util.h"

#include "lib/matmul_intf.h"
#include "lib/matrix/matmul/tiling.h"  // the kernel-side Matmul tiling header name (flash attention)

static_assert(std::is_same_v<AscendC::int4b_t, ::int4b_t>, "AscendC::int4b_t names the global type");
static_assert(AscendC::ONE_FOURTH_DEFAULT_REPEAT_STRIDE * 4 == AscendC::DEFAULT_REPEAT_STRIDE);
// The library's barrier flag a kernel names without defining it (quant_batch_matmul_v3), the value of
// the public cross_core_set_wait_flag example.
static_assert(AscendC::SYNC_AIC_FLAG == 11);

// A kernel's own namespace without a using-directive names the configurations unqualified.
namespace some_kernel {
constexpr const AscendC::MatmulConfig& mdl = CFG_MDL;
static_assert(mdl.doMultiDataLoad && CFG_NORM.doNorm, "CFG_MDL / CFG_NORM at global scope");
}  // namespace some_kernel

// A kernel may define its own AscendC::CFG_MDL (matmul_all_reduce), which shadows the global one there.
namespace AscendC {
constexpr MatmulConfig CFG_MDL = GetMDLConfig(false, false, 2);
static_assert(CFG_MDL.doMTE2Preload == 2);
}  // namespace AscendC

namespace {

TEST(S31Names, ShapeInfoKeepsItsDimensionsAndGetShapeSizeMultipliesThem) {
  const std::uint32_t shape[] = {2, 3, 4};
  const std::uint32_t orig[] = {6, 4};
  const AscendC::ShapeInfo a(3, shape, 2, orig, AscendC::DataFormat::NZ);
  EXPECT_EQ(a.shapeDim, 3);
  EXPECT_EQ(a.originalShapeDim, 2);
  EXPECT_EQ(a.originalShape[0], 6u);
  EXPECT_EQ(a.dataFormat, AscendC::DataFormat::NZ);
  EXPECT_EQ(AscendC::GetShapeSize(a), 24);
  const AscendC::ShapeInfo b(2, orig);
  EXPECT_EQ(b.dataFormat, AscendC::DataFormat::ND);
  EXPECT_EQ(AscendC::GetShapeSize(b), 24);
  AscendC::InitDump(false, nullptr, 0u);  // accepted, nothing to set up
}

TEST(S31Names, Int4ToHalfRefusesNamingItself) {
  auto r = vt::run([] {
    auto h = vt::ub<half>(0, 128);
    auto w = vt::ub<std::int8_t>(1024, 64);
    vconv_s42f16((__ubuf__ half*)h.GetPhyAddr(), (__ubuf__ int4b_t*)w.GetPhyAddr(), 1, 1, 1, 8, 2);
  });
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->kind, aopt::sim::hw_error_kind::invalid_use);
  EXPECT_NE(r.error->message.find("vconv_s42f16"), std::string::npos) << r.error->message;
}

}  // namespace
