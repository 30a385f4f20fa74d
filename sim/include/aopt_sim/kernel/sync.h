// Pipes, hardware events and synchronisation: pipe_t, event_t, HardEvent, PipeBarrier,
// SetFlag/WaitFlag, SyncAll, and the CCE intrinsics pipe_barrier/set_flag/wait_flag.
// Synchronisation has no effect on values in the emulator (cores run each API call to
// completion); it only records trace records for the timing model and checks event ids.
#pragma once

#include <cstdint>
#include <string>

#include "aopt_sim/kernel/core.h"

// Global (builtin) enums of the CCE language.
enum pipe_t : std::uint8_t {
  PIPE_S = 0,
  PIPE_V,
  PIPE_M,
  PIPE_MTE1,
  PIPE_MTE2,
  PIPE_MTE3,
  PIPE_ALL,
  PIPE_MTE4,
  PIPE_MTE5,
  PIPE_V2,
  PIPE_FIX,
};

enum event_t : std::uint8_t {
  EVENT_ID0 = 0,
  EVENT_ID1,
  EVENT_ID2,
  EVENT_ID3,
  EVENT_ID4,
  EVENT_ID5,
  EVENT_ID6,
  EVENT_ID7,
};

namespace AscendC {

using TEventID = std::int8_t;

enum class HardEvent : std::uint8_t {
  MTE2_MTE1,
  MTE1_MTE2,
  MTE1_M,
  M_MTE1,
  MTE2_V,
  V_MTE2,
  MTE3_V,
  V_MTE3,
  M_V,
  V_M,
  V_V,
  MTE3_MTE1,
  MTE1_MTE3,
  MTE1_V,
  MTE2_M,
  M_MTE2,
  V_MTE1,
  M_FIX,
  FIX_M,
  MTE3_MTE2,
  MTE2_MTE3,
  S_V,
  V_S,
  S_MTE2,
  MTE2_S,
  S_MTE3,
  MTE3_S,
  MTE2_FIX,
  FIX_MTE2,
  FIX_S,
  M_S,
  FIX_MTE3,
  MTE1_FIX,
  FIX_MTE1,
  FIX_FIX,
  MAX,
};

}  // namespace AscendC

namespace aopt::sim::kernel_detail {

// Maps a CCE pipe to the trace's pipes (the Cube's MTE1, M and FIX included); false for pipes
// the emulator does not model (MTE4, MTE5, V2).
constexpr bool map_pipe(pipe_t p, aopt::sim::pipe& out) {
  switch (p) {
    case PIPE_S: out = aopt::sim::pipe::s; return true;
    case PIPE_V: out = aopt::sim::pipe::v; return true;
    case PIPE_MTE2: out = aopt::sim::pipe::mte2; return true;
    case PIPE_MTE3: out = aopt::sim::pipe::mte3; return true;
    case PIPE_ALL: out = aopt::sim::pipe::all; return true;
    case PIPE_MTE1: out = aopt::sim::pipe::mte1; return true;
    case PIPE_M: out = aopt::sim::pipe::m; return true;
    case PIPE_FIX: out = aopt::sim::pipe::fix; return true;
    default: return false;
  }
}

// Source and destination pipes of a HardEvent (vector and Cube pipes).
constexpr bool event_pipes(AscendC::HardEvent e, aopt::sim::pipe& src, aopt::sim::pipe& dst) {
  using AscendC::HardEvent;
  using aopt::sim::pipe;
  switch (e) {
    case HardEvent::MTE2_MTE1: src = pipe::mte2; dst = pipe::mte1; return true;
    case HardEvent::MTE1_MTE2: src = pipe::mte1; dst = pipe::mte2; return true;
    case HardEvent::MTE1_M: src = pipe::mte1; dst = pipe::m; return true;
    case HardEvent::M_MTE1: src = pipe::m; dst = pipe::mte1; return true;
    case HardEvent::M_V: src = pipe::m; dst = pipe::v; return true;
    case HardEvent::V_M: src = pipe::v; dst = pipe::m; return true;
    case HardEvent::MTE3_MTE1: src = pipe::mte3; dst = pipe::mte1; return true;
    case HardEvent::MTE1_MTE3: src = pipe::mte1; dst = pipe::mte3; return true;
    case HardEvent::MTE1_V: src = pipe::mte1; dst = pipe::v; return true;
    case HardEvent::V_MTE1: src = pipe::v; dst = pipe::mte1; return true;
    case HardEvent::MTE2_M: src = pipe::mte2; dst = pipe::m; return true;
    case HardEvent::M_MTE2: src = pipe::m; dst = pipe::mte2; return true;
    case HardEvent::M_FIX: src = pipe::m; dst = pipe::fix; return true;
    case HardEvent::FIX_M: src = pipe::fix; dst = pipe::m; return true;
    case HardEvent::MTE2_FIX: src = pipe::mte2; dst = pipe::fix; return true;
    case HardEvent::FIX_MTE2: src = pipe::fix; dst = pipe::mte2; return true;
    case HardEvent::FIX_S: src = pipe::fix; dst = pipe::s; return true;
    case HardEvent::M_S: src = pipe::m; dst = pipe::s; return true;
    case HardEvent::FIX_MTE3: src = pipe::fix; dst = pipe::mte3; return true;
    case HardEvent::MTE1_FIX: src = pipe::mte1; dst = pipe::fix; return true;
    case HardEvent::FIX_MTE1: src = pipe::fix; dst = pipe::mte1; return true;
    case HardEvent::FIX_FIX: src = pipe::fix; dst = pipe::fix; return true;
    case HardEvent::MTE2_V: src = pipe::mte2; dst = pipe::v; return true;
    case HardEvent::V_MTE2: src = pipe::v; dst = pipe::mte2; return true;
    case HardEvent::MTE3_V: src = pipe::mte3; dst = pipe::v; return true;
    case HardEvent::V_MTE3: src = pipe::v; dst = pipe::mte3; return true;
    case HardEvent::V_V: src = pipe::v; dst = pipe::v; return true;
    case HardEvent::MTE3_MTE2: src = pipe::mte3; dst = pipe::mte2; return true;
    case HardEvent::MTE2_MTE3: src = pipe::mte2; dst = pipe::mte3; return true;
    case HardEvent::S_V: src = pipe::s; dst = pipe::v; return true;
    case HardEvent::V_S: src = pipe::v; dst = pipe::s; return true;
    case HardEvent::S_MTE2: src = pipe::s; dst = pipe::mte2; return true;
    case HardEvent::MTE2_S: src = pipe::mte2; dst = pipe::s; return true;
    case HardEvent::S_MTE3: src = pipe::s; dst = pipe::mte3; return true;
    case HardEvent::MTE3_S: src = pipe::mte3; dst = pipe::s; return true;
    default: return false;
  }
}

inline void check_user_event(std::int32_t id, const aopt::sim::src_loc& loc, const char* api) {
  if (id < 0 || id > 7) {
    aopt::sim::fail(aopt::sim::hw_error_kind::reserved_event,
                    "event id " + std::to_string(id) +
                        " is outside 0..7: use an id from GetTPipePtr()->FetchEventID() or "
                        "AllocEventID()",
                    loc, api);
  }
  // "SetFlag/WaitFlag(ISASI)", 约束说明: the range on Atlas A2/A3 is 0-7; ids 6 and 7 are "暂不建议直接
  // 使用" (6 planned for the system, 7 TPipe's automatic synchronisation), a recommendation, not
  // a fault: the chip runs them, so sim warns.
  if (id >= 6) {
    aopt::sim::warn(aopt::sim::hw_error_kind::reserved_event,
                    "event id " + std::to_string(id) +
                        " is one the documentation advises against (6: planned for the system, 7: TPipe's "
                        "automatic synchronisation): prefer 0..5, e.g. from GetTPipePtr()->FetchEventID()",
                    loc, api);
  }
}

// Appends a set_flag or wait_flag record (no checks).
inline void record_flag(bool set, aopt::sim::pipe src, aopt::sim::pipe dst, std::uint16_t id,
                        const aopt::sim::src_loc& loc, const char* api) {
  aopt::sim::trace_rec r;
  r.kind = set ? aopt::sim::rec_kind::set_flag : aopt::sim::rec_kind::wait_flag;
  r.p = set ? src : dst;
  r.src = src;
  r.dst = dst;
  r.event = id;
  r.site = aopt::sim::site_of(loc, api);
  aopt::sim::record(r);
}

inline void flag_op(bool set, AscendC::HardEvent e, std::int32_t id, const aopt::sim::src_loc& loc) {
  const char* api = set ? "SetFlag" : "WaitFlag";
  check_user_event(id, loc, api);
  aopt::sim::pipe src = aopt::sim::pipe::s, dst = aopt::sim::pipe::s;
  if (!event_pipes(e, src, dst)) return;
  record_flag(set, src, dst, static_cast<std::uint16_t>(id), loc, api);
}

inline void barrier_op(pipe_t p, const aopt::sim::src_loc& loc, const char* api) {
  aopt::sim::pipe mp = aopt::sim::pipe::s;
  if (!map_pipe(p, mp) || mp == aopt::sim::pipe::s) return;  // no PIPE_S barrier; MTE4/MTE5/V2
  aopt::sim::trace_rec r;
  r.kind = aopt::sim::rec_kind::barrier;
  r.p = mp;
  r.site = aopt::sim::site_of(loc, api);
  aopt::sim::record(r);
}

}  // namespace aopt::sim::kernel_detail

namespace AscendC {

template <pipe_t pipe>
inline void PipeBarrier(aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  aopt::sim::kernel_detail::barrier_op(pipe, loc, "PipeBarrier");
}

template <HardEvent event>
inline void SetFlag(std::int32_t eventID, aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  aopt::sim::kernel_detail::flag_op(true, event, eventID, loc);
}

template <HardEvent event>
inline void WaitFlag(std::int32_t eventID, aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  aopt::sim::kernel_detail::flag_op(false, event, eventID, loc);
}

// SyncAll across every block of the launch (hard synchronisation).
template <bool isAIVOnly = true>
inline void SyncAll(aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  aopt::sim::sync_all(loc, "SyncAll");
}

}  // namespace AscendC

// CCE intrinsics that older kernels call directly.
inline void pipe_barrier(pipe_t p, aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  aopt::sim::kernel_detail::barrier_op(p, loc, "pipe_barrier");
}

namespace aopt::sim::kernel_detail {
inline void raw_flag(bool set, pipe_t src, pipe_t dst, std::int32_t id, const aopt::sim::src_loc& loc) {
  const char* api = set ? "set_flag" : "wait_flag";
  check_user_event(id, loc, api);
  aopt::sim::pipe s = aopt::sim::pipe::s, d = aopt::sim::pipe::s;
  if (!map_pipe(src, s) || !map_pipe(dst, d) || s == aopt::sim::pipe::all ||
      d == aopt::sim::pipe::all) {
    return;
  }
  record_flag(set, s, d, static_cast<std::uint16_t>(id), loc, api);
}
}  // namespace aopt::sim::kernel_detail

// The id as an integer: the event_t enumerators convert, and so does a kernel's integer id
// (conv3dv2 passes a uint16_t ping-pong id; the CCE compiler takes it).
inline void set_flag(pipe_t src, pipe_t dst, std::int32_t id,
                     aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  aopt::sim::kernel_detail::raw_flag(true, src, dst, id, loc);
}
inline void wait_flag(pipe_t src, pipe_t dst, std::int32_t id,
                      aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
  aopt::sim::kernel_detail::raw_flag(false, src, dst, id, loc);
}

namespace AscendC {

// TQueSync<src, dst>: SetFlag/WaitFlag between two pipes given as template arguments (the same
// flags as SetFlag<HardEvent>/WaitFlag<HardEvent> of that pipe pair).
template <pipe_t src, pipe_t dst>
class TQueSync {
 public:
  void SetFlag(TEventID id, aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
    aopt::sim::kernel_detail::raw_flag(true, src, dst, id, loc);
  }
  void WaitFlag(TEventID id, aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
    aopt::sim::kernel_detail::raw_flag(false, src, dst, id, loc);
  }
};

}  // namespace AscendC

// CrossCoreSetFlag / CrossCoreWaitFlag: aopt_sim/kernel/mix.h.
