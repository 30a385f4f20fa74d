// Registration of MatmulAoeCustom's bank key and tuning tiling, in a source of its own as cann-ops
// registers each cube operator's (aoe/op_tuning_tiling/*_tuning_tiling.cc); MatmulAoeAlias shares
// the key's parse/load functions, looked up while statics initialise (conv2d_dx_tuning_tiling.cc).
#include "aoe/matmul_aoe_tuning_tiling.h"

namespace tuningtiling {
static bool MatmulAoeBankKey(const gert::TilingContext* context, std::shared_ptr<void>& inputArgs, size_t& size)
{
    if (context == nullptr) {
        return false;
    }
    auto args = std::make_shared<MatmulAoeInputArgs>();
    const gert::Shape& aShape = context->GetInputShape(0)->GetStorageShape();
    const gert::Shape& bShape = context->GetInputShape(1)->GetStorageShape();
    args->m = aShape.GetDim(0);
    args->k = aShape.GetDim(1);
    args->n = bShape.GetDim(1);
    args->a_dtype = context->GetInputDesc(0)->GetDataType();
    args->b_dtype = context->GetInputDesc(1)->GetDataType();
    args->trans_a_flag = false;
    args->trans_b_flag = false;
    args->reserved_params1 = 0;
    inputArgs = args;
    size = sizeof(MatmulAoeInputArgs);
    return true;
}

DECLARE_STRUCT_RELATE_WITH_OP_V2(MatmulAoeCustom, MatmulAoeInputArgs, m, k, n, a_dtype, b_dtype, trans_a_flag,
                                 trans_b_flag, reserved_params1);
REGISTER_OP_BANK_KEY_CONVERT_FUN_V2(MatmulAoeCustom, MatmulAoeBankKey);
REGISTER_TUNING_TILING_CLASS(MatmulAoeCustom, MatmulAoeTunnerTiling);

static auto& g_funcs = OpBankKeyFuncRegistryV2::RegisteredOpFuncInfoV2();
static auto g_iter = g_funcs.find(ge::AscendString("MatmulAoeCustom"));
static const auto& g_parse = g_iter->second.GetBankKeyParseFuncV2();
static const auto& g_load = g_iter->second.GetBankKeyLoadFuncV2();
REGISTER_OP_BANK_KEY_PARSE_FUN_V2(MatmulAoeAlias, g_parse, g_load);
REGISTER_TUNING_TILING_CLASS(MatmulAoeAlias, MatmulAoeTunnerTiling);
}  // namespace tuningtiling
