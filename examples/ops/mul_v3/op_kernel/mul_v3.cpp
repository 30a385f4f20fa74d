/**
 * @file mul_v3.cpp
 * Kernel entry of MulV3, templated on the tiling key's schMode.
 */
#include "mul_v3.h"

template <uint32_t schMode>
__global__ __aicore__ void mul_v3(GM_ADDR x1, GM_ADDR x2, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    REGISTER_TILING_DEFAULT(MulV3TilingData);
    GET_TILING_DATA_WITH_STRUCT(MulV3TilingData, tilingData, tiling);
    AscendC::TPipe pipe;
    if constexpr (schMode == MUL_V3_TPL_SCH_MODE_STREAM) {
        NsMulV3::MulV3<DTYPE_X1, 2> op;
        op.Init(x1, x2, y, &tilingData, &pipe);
        op.Process();
    } else {
        NsMulV3::MulV3<DTYPE_X1, 1> op;
        op.Init(x1, x2, y, &tilingData, &pipe);
        op.Process();
    }
}
