// Fixture GroupRowsScale (tree_b): one core, row by row: x's row and its group's scale row through
// UB (DataCopyPad), multiplied, written back. The group of row r: the first g whose cumulative end
// group_index[g] exceeds r (the last group when none does).
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void group_rows_scale(GM_ADDR x, GM_ADDR scale, GM_ADDR group_index, GM_ADDR y,
                                                       GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(td, tiling);
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::VECIN, 1> xQ;
    AscendC::TQue<AscendC::TPosition::VECIN, 1> sQ;
    AscendC::TQue<AscendC::TPosition::VECOUT, 1> outQ;
    const uint32_t rowBytes = td.cols * sizeof(float);
    const uint32_t padded = (rowBytes + 31) / 32 * 32;
    pipe.InitBuffer(xQ, 1, padded);
    pipe.InitBuffer(sQ, 1, padded);
    pipe.InitBuffer(outQ, 1, padded);
    AscendC::GlobalTensor<float> xGm;
    AscendC::GlobalTensor<float> sGm;
    AscendC::GlobalTensor<int32_t> gGm;
    AscendC::GlobalTensor<float> yGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, td.rows * td.cols);
    sGm.SetGlobalBuffer((__gm__ float*)scale, td.groups * td.cols);
    gGm.SetGlobalBuffer((__gm__ int32_t*)group_index, td.groups);
    yGm.SetGlobalBuffer((__gm__ float*)y, td.rows * td.cols);
    AscendC::DataCopyExtParams params{1, rowBytes, 0, 0, 0};
    uint32_t g = 0;
    for (uint32_t r = 0; r < td.rows; ++r) {
        while (g + 1 < td.groups && static_cast<int64_t>(gGm.GetValue(g)) <= static_cast<int64_t>(r)) ++g;
        AscendC::LocalTensor<float> xs = xQ.AllocTensor<float>();
        AscendC::LocalTensor<float> ss = sQ.AllocTensor<float>();
        AscendC::DataCopyPad(xs, xGm[r * td.cols], params, AscendC::DataCopyPadExtParams<float>{false, 0, 0, 0});
        AscendC::DataCopyPad(ss, sGm[g * td.cols], params, AscendC::DataCopyPadExtParams<float>{false, 0, 0, 0});
        xQ.EnQue(xs);
        sQ.EnQue(ss);
        xs = xQ.DeQue<float>();
        ss = sQ.DeQue<float>();
        AscendC::LocalTensor<float> out = outQ.AllocTensor<float>();
        AscendC::Mul(out, xs, ss, td.cols);
        outQ.EnQue(out);
        xQ.FreeTensor(xs);
        sQ.FreeTensor(ss);
        out = outQ.DeQue<float>();
        AscendC::DataCopyPad(yGm[r * td.cols], out, params);
        outQ.FreeTensor(out);
    }
}
