// Host side of fixture sort32_topk: the shared host (tests/corpus/tree/common), plus the idiom of
// host sources that include the CANN-internal runtime2_util.h for a TilingParse function that
// fetches its compile info with GetCompileInfoPtr and checks it with OP_TILING_CHECK.
#include "sort32_topk_tiling.h"
#include "fixture_host.h"
#include "runtime2_util.h"

namespace optiling {
struct Sort32TopkCompileInfo {
    int64_t coreNum = 0;
};
static ge::graphStatus Sort32TopkParse(gert::TilingParseContext *context)
{
    auto compileInfo = GetCompileInfoPtr<Sort32TopkCompileInfo>(context);
    OPS_CHECK_NULL_WITH_CONTEXT(context, compileInfo);
    compileInfo->coreNum = 1;
    OP_TILING_CHECK((compileInfo->coreNum <= 0), VECTOR_INNER_ERR_REPORT_TILIING(context->GetNodeName(), "no core"),
                    return ge::GRAPH_FAILED);
    return ge::GRAPH_SUCCESS;
}
IMPL_OP(Sort32Topk).TilingParse<Sort32TopkCompileInfo>(Sort32TopkParse);
}  // namespace optiling
