// The instruction trace: the contract between the functional emulation (kernel API, runtime)
// and the timing model (sim/timing). Every AscendC call a kernel makes on one emulated core
// appends records here, in program order, with real UB/GM addresses; the timing model replays
// them. Nothing in this header depends on the kernel API headers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace aopt::sim {

// The pipes of one core: the AIV's (S, V, MTE2, MTE3) and the Cube's (MTE1: L1 -> L0A/L0B,
// M: the matrix unit, FIX: the fixpipe out of L0C). PIPE_ALL is not a pipe: a barrier on it is
// rec_kind::barrier with pipe::all. Arrays indexed by pipe have pipe_count entries (index 4,
// `all`, is never a record's executing pipe).
enum class pipe : std::uint8_t { s = 0, v = 1, mte2 = 2, mte3 = 3, all = 4, mte1 = 5, m = 6, fix = 7 };
inline constexpr int pipe_count = 8;

enum class rec_kind : std::uint8_t {
  scalar,     // scalar-pipe work: element accesses by class (GetValue/SetValue, raw __gm__
              // loads/stores; see `repeats` and `sacc`) plus `cycles` fixed cycles (mask sets)
  vector,     // one vector instruction on PIPE_V (calls over 255 repeats already split or not:
              // the timing model splits by `repeats`)
  copy_in,    // GM -> UB on MTE2 (`event` 2: GM -> L1 with the ND -> NZ conversion, one burst a row)
  copy_out,   // UB -> GM on MTE3 (atomic when `atomic` is set)
  copy_local, // UB -> UB on PIPE_V
  set_flag,   // SetFlag<src_dst>(event): fires when all earlier work of `src` has finished
  wait_flag,  // WaitFlag<src_dst>(event): blocks `dst` until set, then clears the flag
  barrier,    // PipeBarrier<p>: later work of p waits for earlier work of p (p == all: every pipe)
  sync_all,   // SyncAll(): every core drains and waits for every other core
  // The Cube unit (docs/sim.md, "The Cube unit"):
  mmad,       // Mmad on PIPE_M: `blocks` = m, `block_bytes` = n, `repeats` = k, `dtype_bytes` = the
              // input element size (2: half/bf16, 1: int8, 4: float); `event` 1: a float Mmad
              // under HF32 mode (SetHF32Mode), at twice the fp32 rate
  cube_move,  // a move between on-chip buffers of the Cube: LoadData L1 -> L0A/L0B on PIPE_MTE1,
              // Fixpipe/DataCopy L0C -> L1/UB on PIPE_FIX; `blocks` x `block_bytes` bytes written,
              // `src_bytes[0]` read; `event` 1 when the destination is L0B (MTE1's rate differs)
  // Cross-core flags (mixed kernels, docs/sim.md "Mixed kernels"): `event` the flag id, `repeats`
  // the mode (0, 1, 2); the domain follows from the core_trace's kind and group.
  cross_set,  // CrossCoreSetFlag<mode, p>: on pipe `p`, once its earlier work is done
  cross_wait, // CrossCoreWaitFlag: the core issues nothing more until its counter is non-zero
};

// Vector cost classes; cycles per repeat for each class and dtype come from the device profile
// (sim/profiles/*.json, key = the name returned by vec_class_name()).
enum class vec_class : std::uint8_t {
  unary,        // Adds Muls Maxs Mins Relu Abs Reciprocal Rsqrt Not ShiftLeft/Right LeakyRelu
  binary,       // Add Sub Mul Max Min And Or Axpy
  compare,      // Compare CompareScalar
  select,       // Select
  duplicate,    // Duplicate, CreateVecIndex, Brcb
  cast,         // Cast
  exp_ln,       // Exp Ln
  sqrt,         // Sqrt
  div,          // Div
  reduce_sum,   // ReduceSum WholeReduceSum BlockReduceSum PairReduceSum RepeatReduceSum
  reduce_max,   // ReduceMax ReduceMin WholeReduceMax/Min
  mul_add,      // MulAddDst FusedMulAdd (three operands)
  gather,       // Gather
  gather_mask,  // GatherMask
  count_
};

inline const char* vec_class_name(vec_class c) {
  switch (c) {
    case vec_class::unary: return "unary";
    case vec_class::binary: return "binary";
    case vec_class::compare: return "compare";
    case vec_class::select: return "select";
    case vec_class::duplicate: return "duplicate";
    case vec_class::cast: return "cast";
    case vec_class::exp_ln: return "exp_ln";
    case vec_class::sqrt: return "sqrt";
    case vec_class::div: return "div";
    case vec_class::reduce_sum: return "reduce_sum";
    case vec_class::reduce_max: return "reduce_max";
    case vec_class::mul_add: return "mul_add";
    case vec_class::gather: return "gather";
    case vec_class::gather_mask: return "gather_mask";
    case vec_class::count_: break;
  }
  return "unknown";
}

// Where in the operator's source a record was issued (std::source_location of the API call).
struct call_site {
  std::string file;
  std::uint32_t line = 0;
  std::string function;  // enclosing function of the call
  std::string api;       // AscendC API name, e.g. "DataCopy"
};

// Scalar element accesses by memory and pattern (trace_rec::sacc), each priced by the profile:
//   ub_scan: a UB access within 32 B of the previous scalar UB access (a scan of one buffer);
//   gm_hit:  a GM access whose 64 B line is in the core's scalar DataCache (the last lines used);
//   gm_miss: a GM access to another line (strided or random GM access goes to memory).
// UB accesses that jump between buffers are counted in trace_rec::repeats (the ladder's case-0
// pattern, priced by scalar.elem_access_cycles).
enum class scalar_access : std::uint8_t { ub_scan = 0, gm_hit = 1, gm_miss = 2, count_ };
inline constexpr int scalar_access_count = static_cast<int>(scalar_access::count_);

struct trace_rec {
  rec_kind kind = rec_kind::scalar;
  pipe p = pipe::s;           // executing pipe (barrier: the barrier's pipe)
  pipe src = pipe::s;         // set_flag / wait_flag: source pipe of the event
  pipe dst = pipe::s;         // set_flag / wait_flag: destination pipe of the event
  std::uint8_t dtype_bytes = 0;  // vector: element size the class cost is looked up for
  vec_class vclass = vec_class::unary;
  bool atomic = false;        // copy_out with SetAtomicAdd/Max active
  std::uint16_t event = 0;    // flag id (user ids 0..7; queue-internal ids start at 64)
  std::uint32_t site = 0;     // index into core_trace::sites
  std::uint32_t repeats = 0;  // vector: number of repeats (256 B each; count form: ceil);
                              // scalar: number of element accesses
  std::uint16_t bank_cycles = 0;  // vector: cycles per repeat imposed by UB bank-group
                                  // conflicts (0 = conflict-free; see MODEL.md section 3)
  std::uint32_t blocks = 0;       // copies: number of bursts (1 for contiguous copies)
  std::uint32_t block_bytes = 0;  // copies: bytes per burst
  std::uint64_t gm_addr = 0;      // copies: GM byte address of the first burst (offset from
                                  // the start of the GM allocation, so alignment is meaningful)
  std::uint32_t ub_addr = 0;      // copies and vector: UB byte address (destination)
  std::uint64_t cycles = 0;       // scalar: fixed cycles of scalar work
  // Added by the timing model (H3), additive: both default to "unknown/normal".
  std::uint16_t gm_buf = 0;       // copies: index of the GM allocation touched (1-based; 0 =
                                  // unknown); same-window serialisation compares it
  bool l2_bypass = false;         // copies: the GlobalTensor had SetL2CacheHint(
                                  // CacheMode::CACHE_MODE_DISABLE): the data does not allocate in L2
  // UB ranges the record touches, for the implicit serialisation of pipes that share a buffer
  // (docs/sim.md). Written: [ub_addr, ub_addr + ub_bytes); read: [src_addr[i], + src_bytes[i]).
  // A zero length means none (or unknown: synthetic traces leave them 0).
  std::uint32_t ub_bytes = 0;
  std::uint32_t src_addr[2] = {0, 0};
  std::uint32_t src_bytes[2] = {0, 0};
  // scalar: element accesses by class (scalar_access), beside `repeats` (UB, not a scan).
  std::uint32_t sacc[scalar_access_count] = {0, 0, 0};
};

// Widens the UB range [addr, addr + len) of a record to cover [a, a + n) (len 0: none yet).
inline void widen_range(std::uint32_t& addr, std::uint32_t& len, std::uint32_t a, std::uint32_t n) {
  if (len == 0) {
    addr = a;
    len = n;
    return;
  }
  const std::uint32_t lo = addr < a ? addr : a;
  const std::uint32_t hi = addr + len > a + n ? addr + len : a + n;
  addr = lo;
  len = hi - lo;
}

// The two kinds of core of an AI Core in the separated (910B-class) architecture: the vector core
// (AIV) and the Cube core (AIC).
enum class core_kind : std::uint8_t { aiv, aic };
inline const char* core_kind_name(core_kind k) { return k == core_kind::aic ? "AIC" : "AIV"; }

struct core_trace {
  std::uint32_t block_idx = 0;   // GetBlockIdx() of the core
  // Which core ran it (docs/sim.md, "Mixed kernels"): AIV unless the kernel is AIC-only or mixed;
  // in a mixed kernel `group` is the AI Core (the AIC's block index) and `sub_block` the AIV's
  // GetSubBlockIdx().
  core_kind kind = core_kind::aiv;
  std::uint32_t group = 0;
  std::uint32_t sub_block = 0;
  std::vector<trace_rec> recs;
  std::vector<call_site> sites;
  std::uint32_t ub_peak_bytes = 0;  // high-water mark of TPipe allocations on this core
};

}  // namespace aopt::sim
