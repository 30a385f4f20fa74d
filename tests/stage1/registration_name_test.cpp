// Which function is the tiling function: the one OpDef registers with AICore().SetTiling(f) or
// IMPL_OP_OPTILING(Op).Tiling(f). An operator's own free helper that happens to be named SetTiling
// (`SetTiling(params, tiling)`, filling the tiling struct) names nothing: before, its last argument
// ("tiling") was taken for the tiling function and Stage I found no definition, so an operator
// written this way got no tiling tunables at all.
#include <gtest/gtest.h>

#include <string>

#include "aopt/stage1/tiling_template.h"

namespace aopt::stage1 {
namespace {

// Our own fixture of the idiom (not any operator's code).
const char* kHelperNamedSetTiling = R"(#include "pool_tiling.h"
namespace optiling {
constexpr uint32_t RESERVED = 4096;
struct Params {
    uint32_t total = 0;
    uint32_t cores = 0;
    uint32_t tile = 0;
};

static void SetTiling(const Params& params, PoolTilingData& tiling)
{
    tiling.set_total(params.total);
    tiling.set_tile(params.tile);
}

static ge::graphStatus Tiling4Pool(gert::TilingContext* context)
{
    Params params;
    params.total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    auto plat = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    params.cores = plat.GetCoreNumAiv();
    uint64_t ub = 0;
    plat.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);
    params.tile = (ub - RESERVED) / 8 / 32 * 32;
    PoolTilingData tiling;
    SetTiling(params, tiling);
    context->SetBlockDim(params.cores);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    return ge::GRAPH_SUCCESS;
}

IMPL_OP_OPTILING(Pool)
    .Tiling(Tiling4Pool);
}  // namespace optiling
)";

TEST(Stage1RegistrationName, AHelperNamedSetTilingIsNotTheRegistration) {
  synthesis_input in;
  in.host_files.push_back({"op_host/pool_tiling.cpp", kHelperNamedSetTiling});
  const auto r = synthesize(in);
  ASSERT_TRUE(r.tmpl) << (r.error ? r.error->reason : "");
  bool block_dim = false, reserved = false;
  for (const auto& tu : r.tmpl->tunables) {
    block_dim |= tu.kind == tunable_kind::block_dim;
    reserved |= tu.name == "RESERVED";
  }
  EXPECT_TRUE(block_dim);
  EXPECT_TRUE(reserved);
  const std::string host(kHelperNamedSetTiling);
  EXPECT_LE(r.tmpl->function_begin, host.find("static ge::graphStatus Tiling4Pool"));
}

// When no registered name has a definition, the error names what was looked for.
TEST(Stage1RegistrationName, TheErrorNamesEveryRegisteredFunctionLookedFor) {
  synthesis_input in;
  in.host_files.push_back({"op_host/def.cpp", "namespace ops { class P : public OpDef { public: explicit P(const char* n) : "
                                              "OpDef(n) { this->AICore().SetTiling(optiling::TilingP); } }; }\n"});
  const auto r = synthesize(in);
  ASSERT_FALSE(r.tmpl);
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error->reason.find("'TilingP'"), std::string::npos) << r.error->reason;
}

// A constant used only as a subscript names an element (`sizes[DIM1]`), like a getter's index
// argument: no tunable (changing it reads another attribute element: a wasted evaluation).
TEST(Stage1RegistrationName, AConstantUsedAsASubscriptIsNoTunable) {
  const std::string host = std::string(R"(namespace optiling {
constexpr size_t DIM1 = 1;
constexpr uint32_t RESERVED = 4096;
static ge::graphStatus TilingSub(gert::TilingContext* context)
{
    const auto* sizes = context->GetAttrs()->GetListInt(0);
    const int64_t* v = sizes->GetData();
    uint32_t rows = static_cast<uint32_t>(v[DIM1]);
    auto plat = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t ub = 0;
    plat.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);
    SubTilingData tiling;
    tiling.set_rows(rows);
    tiling.set_tile((ub - RESERVED) / 4);
    context->SetBlockDim(plat.GetCoreNumAiv());
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    return ge::GRAPH_SUCCESS;
}
IMPL_OP_OPTILING(Sub).Tiling(TilingSub);
}
)");
  synthesis_input in;
  in.host_files.push_back({"op_host/sub_tiling.cpp", host});
  const auto r = synthesize(in);
  ASSERT_TRUE(r.tmpl) << (r.error ? r.error->reason : "");
  std::string names;
  for (const auto& tu : r.tmpl->tunables) names += tu.name + " ";
  EXPECT_EQ(names.find("DIM1"), std::string::npos) << names;
  EXPECT_NE(names.find("RESERVED"), std::string::npos) << names;
}

}  // namespace
}  // namespace aopt::stage1
