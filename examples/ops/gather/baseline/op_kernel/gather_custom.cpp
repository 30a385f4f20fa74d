// GatherCustom kernel (baseline): y[m, :] = x[indices[m], :]. Each core reads its indices a tile
// at a time into UB and, per index, copies the row GM -> UB -> GM through a bound VECIN/VECOUT
// queue (double-buffered), as index operators are commonly written.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

template <typename T>
class KernelGather {
public:
    __aicore__ inline KernelGather() {}
    template <typename TilingData>
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR indices, GM_ADDR y, const TilingData& td)
    {
        uint32_t idx = GetBlockIdx();
        count_ = td.indicesPerCore + (idx < td.bigCoreNum ? 1 : 0);
        uint32_t first = idx * td.indicesPerCore + (idx < td.bigCoreNum ? idx : td.bigCoreNum);
        tableRows_ = td.tableRows;
        rowLength_ = td.rowLength;
        rowStride_ = td.rowStride;
        rowsPerTile_ = td.rowsPerTile;
        xGm_.SetGlobalBuffer((__gm__ T*)x, static_cast<uint64_t>(tableRows_) * rowLength_);
        idxGm_.SetGlobalBuffer((__gm__ int32_t*)indices + first, count_);
        yGm_.SetGlobalBuffer((__gm__ T*)y + static_cast<uint64_t>(first) * rowLength_,
                             static_cast<uint64_t>(count_) * rowLength_);
        pipe_.InitBuffer(rowQueue_, BUFFER_NUM, rowStride_ * sizeof(T));
        pipe_.InitBuffer(idxBuf_, (rowsPerTile_ + 7) / 8 * 8 * sizeof(int32_t));
    }

    __aicore__ inline void Process()
    {
        LocalTensor<int32_t> idxLocal = idxBuf_.Get<int32_t>();
        DataCopyExtParams rowParams{1, static_cast<uint32_t>(rowLength_ * sizeof(T)), 0, 0, 0};
        DataCopyPadExtParams<T> pad{false, 0, 0, 0};
        for (uint32_t base = 0; base < count_; base += rowsPerTile_) {
            uint32_t rows = (count_ - base < rowsPerTile_) ? count_ - base : rowsPerTile_;
            DataCopyExtParams idxParams{1, static_cast<uint32_t>(rows * sizeof(int32_t)), 0, 0, 0};
            DataCopyPadExtParams<int32_t> idxPad{false, 0, 0, 0};
            DataCopyPad(idxLocal, idxGm_[base], idxParams, idxPad);
            event_t mte2ToS = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::MTE2_S));
            SetFlag<HardEvent::MTE2_S>(mte2ToS);
            WaitFlag<HardEvent::MTE2_S>(mte2ToS);
            for (uint32_t r = 0; r < rows; r++) {
                int32_t row = idxLocal.GetValue(r);
                LocalTensor<T> rowLocal = rowQueue_.AllocTensor<T>();
                DataCopyPad(rowLocal, xGm_[static_cast<uint64_t>(row) * rowLength_], rowParams, pad);
                rowQueue_.EnQue(rowLocal);
                rowLocal = rowQueue_.DeQue<T>();
                DataCopyPad(yGm_[static_cast<uint64_t>(base + r) * rowLength_], rowLocal, rowParams);
                rowQueue_.FreeTensor(rowLocal);
            }
        }
    }

private:
    TPipe pipe_;
    TQueBind<QuePosition::VECIN, QuePosition::VECOUT, BUFFER_NUM> rowQueue_;
    TBuf<QuePosition::VECCALC> idxBuf_;
    GlobalTensor<T> xGm_;
    GlobalTensor<int32_t> idxGm_;
    GlobalTensor<T> yGm_;
    uint32_t count_ = 0;
    uint32_t tableRows_ = 0;
    uint32_t rowLength_ = 0;
    uint32_t rowStride_ = 0;
    uint32_t rowsPerTile_ = 0;
};

extern "C" __global__ __aicore__ void gather_custom(GM_ADDR x, GM_ADDR indices, GM_ADDR y, GM_ADDR workspace,
                                                    GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    if (TILING_KEY_IS(1)) {
        KernelGather<DTYPE_X> op;
        op.Init(x, indices, y, tilingData);
        op.Process();
    }
}
