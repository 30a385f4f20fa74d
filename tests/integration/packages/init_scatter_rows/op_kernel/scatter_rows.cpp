// Fixture ScatterRows (tests/integration): each update row copied through UB (in queue, Adds 0, out queue) into the row of the
// input var its index names (an index out of range is skipped); the output buffer is not written.
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void scatter_rows(GM_ADDR var, GM_ADDR indices, GM_ADDR updates, GM_ADDR out, GM_ADDR workspace,
                                                   GM_ADDR tiling)
{
    GET_TILING_DATA(td, tiling);
    AscendC::GlobalTensor<float> varGm;
    AscendC::GlobalTensor<int32_t> indexGm;
    AscendC::GlobalTensor<float> updateGm;
    varGm.SetGlobalBuffer((__gm__ float *)var, static_cast<uint64_t>(td.varRows) * td.rowLength);
    indexGm.SetGlobalBuffer((__gm__ int32_t *)indices, td.updateRows);
    updateGm.SetGlobalBuffer((__gm__ float *)updates, static_cast<uint64_t>(td.updateRows) * td.rowLength);
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::VECIN, 1> inQueue;
    AscendC::TQue<AscendC::TPosition::VECOUT, 1> outQueue;
    pipe.InitBuffer(inQueue, 1, td.rowLength * sizeof(float));
    pipe.InitBuffer(outQueue, 1, td.rowLength * sizeof(float));
    for (uint32_t k = 0; k < td.updateRows; ++k) {
        const int32_t target = indexGm.GetValue(k);
        if (target < 0 || static_cast<uint32_t>(target) >= td.varRows) continue;
        AscendC::LocalTensor<float> in = inQueue.AllocTensor<float>();
        AscendC::DataCopy(in, updateGm[static_cast<uint64_t>(k) * td.rowLength], td.rowLength);
        inQueue.EnQue(in);
        in = inQueue.DeQue<float>();
        AscendC::LocalTensor<float> row = outQueue.AllocTensor<float>();
        AscendC::Adds(row, in, 0.0f, td.rowLength);
        inQueue.FreeTensor(in);
        outQueue.EnQue(row);
        row = outQueue.DeQue<float>();
        AscendC::DataCopy(varGm[static_cast<uint64_t>(target) * td.rowLength], row, td.rowLength);
        outQueue.FreeTensor(row);
    }
}
