// TPipe, TQue/TQueBind and TBuf: UB allocation and the queue protocol. Queue operations are
// flags in disguise (MODEL.md section 1): each buffer slot owns one internal event id (64 and
// up) and AllocTensor/EnQue/DeQue/FreeTensor record the matching wait/set flag records.
#pragma once

#include <algorithm>
#include <exception>
#include <cstdint>
#include <string>
#include <vector>

#include "aopt_sim/kernel/core.h"
#include "aopt_sim/kernel/sync.h"
#include "aopt_sim/kernel/tensor.h"

namespace AscendC {
class TPipe;
}

namespace aopt::sim::kernel_detail {

using AscendC::TPosition;

constexpr TPosition que_src(TPosition p) {
  return p == TPosition::VECIN ? TPosition::GM : p;
}
constexpr TPosition que_dst(TPosition p) {
  return p == TPosition::VECOUT ? TPosition::GM : p;
}
// Pipe that fills a queue buffer whose data comes from `src`. The Cube's positions [OFFICIAL,
// the programming guide's matrix-programming queues]: A1/B1/C1 (L1) are filled by MTE2 and
// drained by MTE1; A2/B2/C2 (L0A/L0B/BT) are filled by MTE1 and read by M; CO1 (L0C) is
// written by M and drained by FIX; CO2 is filled by FIX. TSCM is L1 too ("L1 Buffer同时映射到A1、
// B1、C1和TSCM": 基础API/数据搬运导览/概览/数据通路.md), filled and drained as A1/B1/C1.
constexpr aopt::sim::pipe producer_pipe(TPosition src) {
  switch (src) {
    case TPosition::GM: case TPosition::VECIN: case TPosition::A1: case TPosition::B1: case TPosition::C1:
    case TPosition::TSCM:
      return aopt::sim::pipe::mte2;
    case TPosition::A2: case TPosition::B2: case TPosition::C2: return aopt::sim::pipe::mte1;
    case TPosition::CO1: return aopt::sim::pipe::m;
    case TPosition::CO2: return aopt::sim::pipe::fix;
    default: return aopt::sim::pipe::v;
  }
}
// Pipe that drains a queue buffer whose data goes to `dst`.
constexpr aopt::sim::pipe consumer_pipe(TPosition dst) {
  switch (dst) {
    case TPosition::GM: case TPosition::VECOUT: case TPosition::CO2: return aopt::sim::pipe::mte3;
    case TPosition::A1: case TPosition::B1: case TPosition::C1: case TPosition::TSCM: return aopt::sim::pipe::mte1;
    case TPosition::A2: case TPosition::B2: case TPosition::C2: return aopt::sim::pipe::m;
    case TPosition::CO1: return aopt::sim::pipe::fix;
    default: return aopt::sim::pipe::v;
  }
}
// The buffer a position's queues and TBufs allocate from (UB for the vector positions and CO2).
constexpr aopt::sim::local_mem position_mem(TPosition p) {
  switch (p) {
    case TPosition::A1: case TPosition::B1: case TPosition::C1: case TPosition::TSCM: return aopt::sim::local_mem::l1;
    case TPosition::A2: return aopt::sim::local_mem::l0a;
    case TPosition::B2: return aopt::sim::local_mem::l0b;
    case TPosition::CO1: return aopt::sim::local_mem::l0c;
    case TPosition::C2: return aopt::sim::local_mem::bt;
    default: return aopt::sim::local_mem::ub;
  }
}
// Logical position of the tensors a queue hands out.
constexpr TPosition tensor_pos(TPosition src, TPosition dst) {
  return src == TPosition::GM ? dst : src;
}

// Pipes of the EnQue/DeQue position forms (EnQue<srcUserPos, dstUserPos>): data from GM arrives
// by MTE2, data for GM leaves by MTE3, anything else is vector work.
constexpr aopt::sim::pipe pos_producer(TPosition src) {
  return src == TPosition::GM ? aopt::sim::pipe::mte2 : aopt::sim::pipe::v;
}
constexpr aopt::sim::pipe pos_consumer(TPosition dst) {
  return dst == TPosition::GM ? aopt::sim::pipe::mte3 : aopt::sim::pipe::v;
}

constexpr std::uint32_t align32(std::uint32_t v) { return (v + 31u) & ~31u; }

// Non-template state of one queue (TQueBind) after TPipe::InitBuffer.
class que_state {
 public:
  que_state(aopt::sim::pipe producer, aopt::sim::pipe consumer, TPosition pos)
      : producer_(producer), consumer_(consumer), pos_(pos) {}

  void init(std::uint32_t base, std::uint32_t num, std::uint32_t slot_bytes,
            const aopt::sim::src_loc& loc) {
    base_ = base;
    slot_bytes_ = slot_bytes;
    state_.assign(num, slot_free);
    events_.assign(num, 0);
    fifo_.clear();
    fifo_head_ = 0;
    cursor_ = 0;
    initialized_ = true;
    alt_events_.clear();
    if (has_flags()) {
      for (std::uint32_t i = 0; i < num; ++i) {
        events_[i] = aopt::sim::next_queue_event(producer_, consumer_);
        // The buffer starts free: pre-set its "free" flag so the first AllocTensor passes.
        record_flag(true, consumer_, producer_, events_[i], loc, "InitBuffer");
      }
    }
  }

  std::uint32_t alloc(const aopt::sim::src_loc& loc) {
    require_init(loc, "AllocTensor");
    const auto n = static_cast<std::uint32_t>(state_.size());
    for (std::uint32_t k = 0; k < n; ++k) {
      const std::uint32_t i = (cursor_ + k) % n;
      if (state_[i] == slot_free) {
        cursor_ = (i + 1) % n;
        state_[i] = slot_allocated;
        if (has_flags()) record_flag(false, consumer_, producer_, events_[i], loc, "AllocTensor");
        return i;
      }
    }
    aopt::sim::fail(aopt::sim::hw_error_kind::invalid_use,
                    "AllocTensor: all " + std::to_string(n) +
                        " buffers of this queue are in use: FreeTensor one before allocating "
                        "again, or give the queue more buffers in InitBuffer",
                    loc, "AllocTensor");
  }

  // EnQue of an allocated buffer, or of one DeQue'd again (the documented VECIN/VECOUT reuse of a
  // TQueBind: EnQue<GM, VECIN>, DeQue, compute, EnQue<VECOUT, GM>, DeQue, copy out). The flag
  // runs between the queue's own pipes, or those of the positions given (pipes_of_positions).
  // A tensor of another queue (its address outside this queue's buffers: rms_norm_grad EnQue's a
  // buffer of one VECOUT queue into another) goes through this queue with this queue's flags: the
  // EnQue documentation sets no limit, and on the chip a buffer's state travels with its handle.
  // Its FreeTensor here ends it; the owning queue's own bookkeeping does not see that [ASSUMED].
  void enque(std::uint32_t addr, std::uint32_t bytes, const aopt::sim::src_loc& loc) {
    enque(addr, bytes, producer_, consumer_, loc);
  }
  void enque(std::uint32_t addr, std::uint32_t bytes, aopt::sim::pipe from, aopt::sim::pipe to,
             const aopt::sim::src_loc& loc) {
    require_init(loc, "EnQue");
    if (!owns(addr)) {
      for (std::size_t k = fifo_head_; k < fifo_.size(); ++k) {
        if (fifo_[k].slot == foreign_slot && fifo_[k].addr == addr) {
          aopt::sim::fail(aopt::sim::hw_error_kind::invalid_use,
                          "EnQue of a buffer that is already in the queue: DeQue it before EnQue'ing it again", loc, "EnQue");
        }
      }
      fifo_.push_back(entry{foreign_slot, from, to, addr, bytes});
      if (from != to) record_flag(true, from, to, event_for(foreign_key(addr), from, to), loc, "EnQue");
      return;
    }
    const std::uint32_t i = slot_of(addr, loc, "EnQue");
    if (state_[i] != slot_allocated && state_[i] != slot_dequeued) {
      aopt::sim::fail(aopt::sim::hw_error_kind::invalid_use,
                      std::string("EnQue of a buffer that is ") + state_name(state_[i]) +
                          ": EnQue a tensor after AllocTensor (or after DeQue) and before FreeTensor",
                      loc, "EnQue");
    }
    state_[i] = slot_enqueued;
    fifo_.push_back(entry{static_cast<std::uint8_t>(i), from, to, slot_addr(i), slot_bytes_});
    if (from != to) record_flag(true, from, to, event_for(i, from, to), loc, "EnQue");
  }

  // The buffer DeQue hands out: its UB address and size in bytes.
  struct buffer {
    std::uint32_t addr, bytes;
  };
  buffer deque(const aopt::sim::src_loc& loc) {
    require_init(loc, "DeQue");
    if (fifo_head_ >= fifo_.size()) {
      aopt::sim::fail(aopt::sim::hw_error_kind::invalid_use,
                      "DeQue on an empty queue: nothing was EnQue'd into it (the hardware would "
                      "hang here)",
                      loc, "DeQue");
    }
    const entry e = fifo_[fifo_head_++];
    if (fifo_head_ == fifo_.size()) {
      fifo_.clear();
      fifo_head_ = 0;
    }
    if (e.slot == foreign_slot) {
      if (e.from != e.to) record_flag(false, e.from, e.to, event_for(foreign_key(e.addr), e.from, e.to), loc, "DeQue");
      foreign_out_.push_back(e.addr);
      return buffer{e.addr, e.bytes};
    }
    state_[e.slot] = slot_dequeued;
    if (e.from != e.to) record_flag(false, e.from, e.to, event_for(e.slot, e.from, e.to), loc, "DeQue");
    return buffer{e.addr, e.bytes};
  }

  void free(std::uint32_t addr, const aopt::sim::src_loc& loc) {
    require_init(loc, "FreeTensor");
    const auto out = std::find(foreign_out_.begin(), foreign_out_.end(), addr);
    if (!owns(addr) && out != foreign_out_.end()) {  // another queue's buffer, DeQue'd from this one
      foreign_out_.erase(out);
      return;
    }
    const std::uint32_t i = slot_of(addr, loc, "FreeTensor");
    if (state_[i] == slot_free) {
      aopt::sim::fail(aopt::sim::hw_error_kind::invalid_use,
                      "FreeTensor of a buffer that is already free (FreeTensor twice?)", loc,
                      "FreeTensor");
    }
    if (state_[i] == slot_enqueued) {
      aopt::sim::fail(aopt::sim::hw_error_kind::invalid_use,
                      "FreeTensor of a buffer that is still in the queue: DeQue it first", loc,
                      "FreeTensor");
    }
    state_[i] = slot_free;
    if (has_flags()) record_flag(true, consumer_, producer_, events_[i], loc, "FreeTensor");
  }

  std::uint32_t slot_addr(std::uint32_t i) const { return base_ + i * slot_bytes_; }
  std::uint32_t slot_bytes() const { return slot_bytes_; }
  TPosition pos() const { return pos_; }
  bool initialized() const { return initialized_; }
  std::uint32_t queued() const { return static_cast<std::uint32_t>(fifo_.size() - fifo_head_); }
  std::uint32_t num() const { return static_cast<std::uint32_t>(state_.size()); }
  bool has_idle() const {
    for (auto s : state_) {
      if (s == slot_free) return true;
    }
    return false;
  }
  std::uint16_t event_of(std::uint32_t i) const { return events_[i]; }

 private:
  enum : std::uint8_t { slot_free, slot_allocated, slot_enqueued, slot_dequeued };
  static constexpr std::uint8_t foreign_slot = 0xFF;  // a FIFO entry holding another queue's buffer
  bool owns(std::uint32_t addr) const { return addr >= base_ && addr < base_ + num() * slot_bytes_; }
  // The key of another queue's buffer among this queue's flag events (past every slot index).
  static std::uint32_t foreign_key(std::uint32_t addr) { return 0x10000u + addr; }
  static const char* state_name(std::uint8_t s) {
    switch (s) {
      case slot_free: return "free (not allocated)";
      case slot_allocated: return "allocated";
      case slot_enqueued: return "already in the queue";
      default: return "dequeued";
    }
  }
  bool has_flags() const { return producer_ != consumer_; }
  // The slot's event id for the pipe pair (from, to): its own for the queue's pipes, a fresh one
  // (taken on first use) for the other pairs of the position forms and for another queue's
  // buffer (foreign_key).
  std::uint16_t event_for(std::uint32_t slot, aopt::sim::pipe from, aopt::sim::pipe to) {
    if (slot < events_.size() && from == producer_ && to == consumer_) return events_[slot];
    for (const auto& a : alt_events_) {
      if (a.slot == slot && a.from == from && a.to == to) return a.id;
    }
    alt_events_.push_back(alt_event{slot, from, to, aopt::sim::next_queue_event(from, to)});
    return alt_events_.back().id;
  }
  void require_init(const aopt::sim::src_loc& loc, const char* api) const {
    if (!initialized_) {
      aopt::sim::fail(aopt::sim::hw_error_kind::invalid_use,
                      "queue used before TPipe::InitBuffer gave it memory", loc, api);
    }
  }
  std::uint32_t slot_of(std::uint32_t addr, const aopt::sim::src_loc& loc, const char* api) const {
    const auto n = static_cast<std::uint32_t>(state_.size());
    if (addr >= base_ && addr < base_ + n * slot_bytes_) return (addr - base_) / slot_bytes_;
    aopt::sim::fail(aopt::sim::hw_error_kind::invalid_use,
                    std::string(api) + " of a tensor at UB address " + std::to_string(addr) +
                        " that does not belong to this queue (its buffers span " +
                        std::to_string(base_) + ".." + std::to_string(base_ + n * slot_bytes_) +
                        "): pass the tensor this queue's AllocTensor/DeQue returned",
                    loc, api);
  }

  aopt::sim::pipe producer_;
  aopt::sim::pipe consumer_;
  TPosition pos_;
  bool initialized_ = false;
  std::uint32_t base_ = 0;
  std::uint32_t slot_bytes_ = 0;
  std::uint32_t cursor_ = 0;
  std::vector<std::uint8_t> state_;
  std::vector<std::uint16_t> events_;
  struct alt_event {
    std::uint32_t slot;
    aopt::sim::pipe from, to;
    std::uint16_t id;
  };
  std::vector<alt_event> alt_events_;
  struct entry {
    std::uint8_t slot;
    aopt::sim::pipe from, to;
    std::uint32_t addr, bytes;
  };
  std::vector<entry> fifo_;
  std::vector<std::uint32_t> foreign_out_;  // other queues' buffers DeQue'd and not yet freed
  std::size_t fifo_head_ = 0;
};

}  // namespace aopt::sim::kernel_detail

namespace AscendC {

struct TQueConfig {
  bool nd2nz = false;
  bool nz2nd = false;
  bool scmBlockGroup = false;
  std::uint32_t bufferLen = 0;
  std::uint32_t bufferNumber = 0;
  std::uint32_t consumerSize = 0;
  TPosition consumer[8] = {};
  bool enableStaticEvtId = false;
  bool enableLoopQueue = false;
};

// A queue buffer as a handle (the TBufHandle forms: AllocBuffer, EnQue, DeQue(), FreeBuffer):
// here the address of the buffer's first UB byte.
struct TBufType;
using TBufHandle = TBufType*;

// Queues and buffers are plain values, as on the chip (a kernel may pass them by value): a copy
// holds the same buffers and its own copy of the bookkeeping.
template <TPosition src, TPosition dst, std::int32_t depth, auto mask = 0>
class TQueBind {
 public:
  TQueBind()
      : q_(aopt::sim::kernel_detail::producer_pipe(src), aopt::sim::kernel_detail::consumer_pipe(dst),
           aopt::sim::kernel_detail::tensor_pos(src, dst)) {}

  template <typename T>
  LocalTensor<T> AllocTensor(aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
    const std::uint32_t i = q_.alloc(loc);
    return LocalTensor<T>(q_.slot_addr(i), q_.slot_bytes() / static_cast<std::uint32_t>(sizeof(T)),
                          q_.pos());
  }
  template <typename T>
  void AllocTensor(LocalTensor<T>& tensor, aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
    tensor = AllocTensor<T>(loc);
  }
  template <typename T>
  void FreeTensor(LocalTensor<T>& tensor, aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
    q_.free(tensor.aopt_addr(), loc);
  }
  template <typename T>
  bool EnQue(const LocalTensor<T>& tensor, aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
    q_.enque(tensor.aopt_addr(), bytes_of(tensor), loc);
    return true;
  }
  template <typename T>
  LocalTensor<T> DeQue(aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
    const auto b = q_.deque(loc);
    return LocalTensor<T>(b.addr, b.bytes / static_cast<std::uint32_t>(sizeof(T)), q_.pos());
  }
  template <typename T>
  void DeQue(LocalTensor<T>& tensor, aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
    tensor = DeQue<T>(loc);
  }
  // The forms naming the positions the tensor moves between (TQueBind<VECIN, VECOUT> reuse:
  // EnQue<GM, VECIN> syncs MTE2 -> V, EnQue<VECOUT, GM> V -> MTE3); DeQue waits for the pipes its
  // EnQue set, whichever form dequeues it.
  template <TPosition srcUserPos, TPosition dstUserPos, typename T>
  bool EnQue(const LocalTensor<T>& tensor, aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
    q_.enque(tensor.aopt_addr(), bytes_of(tensor), aopt::sim::kernel_detail::pos_producer(srcUserPos),
             aopt::sim::kernel_detail::pos_consumer(dstUserPos), loc);
    return true;
  }
  template <TPosition srcUserPos, TPosition dstUserPos, typename T>
  LocalTensor<T> DeQue(aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
    return DeQue<T>(loc);
  }
  // Handle forms.
  TBufHandle AllocBuffer(aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
    return handle_of(q_.slot_addr(q_.alloc(loc)));
  }
  bool EnQue(TBufHandle buf, aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
    q_.enque(addr_of(buf), q_.slot_bytes(), loc);
    return true;
  }
  TBufHandle DeQue(aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
    return handle_of(q_.deque(loc).addr);
  }
  void FreeBuffer(TBufHandle buf, aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
    q_.free(addr_of(buf), loc);
  }
  bool VacantInQue() const { return q_.queued() < q_.num(); }
  bool HasTensorInQue() const { return q_.queued() > 0; }
  std::int32_t GetTensorCountInQue() const { return static_cast<std::int32_t>(q_.queued()); }
  bool HasIdleBuffer() const { return q_.has_idle(); }
  void FreeAllEvent() {}

  // --- emulator-only ---
  aopt::sim::kernel_detail::que_state& aopt_state() { return q_; }
  const aopt::sim::kernel_detail::que_state& aopt_state() const { return q_; }

 private:
  template <typename T>
  static std::uint32_t bytes_of(const LocalTensor<T>& t) {
    return t.GetSize() * static_cast<std::uint32_t>(sizeof(T));
  }
  static TBufHandle handle_of(std::uint32_t addr) { return reinterpret_cast<TBufHandle>(aopt::sim::ub_base() + addr); }
  static std::uint32_t addr_of(TBufHandle h) {
    return static_cast<std::uint32_t>(reinterpret_cast<std::byte*>(h) - aopt::sim::ub_base());
  }
  aopt::sim::kernel_detail::que_state q_;
};

template <TPosition pos, std::int32_t depth, auto mask = 0>
class TQue : public TQueBind<aopt::sim::kernel_detail::que_src(pos),
                             aopt::sim::kernel_detail::que_dst(pos), depth, mask> {
 public:
  TQue() = default;
};

template <TPosition pos = TPosition::LCM>
class TBuf {
 public:
  TBuf() = default;

  template <typename T>
  LocalTensor<T> Get(aopt::sim::src_loc loc = aopt::sim::src_loc::current()) const {
    require_init(loc, "TBuf::Get");
    return LocalTensor<T>(base_, bytes_ / static_cast<std::uint32_t>(sizeof(T)), pos);
  }
  template <typename T>
  LocalTensor<T> Get(std::uint32_t len, aopt::sim::src_loc loc = aopt::sim::src_loc::current()) const {
    require_init(loc, "TBuf::Get");
    if (static_cast<std::uint64_t>(len) * sizeof(T) > bytes_) {
      aopt::sim::fail(aopt::sim::hw_error_kind::param_out_of_range,
                      "TBuf::Get(" + std::to_string(len) + ") asks for " +
                          std::to_string(static_cast<std::uint64_t>(len) * sizeof(T)) +
                          " bytes but InitBuffer gave this TBuf " + std::to_string(bytes_),
                      loc, "TBuf::Get");
    }
    return LocalTensor<T>(base_, len, pos, bytes_ / static_cast<std::uint32_t>(sizeof(T)));
  }
  template <typename T>
  LocalTensor<T> GetWithOffset(std::uint32_t size, std::uint32_t bufOffset,
                               aopt::sim::src_loc loc = aopt::sim::src_loc::current()) const {
    require_init(loc, "TBuf::GetWithOffset");
    if (bufOffset % 32 != 0) {
      aopt::sim::fail(aopt::sim::hw_error_kind::misaligned,
                      "GetWithOffset: bufOffset " + std::to_string(bufOffset) +
                          " is not a multiple of 32 bytes",
                      loc, "TBuf::GetWithOffset");
    }
    if (bufOffset + static_cast<std::uint64_t>(size) * sizeof(T) > bytes_) {
      aopt::sim::fail(aopt::sim::hw_error_kind::param_out_of_range,
                      "GetWithOffset(" + std::to_string(size) + ", " + std::to_string(bufOffset) +
                          ") reaches byte " +
                          std::to_string(bufOffset + static_cast<std::uint64_t>(size) * sizeof(T)) +
                          " but InitBuffer gave this TBuf " + std::to_string(bytes_) + " bytes",
                      loc, "TBuf::GetWithOffset");
    }
    return LocalTensor<T>(base_ + bufOffset, size, pos, (bytes_ - bufOffset) / static_cast<std::uint32_t>(sizeof(T)));
  }
  template <typename T>
  LocalTensor<T> AllocTensor(aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
    return Get<T>(loc);
  }
  template <typename T>
  void FreeTensor(LocalTensor<T>&) {}
  template <typename T>
  void EnQue(const LocalTensor<T>&) {}
  template <typename T>
  LocalTensor<T> DeQue(aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
    return Get<T>(loc);
  }

  // --- emulator-only ---
  void aopt_init(std::uint32_t base, std::uint32_t bytes) {
    base_ = base;
    bytes_ = bytes;
    initialized_ = true;
  }
  std::uint32_t aopt_bytes() const { return bytes_; }

 private:
  // Getting a tensor of a TBuf that InitBuffer never set up is harmless on the chip (a tensor of
  // no bytes at UB address 0; kernels do it on paths that do not use it): a warning here, and
  // any access through that tensor runs past its buffer.
  void require_init(const aopt::sim::src_loc& loc, const char* api) const {
    if (!initialized_) {
      aopt::sim::warn(aopt::sim::hw_error_kind::invalid_use, "TBuf used before TPipe::InitBuffer gave it memory", loc, api);
    }
  }
  std::uint32_t base_ = 0;
  std::uint32_t bytes_ = 0;
  bool initialized_ = false;
};

class TPipe {
 public:
  TPipe(aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
    aopt::sim::set_current_pipe(this);
    hold_aic_events(loc);
  }
  ~TPipe() {
    try {
      if (std::uncaught_exceptions() == 0) release_aic_events(aopt::sim::src_loc::current());
      if (aopt::sim::current_pipe() == this) aopt::sim::set_current_pipe(nullptr);
    } catch (...) {
      // destroyed outside an emulated core: nothing to unregister
    }
  }
  TPipe(const TPipe&) = delete;
  TPipe& operator=(const TPipe&) = delete;

  template <class Q>
  bool InitBuffer(Q& que, std::uint8_t num, std::uint32_t len,
                  aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
    if (num == 0 || len == 0) {
      aopt::sim::fail(aopt::sim::hw_error_kind::param_out_of_range,
                      "InitBuffer with num=" + std::to_string(num) + " and len=" +
                          std::to_string(len) + ": both must be positive",
                      loc, "InitBuffer");
    }
    const std::uint32_t slot = aopt::sim::kernel_detail::align32(len);
    const auto mem = aopt::sim::kernel_detail::position_mem(que.aopt_state().pos());
    const std::uint32_t base = mem == aopt::sim::local_mem::ub ? take(static_cast<std::uint64_t>(slot) * num, num, len, loc)
                                                               : take_cube(mem, slot, num, len, loc);
    que.aopt_state().init(base, num, slot, loc);
    return true;
  }
  template <TPosition pos>
  bool InitBuffer(TBuf<pos>& buf, std::uint32_t len,
                  aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
    if (len == 0) {
      aopt::sim::fail(aopt::sim::hw_error_kind::param_out_of_range,
                      "InitBuffer of a TBuf with len=0: the length must be positive", loc,
                      "InitBuffer");
    }
    const std::uint32_t bytes = aopt::sim::kernel_detail::align32(len);
    constexpr auto mem = aopt::sim::kernel_detail::position_mem(pos);
    const std::uint32_t base = mem == aopt::sim::local_mem::ub ? take(bytes, 1, len, loc) : take_cube(mem, bytes, 1, len, loc);
    buf.aopt_init(base, bytes);
    return true;
  }

  void Reset() {
    cursor_ = 0;
    for (auto& c : cube_cursor_) c = 0;
    for (auto& m : used_events_) m = 0;
  }
  void Destroy(aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
    release_aic_events(loc);
    Reset();
  }
  void Init(aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
    Reset();
    hold_aic_events(loc);
  }

  template <HardEvent evt>
  TEventID FetchEventID() {
    return FetchEventID(evt);
  }
  TEventID FetchEventID(HardEvent evt, aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
    const std::uint8_t used = used_events_[static_cast<int>(evt)];
    for (int id = 0; id < 6; ++id) {
      if (!(used & (1u << id))) return static_cast<TEventID>(id);
    }
    aopt::sim::fail(aopt::sim::hw_error_kind::invalid_use,
                    "FetchEventID: all 6 event ids of this HardEvent are allocated: "
                    "ReleaseEventID some",
                    loc, "FetchEventID");
  }
  template <HardEvent evt>
  TEventID AllocEventID(aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
    std::uint8_t& used = used_events_[static_cast<int>(evt)];
    for (int id = 0; id < 6; ++id) {
      if (!(used & (1u << id))) {
        used = static_cast<std::uint8_t>(used | (1u << id));
        return static_cast<TEventID>(id);
      }
    }
    aopt::sim::fail(aopt::sim::hw_error_kind::invalid_use,
                    "AllocEventID: all 6 event ids of this HardEvent are allocated: "
                    "ReleaseEventID some",
                    loc, "AllocEventID");
  }
  template <HardEvent evt>
  void ReleaseEventID(TEventID id, aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
    aopt::sim::kernel_detail::check_user_event(id, loc, "ReleaseEventID");
    std::uint8_t& used = used_events_[static_cast<int>(evt)];
    used = static_cast<std::uint8_t>(used & ~(1u << id));
  }

  // --- emulator-only ---
  std::uint32_t aopt_used_bytes() const { return cursor_; }
  // The M_MTE1 event ids a TPipe holds on the Cube core (Atlas A2): 0, 1, 2.
  static constexpr int aic_held_m_mte1 = 3;
  // The Matmul API's L0A/L0B/L0C buffers: every Matmul object on this pipe takes them from one
  // region shared by all of them (the library uses L0 whole and the objects take turns on the
  // Cube [ASSUMED: a kernel finishes one object's Iterate/GetTensorC before the next object's
  // Iterate, as the tree's kernels with two objects do]); buffers the kernel itself allocates
  // in L0 afterwards start past the largest object's share. Between begin and end, InitBuffer in
  // L0A/L0B/L0C allocates from the shared region.
  void aopt_begin_matmul_l0() {
    for (int m : kL0_) {
      if (!matmul_l0_set_) matmul_l0_base_[m] = cube_cursor_[m];
      matmul_l0_saved_[m] = cube_cursor_[m];
      cube_cursor_[m] = matmul_l0_base_[m];
    }
    matmul_l0_set_ = true;
  }
  void aopt_end_matmul_l0() {
    for (int m : kL0_) cube_cursor_[m] = std::max(matmul_l0_saved_[m], cube_cursor_[m]);
  }

 private:
  // A TPipe made on the Cube core (AIC) of an Atlas A2 holds the M_MTE1 event ids 0, 1 and 2 and
  // sets their flags when it is made, and its Destroy (or its end) waits on them: the Cube library
  // code and the kernels built on it (the tree's convolutions: conv3dv2, the conv3d backprop
  // operators) start their L0 ping-pong with WaitFlag<M_MTE1>(0/1) and leave the flags set, and a
  // kernel's own ids come after them (AllocEventID<M_MTE1> gives 3 first: weight_quant_batch_matmul_v2).
  // [SOURCE: the public AscendC TPipe implementation for NPU arch 2201 (asc-devkit
  // impl/basic_api/kernel_tpipe_impl.h, TPipe's Init and Destroy), read, not copied; the pages of
  // SetFlag/WaitFlag(ISASI) say a WaitFlag blocks while its flag is 0.] Not on the vector cores.
  void hold_aic_events(const aopt::sim::src_loc& loc) {
    aic_events_held_ = aopt::sim::current_core_kind() == aopt::sim::core_kind::aic;
    if (!aic_events_held_) return;
    std::uint8_t& used = used_events_[static_cast<int>(HardEvent::M_MTE1)];
    for (int id = 0; id < aic_held_m_mte1; ++id) {
      used = static_cast<std::uint8_t>(used | (1u << id));
      aopt::sim::kernel_detail::flag_op(true, HardEvent::M_MTE1, id, loc);
    }
  }
  void release_aic_events(const aopt::sim::src_loc& loc) {
    if (!aic_events_held_) return;
    aic_events_held_ = false;
    for (int id = 0; id < aic_held_m_mte1; ++id) aopt::sim::kernel_detail::flag_op(false, HardEvent::M_MTE1, id, loc);
  }

  std::uint32_t take(std::uint64_t bytes, std::uint32_t num, std::uint32_t len,
                     const aopt::sim::src_loc& loc) {
    const std::uint64_t end = cursor_ + bytes;
    const std::uint32_t cap = aopt::sim::ub_capacity();
    const std::string what = "InitBuffer of " + std::to_string(num) + " x " + std::to_string(len) + " bytes";
    if (bytes > cap) {
      aopt::sim::fail(aopt::sim::hw_error_kind::ub_overflow,
                      what + " asks for more than the " + std::to_string(cap) +
                          " bytes of UB: shrink the tile size or the buffer count",
                      loc, "InitBuffer");
    }
    if (end > cap) {
      // The chip's InitBuffer does not check: buffers past the end of UB fail when accessed.
      aopt::sim::warn(aopt::sim::hw_error_kind::ub_overflow,
                      what + " brings this TPipe's UB use to " + std::to_string(end) + " bytes, over the " +
                          std::to_string(cap) + " bytes of UB: an access past the end of UB fails",
                      loc, "InitBuffer");
    }
    const std::uint32_t base = cursor_;
    cursor_ = static_cast<std::uint32_t>(end);
    aopt::sim::note_ub_usage(cursor_);
    return base;
  }

  // One of the Cube's buffers: `num` slots of `slot` bytes (32-byte granules, as in UB; the
  // instructions check their own alignment: L0A/L0B 512 B, L0C 1 KiB). Unlike UB, an allocation
  // past the buffer's capacity is an error at once: the message names the buffer, its capacity
  // (device profile) and what was asked.
  std::uint32_t take_cube(aopt::sim::local_mem mem, std::uint32_t slot, std::uint32_t num, std::uint32_t len,
                          const aopt::sim::src_loc& loc) {
    aopt::sim::prepare_cube_memory();
    std::uint32_t& cur = cube_cursor_[static_cast<int>(mem)];
    const std::uint64_t end = std::uint64_t{cur} + std::uint64_t{slot} * num;
    const std::uint32_t cap = aopt::sim::local_capacity(mem);
    if (end > cap) {
      aopt::sim::fail(aopt::sim::hw_error_kind::ub_overflow,
                      "InitBuffer of " + std::to_string(num) + " x " + std::to_string(len) + " bytes in " +
                          aopt::sim::local_mem_name(mem) + " brings this TPipe's " + aopt::sim::local_mem_name(mem) +
                          " use to " + std::to_string(end) + " bytes, over its capacity of " + std::to_string(cap) +
                          " bytes (device profile): use smaller base blocks (baseM/baseN/baseK) or fewer buffers",
                      loc, "InitBuffer");
    }
    const std::uint32_t start = cur;
    cur = static_cast<std::uint32_t>(end);
    return aopt::sim::local_base(mem) + start;
  }

  std::uint32_t cursor_ = 0;
  std::uint32_t cube_cursor_[static_cast<int>(aopt::sim::local_mem::count_)] = {};
  std::uint8_t used_events_[static_cast<int>(HardEvent::MAX) + 1] = {};
  bool aic_events_held_ = false;
  static constexpr int kL0_[] = {static_cast<int>(aopt::sim::local_mem::l0a), static_cast<int>(aopt::sim::local_mem::l0b),
                                 static_cast<int>(aopt::sim::local_mem::l0c)};
  bool matmul_l0_set_ = false;
  std::uint32_t matmul_l0_base_[static_cast<int>(aopt::sim::local_mem::count_)] = {};
  std::uint32_t matmul_l0_saved_[static_cast<int>(aopt::sim::local_mem::count_)] = {};
};

}  // namespace AscendC

// The current core's TPipe. Global, as in the CANN headers (kernels call it unqualified from
// their own namespaces).
inline AscendC::TPipe* GetTPipePtr(aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  auto* p = static_cast<AscendC::TPipe*>(aopt::sim::current_pipe());
  if (p == nullptr) {
    aopt::sim::fail(aopt::sim::hw_error_kind::invalid_use,
                    "GetTPipePtr(): no TPipe exists on this core: construct a TPipe first", loc,
                    "GetTPipePtr");
  }
  return p;
}
// Also reachable as AscendC::GetTPipePtr (the same function), as kernels of this project write it.
namespace AscendC {
using ::GetTPipePtr;
}
