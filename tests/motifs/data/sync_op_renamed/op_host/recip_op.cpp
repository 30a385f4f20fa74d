// Fixture (renamed sync_op, host): the core count is a ternary min and its first use is a setter.
#include "recip_op_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus RecipTiling(gert::TilingContext *ctx) {
  RecipOpTilingData td;
  auto plat = platform_ascendc::PlatformAscendC(ctx->GetPlatformInfo());
  uint64_t ub = 0;
  plat.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);
  uint32_t aivCores = plat.GetCoreNumAiv();
  uint64_t n = ctx->GetInputShape(0)->GetStorageShape().GetShapeSize();
  uint64_t blocks = (n + 63) / 64;
  uint32_t launch = (blocks < aivCores) ? static_cast<uint32_t>(blocks) : aivCores;
  if (launch == 0)
    launch = 1;
  td.set_n(static_cast<uint32_t>(n));
  td.set_perCore(static_cast<uint32_t>(blocks / launch));
  td.set_extra(static_cast<uint32_t>(blocks % launch));
  td.set_tile(static_cast<uint32_t>(ub / 16 / 64 * 64));
  ctx->SetBlockDim(launch);
  ctx->SetTilingKey(1);
  td.SaveToBuffer(ctx->GetRawTilingData()->GetData(), ctx->GetRawTilingData()->GetCapacity());
  ctx->GetRawTilingData()->SetDataSize(td.GetDataSize());
  size_t *ws = ctx->GetWorkspaceSizes(1);
  ws[0] = 0;
  return ge::GRAPH_SUCCESS;
}
} // namespace optiling

namespace ops {
class RecipOp : public OpDef {
public:
  explicit RecipOp(const char *name) : OpDef(name) {
    this->Input("a").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
    this->Output("b").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
    this->AICore().SetTiling(optiling::RecipTiling);
    this->AICore().AddConfig("ascend910b");
  }
};
OP_ADD(RecipOp);
} // namespace ops
