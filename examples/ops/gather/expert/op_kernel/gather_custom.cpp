// GatherCustom kernel (expert): y[m, :] = x[indices[m], :].
// Key 1 (the table fits in UB): the table is loaded once per core with one strided DataCopyPad
// (rows padded to 32 B), each output row is gathered with a UB-to-UB DataCopy on the vector pipe
// (no DMA per row), and each tile of rowsPerTile rows leaves with one DataCopyPad.
// Key 2 (large table): rows are gathered GM -> UB into one tile, which leaves with one copy.
// Both double-buffer the output tiles so gathering tile t+1 overlaps the copy-out of tile t.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t MAX_BLOCK_COUNT = 4095;

template <typename T>
class KernelGather {
public:
    __aicore__ inline KernelGather() {}
    template <typename TilingData>
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR indices, GM_ADDR y, const TilingData& td, bool tableInUb)
    {
        uint32_t idx = GetBlockIdx();
        count_ = td.indicesPerCore + (idx < td.bigCoreNum ? 1 : 0);
        uint32_t first = idx * td.indicesPerCore + (idx < td.bigCoreNum ? idx : td.bigCoreNum);
        tableRows_ = td.tableRows;
        rowLength_ = td.rowLength;
        rowStride_ = td.rowStride;
        rowsPerTile_ = td.rowsPerTile;
        tableInUb_ = tableInUb;
        xGm_.SetGlobalBuffer((__gm__ T*)x, static_cast<uint64_t>(tableRows_) * rowLength_);
        idxGm_.SetGlobalBuffer((__gm__ int32_t*)indices + first, count_);
        yGm_.SetGlobalBuffer((__gm__ T*)y + static_cast<uint64_t>(first) * rowLength_,
                             static_cast<uint64_t>(count_) * rowLength_);
        if (tableInUb_) {
            pipe_.InitBuffer(tableBuf_, tableRows_ * rowStride_ * sizeof(T));
            pipe_.InitBuffer(outQueue_, BUFFER_NUM, rowsPerTile_ * rowStride_ * sizeof(T));
        } else {
            pipe_.InitBuffer(bindQueue_, BUFFER_NUM, rowsPerTile_ * rowStride_ * sizeof(T));
        }
        pipe_.InitBuffer(idxBuf_, (rowsPerTile_ + 7) / 8 * 8 * sizeof(int32_t));
    }

    __aicore__ inline void Process()
    {
        if (count_ == 0) {
            return;
        }
        if (tableInUb_) {
            LoadTable();
        }
        for (uint32_t base = 0; base < count_; base += rowsPerTile_) {
            uint32_t rows = (count_ - base < rowsPerTile_) ? count_ - base : rowsPerTile_;
            LoadIndices(base, rows);
            if (tableInUb_) {
                GatherFromUb(base, rows);
            } else {
                GatherFromGm(base, rows);
            }
        }
    }

private:
    __aicore__ inline uint32_t UbGapBlocks()
    {
        return (rowStride_ - rowLength_) * sizeof(T) / 32;
    }

    __aicore__ inline void LoadTable()
    {
        LocalTensor<T> table = tableBuf_.Get<T>();
        DataCopyPadExtParams<T> pad{false, 0, 0, 0};
        for (uint32_t r = 0; r < tableRows_; r += MAX_BLOCK_COUNT) {
            uint32_t rows = (tableRows_ - r < MAX_BLOCK_COUNT) ? tableRows_ - r : MAX_BLOCK_COUNT;
            DataCopyExtParams params{static_cast<uint16_t>(rows), static_cast<uint32_t>(rowLength_ * sizeof(T)), 0,
                                     UbGapBlocks(), 0};
            DataCopyPad(table[r * rowStride_], xGm_[static_cast<uint64_t>(r) * rowLength_], params, pad);
        }
        event_t mte2ToV = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::MTE2_V));
        SetFlag<HardEvent::MTE2_V>(mte2ToV);
        WaitFlag<HardEvent::MTE2_V>(mte2ToV);
    }

    __aicore__ inline void LoadIndices(uint32_t base, uint32_t rows)
    {
        LocalTensor<int32_t> idxLocal = idxBuf_.Get<int32_t>();
        DataCopyExtParams idxParams{1, static_cast<uint32_t>(rows * sizeof(int32_t)), 0, 0, 0};
        DataCopyPadExtParams<int32_t> idxPad{false, 0, 0, 0};
        DataCopyPad(idxLocal, idxGm_[base], idxParams, idxPad);
        event_t mte2ToS = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::MTE2_S));
        SetFlag<HardEvent::MTE2_S>(mte2ToS);
        WaitFlag<HardEvent::MTE2_S>(mte2ToS);
    }

    __aicore__ inline void GatherFromUb(uint32_t base, uint32_t rows)
    {
        LocalTensor<int32_t> idxLocal = idxBuf_.Get<int32_t>();
        LocalTensor<T> table = tableBuf_.Get<T>();
        LocalTensor<T> outLocal = outQueue_.AllocTensor<T>();
        for (uint32_t r = 0; r < rows; r++) {
            uint32_t row = static_cast<uint32_t>(idxLocal.GetValue(r));
            DataCopy(outLocal[r * rowStride_], table[row * rowStride_], rowStride_);
        }
        outQueue_.EnQue(outLocal);
        outLocal = outQueue_.DeQue<T>();
        CopyOutTile(outLocal, base, rows);
        outQueue_.FreeTensor(outLocal);
    }

    __aicore__ inline void GatherFromGm(uint32_t base, uint32_t rows)
    {
        LocalTensor<int32_t> idxLocal = idxBuf_.Get<int32_t>();
        LocalTensor<T> tile = bindQueue_.AllocTensor<T>();
        DataCopyExtParams rowParams{1, static_cast<uint32_t>(rowLength_ * sizeof(T)), 0, 0, 0};
        DataCopyPadExtParams<T> pad{false, 0, 0, 0};
        for (uint32_t r = 0; r < rows; r++) {
            int32_t row = idxLocal.GetValue(r);
            DataCopyPad(tile[r * rowStride_], xGm_[static_cast<uint64_t>(row) * rowLength_], rowParams, pad);
        }
        bindQueue_.EnQue(tile);
        tile = bindQueue_.DeQue<T>();
        CopyOutTile(tile, base, rows);
        bindQueue_.FreeTensor(tile);
    }

    __aicore__ inline void CopyOutTile(const LocalTensor<T>& tile, uint32_t base, uint32_t rows)
    {
        DataCopyExtParams params{static_cast<uint16_t>(rows), static_cast<uint32_t>(rowLength_ * sizeof(T)),
                                 UbGapBlocks(), 0, 0};
        DataCopyPad(yGm_[static_cast<uint64_t>(base) * rowLength_], tile, params);
    }

    TPipe pipe_;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueue_;
    TQueBind<QuePosition::VECIN, QuePosition::VECOUT, BUFFER_NUM> bindQueue_;
    TBuf<QuePosition::VECCALC> tableBuf_;
    TBuf<QuePosition::VECCALC> idxBuf_;
    GlobalTensor<T> xGm_;
    GlobalTensor<int32_t> idxGm_;
    GlobalTensor<T> yGm_;
    uint32_t count_ = 0;
    uint32_t tableRows_ = 0;
    uint32_t rowLength_ = 0;
    uint32_t rowStride_ = 0;
    uint32_t rowsPerTile_ = 0;
    bool tableInUb_ = false;
};

extern "C" __global__ __aicore__ void gather_custom(GM_ADDR x, GM_ADDR indices, GM_ADDR y, GM_ADDR workspace,
                                                    GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    if (TILING_KEY_IS(1)) {
        KernelGather<DTYPE_X> op;
        op.Init(x, indices, y, tilingData, true);
        op.Process();
    } else if (TILING_KEY_IS(2)) {
        KernelGather<DTYPE_X> op;
        op.Init(x, indices, y, tilingData, false);
        op.Process();
    }
}
