// MatmulAoeCustom host side: c = a x b with the Matmul API's multi-core tiling, passed through the
// AOE tuning-tiling registry the way cann-ops' cube tilings use it (mat_mul_v3_base_tiling.cpp):
// the operator's bank key is made from the context by the registered convert function and printed
// as JSON (a debug line), the tiling's choices are put into the tuning-tiling class the factory
// creates for the operator type, written to JSON and read back into a second instance, and that
// instance's base block is the one the tiling uses (as a tiling found in a bank would be).
// Every step that fails fails the tiling.
#include <string>

#include "aoe/matmul_aoe_tuning_tiling.h"
#include "matmul_aoe_custom_tiling.h"
#include "op_log.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include "tiling/tiling_api.h"

namespace optiling {
static bool BankKeyText(const gert::TilingContext* context, std::string& text)
{
    auto& funcs = tuningtiling::OpBankKeyFuncRegistryV2::RegisteredOpFuncInfoV2();
    const auto it = funcs.find(ge::AscendString("MatmulAoeCustom"));
    if (it == funcs.end() || !it->second.GetBankKeyConvertFuncV2() || !it->second.GetBankKeyParseFuncV2()) {
        return false;
    }
    std::shared_ptr<void> key;
    size_t size = 0;
    if (!it->second.GetBankKeyConvertFuncV2()(context, key, size)) {
        return false;
    }
    ge::AscendString json;
    if (!it->second.GetBankKeyParseFuncV2()(key, size, json)) {
        return false;
    }
    text.assign(json.GetString(), json.GetLength());
    return true;
}

static bool TuningRoundTrip(const TCubeTiling& chosen, tuningtiling::TuningTilingDefPtr& out)
{
    auto first = tuningtiling::TuningTilingClassFactory::CreateTilingDataInstance("MatmulAoeCustom");
    auto second = tuningtiling::TuningTilingClassFactory::CreateTilingDataInstance("MatmulAoeAlias");
    auto typed = std::dynamic_pointer_cast<tuningtiling::MatmulAoeTunnerTiling>(first);
    if (typed == nullptr || second == nullptr) {
        return false;
    }
    typed->usedCoreNum = static_cast<uint32_t>(chosen.usedCoreNum);
    typed->baseM = static_cast<uint32_t>(chosen.baseM);
    typed->baseN = static_cast<uint32_t>(chosen.baseN);
    typed->baseK = static_cast<uint32_t>(chosen.baseK);
    typed->tilingEnable = 1;
    nlohmann::json j;
    first->ToJson(j);
    second->FromJson(j);
    out = second;
    return true;
}

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    auto ascendcPlatform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    const gert::Shape& aShape = context->GetInputShape(0)->GetStorageShape();
    const gert::Shape& bShape = context->GetInputShape(1)->GetStorageShape();
    if (aShape.GetDimNum() != 2 || bShape.GetDimNum() != 2 || aShape.GetDim(1) != bShape.GetDim(0)) {
        return ge::GRAPH_FAILED;
    }
    std::string key;
    if (!BankKeyText(context, key)) {
        return ge::GRAPH_FAILED;
    }
    OP_LOGD("MatmulAoeCustom", "bank key %s", key.c_str());
    const int32_t M = static_cast<int32_t>(aShape.GetDim(0));
    const int32_t K = static_cast<int32_t>(aShape.GetDim(1));
    const int32_t N = static_cast<int32_t>(bShape.GetDim(1));

    matmul_tiling::MultiCoreMatmulTiling cubeTiling(ascendcPlatform);
    cubeTiling.SetDim(ascendcPlatform.GetCoreNumAic());
    cubeTiling.SetAType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16);
    cubeTiling.SetBType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16);
    cubeTiling.SetCType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
    cubeTiling.SetShape(M, N, K);
    cubeTiling.SetOrgShape(M, N, K);
    cubeTiling.SetBias(false);
    cubeTiling.SetBufferSpace(-1, -1, -1);

    MatmulAoeCustomTilingData tiling;
    if (cubeTiling.GetTiling(tiling.cubeTilingData) == -1) {
        return ge::GRAPH_FAILED;
    }
    tuningtiling::TuningTilingDefPtr tuned;
    if (!TuningRoundTrip(tiling.cubeTilingData, tuned)) {
        return ge::GRAPH_FAILED;
    }
    auto aoe = std::dynamic_pointer_cast<tuningtiling::MatmulAoeTunnerTiling>(tuned);
    if (aoe == nullptr || aoe->tilingEnable != 1 || aoe->baseM == 0) {
        return ge::GRAPH_FAILED;
    }
    cubeTiling.SetFixSplit(static_cast<int32_t>(aoe->baseM), static_cast<int32_t>(aoe->baseN),
                           static_cast<int32_t>(aoe->baseK));
    if (cubeTiling.GetTiling(tiling.cubeTilingData) == -1) {
        return ge::GRAPH_FAILED;
    }
    context->SetBlockDim(tiling.cubeTilingData.usedCoreNum);
    context->SetTilingKey(1);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* workspaces = context->GetWorkspaceSizes(1);
    workspaces[0] = static_cast<size_t>(ascendcPlatform.GetLibApiWorkSpaceSize());
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ge {
static ge::graphStatus InferShape(gert::InferShapeContext* context)
{
    const gert::Shape* aShape = context->GetInputShape(0);
    const gert::Shape* bShape = context->GetInputShape(1);
    gert::Shape* cShape = context->GetOutputShape(0);
    if (aShape == nullptr || bShape == nullptr || cShape == nullptr || aShape->GetDimNum() != 2 ||
        bShape->GetDimNum() != 2) {
        return GRAPH_FAILED;
    }
    cShape->SetDimNum(2);
    cShape->SetDim(0, aShape->GetDim(0));
    cShape->SetDim(1, bShape->GetDim(1));
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class MatmulAoeCustom : public OpDef {
public:
    explicit MatmulAoeCustom(const char* name) : OpDef(name)
    {
        this->Input("a").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Input("b").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Output("c").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};

OP_ADD(MatmulAoeCustom);
}  // namespace ops
