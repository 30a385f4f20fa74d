// Fixture (tiling motifs): host side with a fixed core count (multicore_split) and
// a fixed small UB budget for the tiles (tile_size).
#include "axpby_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t BUFFER_NUM = 2;
constexpr uint32_t ALIGN_BYTES = 256;
constexpr uint32_t CHUNK_BYTES = 4096;
constexpr uint32_t CORE_CAP = 8;

static ge::graphStatus TilingFunc(gert::TilingContext *ctx) {
  AxpbyCustomTilingData td;
  auto plat = platform_ascendc::PlatformAscendC(ctx->GetPlatformInfo());
  uint64_t ubBytes = 0;
  plat.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubBytes);
  ubBytes = CHUNK_BYTES * BUFFER_NUM * 3; // fixed tiles, not the whole UB
  const uint32_t maxCores = CORE_CAP;
  const uint64_t numel =
      ctx->GetInputShape(0)->GetStorageShape().GetShapeSize();
  const uint32_t elemSize =
      ctx->GetInputDesc(0)->GetDataType() == ge::DT_FLOAT ? 4 : 2;

  const uint32_t blockElems = ALIGN_BYTES / elemSize;
  const uint64_t blocks = (numel + blockElems - 1) / blockElems;
  uint32_t cores =
      blocks < maxCores ? static_cast<uint32_t>(blocks) : maxCores;
  if (cores == 0) {
    cores = 1;
  }
  uint64_t chunk = ubBytes / (BUFFER_NUM * 3 * elemSize);
  chunk = chunk / blockElems * blockElems;
  if (chunk == 0) {
    return ge::GRAPH_FAILED;
  }

  td.set_numel(static_cast<uint32_t>(numel));
  td.set_blockElems(blockElems);
  td.set_perCore(static_cast<uint32_t>(blocks / cores));
  td.set_restBlocks(static_cast<uint32_t>(blocks % cores));
  td.set_chunk(static_cast<uint32_t>(chunk));
  ctx->SetBlockDim(cores);
  ctx->SetTilingKey(1);
  td.SaveToBuffer(ctx->GetRawTilingData()->GetData(),
                  ctx->GetRawTilingData()->GetCapacity());
  ctx->GetRawTilingData()->SetDataSize(td.GetDataSize());
  size_t *workspaces = ctx->GetWorkspaceSizes(1);
  workspaces[0] = 0;
  return ge::GRAPH_SUCCESS;
}
} // namespace optiling

namespace ops {
class AxpbyCustom : public OpDef {
public:
  explicit AxpbyCustom(const char *name) : OpDef(name) {
    this->Input("x")
        .ParamType(REQUIRED)
        .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
        .Format({ge::FORMAT_ND, ge::FORMAT_ND});
    this->Input("y")
        .ParamType(REQUIRED)
        .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
        .Format({ge::FORMAT_ND, ge::FORMAT_ND});
    this->Output("z")
        .ParamType(REQUIRED)
        .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
        .Format({ge::FORMAT_ND, ge::FORMAT_ND});
    this->AICore().SetTiling(optiling::TilingFunc);
    this->AICore().AddConfig("ascend910b");
  }
};

OP_ADD(AxpbyCustom);
} // namespace ops
