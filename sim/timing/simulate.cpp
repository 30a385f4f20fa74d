// Discrete-event replay of the traces of one launch. See docs/sim.md for the model.
//
// Per block: a scalar thread walks the trace in program order, paying scalar cycles and issuing
// each instruction into the queue (bounded depth) of its pipe (V, MTE2, MTE3). Each pipe runs its
// queue in order, one instruction at a time; an instruction starts at the latest of its issue
// time, its pipe being free, and the flag it waits for. Copies are fluid flows: a fixed latency,
// then the bytes stream at min(per-core rate for the burst size, max-min fair share of the chip
// bandwidth among all streaming copies of all cores), so every core runs in one event loop.
#include <algorithm>
#include <map>
#include <cmath>
#include <deque>
#include <limits>
#include <list>
#include <queue>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "aopt_sim/timing.h"

namespace aopt::sim {

namespace {

constexpr int P_S = 0, P_V = 1, P_MTE2 = 2, P_MTE3 = 3, P_MTE1 = 5, P_M = 6, P_FIX = 7;

const char* pipe_name(pipe p) {
  switch (p) {
    case pipe::s: return "S";
    case pipe::v: return "V";
    case pipe::mte2: return "MTE2";
    case pipe::mte3: return "MTE3";
    case pipe::all: return "ALL";
    case pipe::mte1: return "MTE1";
    case pipe::m: return "M";
    case pipe::fix: return "FIX";
  }
  return "?";
}

std::string event_name(const trace_rec& r) {
  std::string s = std::string(pipe_name(r.src)) + "_" + pipe_name(r.dst);
  s += "(event " + std::to_string(r.event) + (r.event >= 64 ? ", queue-internal" : "") + ")";
  return s;
}

enum class ev : std::uint8_t { scalar, pipe, pipe_done, xfer_lat, xfer_done };

struct event {
  double t;
  std::uint64_t seq;
  ev type;
  std::uint32_t a;
  std::uint32_t b;
};
struct event_later {
  bool operator()(const event& x, const event& y) const {
    return x.t > y.t || (x.t == y.t && x.seq > y.seq);
  }
};

struct entry {
  std::uint32_t rec;
  double ready;
};

struct pipe_state {
  std::deque<entry> q;
  bool busy = false;
  bool waiting = false;  // head is a WaitFlag whose flag is not set
  bool set_stalled = false;  // head is a SetFlag whose flag its WaitFlag has not consumed yet
  bool dep_wait = false;     // head waits for another pipe to finish a record it shares UB with
  std::uint32_t done = 0;    // records this pipe has finished (they finish in issue order)
  double start = 0;
  double busy_ns = 0;
};

enum class sblock : std::uint8_t { none, queue_full, flag, set_flag, drain, drain_sync, sync, dep, cross };

// Implicit serialisation: for one record, the number of records each pipe must have finished
// before it may start (0 = none), indexed by pipe (V, MTE2, MTE3; the scalar slot is unused).
struct deps {
  std::uint32_t need[pipe_count] = {0, 0, 0, 0};
};

struct block_state {
  const core_trace* tr = nullptr;
  std::uint32_t core = 0;
  std::uint32_t pc = 0;
  double s_time = 0;
  sblock blocked = sblock::none;
  int blocked_pipe = 0;
  std::uint32_t blocked_key = 0;
  bool started = false, issued_all = false, finished = false;
  double start_ns = 0, end_ns = 0;
  pipe_state pipes[pipe_count];
  std::unordered_map<std::uint32_t, bool> flags;
  std::uint32_t cross[16] = {};  // cross-core flag counters (CrossCoreSetFlag rounds not yet waited for)
  // SetFlag records that set their flag again with no WaitFlag of it in between in program
  // order (a real double set); any other SetFlag that finds its flag still set waits for it.
  std::vector<bool> double_set;
  std::vector<deps> dep;  // per record (empty when the trace records no UB ranges)
  double scalar_ns = 0, vec_ns = 0, bank_ns = 0;
  std::uint64_t in_bytes = 0, out_bytes = 0;
};

struct xfer {
  std::uint32_t block = 0;
  int pipe_idx = 0;
  double remaining = 0;  // effective bytes still to stream
  double cap = 0;        // per-core rate limit, bytes per ns
  double w_hbm = 1;      // share of the flow that loads HBM (the rest goes to L2)
  double rate = 0;
  std::uint64_t win_lo = 0, win_hi = 0;
  std::uint16_t gm_buf = 0;
  bool streaming = false;
  bool live = false;
};

std::uint32_t flag_key(pipe src, pipe dst, std::uint16_t event) {
  return (static_cast<std::uint32_t>(src) << 19) | (static_cast<std::uint32_t>(dst) << 16) | event;
}

// The L2 as the model sees it: resident chunks of GM (key: allocation id and chunk index), least
// recently used first out, dirty once written.
class l2_residency {
 public:
  double capacity = 0;  // bytes
  double chunk = 4096;  // bytes per chunk

  struct outcome {
    double hit = 0;        // bytes of the access found resident
    double writeback = 0;  // dirty bytes evicted to make room
  };

  outcome access(std::uint16_t buf, std::uint64_t addr, std::uint64_t bytes, bool write, bool allocate) {
    outcome o;
    const auto c = static_cast<std::uint64_t>(chunk);
    for (std::uint64_t k = addr / c; k <= (addr + bytes - 1) / c; ++k) {
      const std::uint64_t lo = std::max(addr, k * c), hi = std::min(addr + bytes, (k + 1) * c);
      touch((std::uint64_t{buf} << 48) | k, static_cast<double>(hi - lo), write, allocate, o);
    }
    return o;
  }

 private:
  struct line {
    std::list<std::uint64_t>::iterator pos;
    bool dirty = false;
  };

  void touch(std::uint64_t key, double part, bool write, bool allocate, outcome& o) {
    auto it = lines_.find(key);
    if (it != lines_.end()) {
      o.hit += part;
      lru_.splice(lru_.begin(), lru_, it->second.pos);
      it->second.dirty = it->second.dirty || write;
      return;
    }
    if (capacity < chunk) {
      o.writeback += write ? part : 0.0;  // no room at all: a write goes straight to HBM
      return;
    }
    if (!allocate) return;
    while (static_cast<double>(lines_.size() + 1) * chunk > capacity) evict(o);
    lru_.push_front(key);
    lines_.emplace(key, line{lru_.begin(), write});
  }

  void evict(outcome& o) {
    const std::uint64_t victim = lru_.back();
    lru_.pop_back();
    auto it = lines_.find(victim);
    if (it->second.dirty) o.writeback += chunk;
    lines_.erase(it);
  }

  std::list<std::uint64_t> lru_;
  std::unordered_map<std::uint64_t, line> lines_;
};

class simulator {
 public:
  simulator(const std::vector<core_trace>& traces, const timing_params& prm, const timing_options& opts)
      : prm_(prm), traces_(traces) {
    cores_ = opts.cores != 0 ? opts.cores : prm.aiv_cores;
    blocks_.resize(traces.size());
    const std::uint32_t n = static_cast<std::uint32_t>(traces.size());
    cores_used_ = std::min(n, cores_);
    waves_ = cores_used_ == 0 ? 0 : (n + cores_ - 1) / cores_;
    for (std::uint32_t i = 0; i < n; ++i) {
      ++kind_count_[static_cast<int>(traces[i].kind)];
      blocks_[i].tr = &traces[i];
      blocks_[i].core = i % std::max(cores_, 1u);
      mark_double_sets(blocks_[i]);
      mark_deps(blocks_[i]);
    }
    issue_ns_ = prm.api_issue_cycles / prm.clock_ghz;
    l2_.capacity = prm.l2_bytes;
    l2_.chunk = std::max(1.0, prm.l2_chunk_bytes);
    if (prm.l2_model && prm.l2_warm) warm_l2();
  }

  timing_report run() {
    for (std::uint32_t i = 0; i < cores_used_; ++i) start_block(i, 0.0);
    while (!events_.empty() && !error_) {
      const event e = events_.top();
      events_.pop();
      now_ = e.t;
      switch (e.type) {
        case ev::scalar: scalar_step(e.a); break;
        case ev::pipe: pipe_step(e.a, static_cast<int>(e.b)); break;
        case ev::pipe_done: pipe_done(e.a, static_cast<int>(e.b)); break;
        case ev::xfer_lat: xfer_latency_done(e.a); break;
        case ev::xfer_done: xfer_check(e.a); break;
      }
    }
    if (!error_) detect_stuck();
    return make_report();
  }

 private:
  // ---------------------------------------------------------------- events
  void push(double t, ev type, std::uint32_t a, std::uint32_t b = 0) {
    events_.push(event{t, seq_++, type, a, b});
  }

  const trace_rec& rec(const block_state& B, std::uint32_t i) const { return B.tr->recs[i]; }

  call_site site_of(const block_state& B, const trace_rec& r) const {
    if (r.site < B.tr->sites.size()) return B.tr->sites[r.site];
    return call_site{"<unknown>", 0, "", ""};
  }

  void fail(hw_error_kind kind, const block_state& B, const trace_rec& r, std::string msg) {
    if (error_) return;
    hw_error e;
    e.kind = kind;
    e.message = std::move(msg);
    e.site = site_of(B, r);
    e.block_idx = B.tr->block_idx;
    error_ = std::move(e);
  }

  double ns(double cycles) const { return cycles / prm_.clock_ghz; }

  // ---------------------------------------------------------------- L2 model
  // L2 residency in chunks, least recently used out (docs/sim.md "L2"). Each copy asks it, when
  // it starts, how many of its bytes hit L2 and how many dirty bytes its allocations evict.
  using l2_result = l2_residency::outcome;
  l2_result l2_access(const trace_rec& r) {
    const double nblocks = r.blocks == 0 ? 1.0 : static_cast<double>(r.blocks);
    const double bytes = nblocks * r.block_bytes;
    if (!prm_.l2_model || bytes <= 0) return {};
    const bool write = r.kind == rec_kind::copy_out;
    return l2_.access(r.gm_buf, r.gm_addr, static_cast<std::uint64_t>(bytes), write, write || !r.l2_bypass);
  }

  // The state the previous launch of this kernel leaves: its copies replayed once, the blocks'
  // copies taken in turn (one copy of each block per round), as they run side by side.
  void warm_l2() {
    std::vector<std::size_t> pos(blocks_.size(), 0);
    bool more = true;
    while (more) {
      more = false;
      for (std::size_t b = 0; b < blocks_.size(); ++b) {
        const auto& recs = blocks_[b].tr->recs;
        std::size_t& i = pos[b];
        while (i < recs.size() && recs[i].kind != rec_kind::copy_in && recs[i].kind != rec_kind::copy_out) ++i;
        if (i == recs.size()) continue;
        l2_access(recs[i++]);
        more = true;
      }
    }
  }

  // ---------------------------------------------------------------- blocks
  void start_block(std::uint32_t b, double t) {
    auto& B = blocks_[b];
    B.started = true;
    B.start_ns = t;
    B.s_time = t;
    push(t, ev::scalar, b);
  }

  void finish_block_if_done(std::uint32_t b) {
    auto& B = blocks_[b];
    if (B.finished || !B.issued_all || B.blocked != sblock::none) return;
    for (int p = 1; p < pipe_count; ++p)
      if (B.pipes[p].busy || !B.pipes[p].q.empty()) return;
    B.finished = true;
    B.end_ns = std::max(now_, B.s_time);
    const std::uint32_t next = b + cores_;
    if (next < blocks_.size()) start_block(next, B.end_ns);
  }

  bool drained(const block_state& B) const {
    for (int p = 1; p < pipe_count; ++p)
      if (B.pipes[p].busy || !B.pipes[p].q.empty()) return false;
    return true;
  }

  void resume_scalar(std::uint32_t b, double t) {
    auto& B = blocks_[b];
    B.blocked = sblock::none;
    B.s_time = std::max(B.s_time, t);
    push(B.s_time, ev::scalar, b);
  }

  // ---------------------------------------------------------------- scalar thread
  static int pipe_of(const trace_rec& r) {
    switch (r.kind) {
      case rec_kind::vector: return P_V;
      case rec_kind::copy_in: return P_MTE2;
      case rec_kind::copy_out: return r.p == pipe::fix ? P_FIX : P_MTE3;  // Fixpipe to GM runs on FIX
      case rec_kind::mmad: return P_M;
      case rec_kind::cube_move: return static_cast<int>(r.p);
      case rec_kind::cross_set: return r.p == pipe::all ? P_S : static_cast<int>(r.p);
      case rec_kind::copy_local: return r.p == pipe::s || r.p == pipe::all ? P_V : static_cast<int>(r.p);
      case rec_kind::set_flag: return static_cast<int>(r.src);
      case rec_kind::wait_flag: return static_cast<int>(r.dst);
      case rec_kind::barrier: return static_cast<int>(r.p);
      default: return P_S;
    }
  }

  void scalar_step(std::uint32_t b) {
    auto& B = blocks_[b];
    if (B.blocked != sblock::none || B.issued_all || B.finished) return;
    if (B.s_time > now_) return;  // a later event for this thread exists
    B.s_time = now_;
    const auto& recs = B.tr->recs;
    while (!error_) {
      if (B.pc >= recs.size()) {
        B.issued_all = true;
        finish_block_if_done(b);
        return;
      }
      const trace_rec& r = recs[B.pc];
      if (r.kind == rec_kind::scalar) {
        if (!deps_met(B, B.pc)) {
          // Wait at the thread's own time for the pipe that last wrote (or read) the UB it uses.
          if (B.s_time > now_) {
            push(B.s_time, ev::scalar, b);
          } else {
            B.blocked = sblock::dep;
          }
          return;
        }
        const double c = scalar_cycles(r);
        B.scalar_ns += ns(c);
        B.s_time += ns(c);
        ++B.pc;
        continue;
      }
      if ((r.kind == rec_kind::set_flag || r.kind == rec_kind::wait_flag) &&
          (r.src == pipe::all || r.dst == pipe::all)) {
        fail(hw_error_kind::invalid_use, B, r, "flag with PIPE_ALL as source or destination: use a concrete pipe pair (HardEvent)");
        return;
      }
      const int p = pipe_of(r);
      const bool inline_op = r.kind == rec_kind::sync_all || (r.kind == rec_kind::barrier && r.p == pipe::all) ||
                             p == P_S;
      if (inline_op) {
        // These act at the scalar thread's true time: never run ahead of the global clock.
        if (B.s_time > now_) {
          push(B.s_time, ev::scalar, b);
          return;
        }
        if (!scalar_inline(b, r)) return;
        continue;
      }
      auto& P = B.pipes[p];
      if (P.q.size() >= prm_.queue_depth) {
        B.blocked = sblock::queue_full;
        B.blocked_pipe = p;
        return;
      }
      const double ready = B.s_time + issue_ns_;
      B.scalar_ns += issue_ns_;
      B.s_time = ready;
      const bool kick = P.q.empty() && !P.busy;
      P.q.push_back(entry{B.pc, ready});
      ++B.pc;
      if (kick) push(ready, ev::pipe, b, static_cast<std::uint32_t>(p));
    }
  }

  double scalar_cycles(const trace_rec& r) const {
    double c = static_cast<double>(r.repeats) * prm_.elem_access_cycles + static_cast<double>(r.cycles);
    for (int k = 0; k < scalar_access_count; ++k) c += static_cast<double>(r.sacc[k]) * prm_.access_cycles[k];
    return c;
  }

  // Executes a scalar-pipe record at now_. Returns false when the thread blocked or failed.
  bool scalar_inline(std::uint32_t b, const trace_rec& r) {
    auto& B = blocks_[b];
    switch (r.kind) {
      case rec_kind::set_flag: {  // SetFlag<S_x>: the scalar pipe's earlier work is done by now
        // A re-set paired in program order whose earlier WaitFlag has not run yet: the scalar
        // thread waits for that WaitFlag, as a pipe does (set_must_wait).
        const auto key = flag_key(r.src, r.dst, r.event);
        auto it = B.flags.find(key);
        if (it != B.flags.end() && it->second && !B.double_set[B.pc]) {
          B.blocked = sblock::set_flag;
          B.blocked_key = key;
          return false;
        }
        B.scalar_ns += issue_ns_;
        B.s_time += issue_ns_;
        ++B.pc;
        set_flag(b, r, B.s_time);
        return !error_;
      }
      case rec_kind::wait_flag: {  // WaitFlag<x_S>: the scalar thread stops until it is set
        const auto key = flag_key(r.src, r.dst, r.event);
        auto it = B.flags.find(key);
        if (it != B.flags.end() && it->second) {
          it->second = false;
          flag_cleared(b, r);
          B.scalar_ns += issue_ns_;
          B.s_time += issue_ns_;
          ++B.pc;
          return true;
        }
        B.blocked = sblock::flag;
        B.blocked_key = key;
        return false;
      }
      case rec_kind::barrier:  // PIPE_ALL (a PIPE_S barrier does not exist; treat it as a no-op)
        if (r.p == pipe::s) {
          ++B.pc;
          return true;
        }
        if (drained(B)) {
          B.scalar_ns += issue_ns_;
          B.s_time += issue_ns_;
          ++B.pc;
          return true;
        }
        B.blocked = sblock::drain;
        return false;
      case rec_kind::cross_wait: {
        auto& n = B.cross[r.event & 15];
        if (n == 0) {
          B.blocked = sblock::cross;
          B.blocked_key = r.event & 15;
          return false;
        }
        --n;
        B.scalar_ns += issue_ns_;
        B.s_time += issue_ns_;
        ++B.pc;
        return true;
      }
      case rec_kind::cross_set:  // on the scalar pipe (not a documented pipe; kept working)
        B.scalar_ns += issue_ns_;
        B.s_time += issue_ns_;
        ++B.pc;
        cross_set(b, r);
        return !error_;
      case rec_kind::sync_all:
        if (waves_ > 1) {
          fail(hw_error_kind::sync_all_missing_core, B, r,
               "SyncAll with " + std::to_string(blocks_.size()) + " blocks on " + std::to_string(cores_) +
                   " cores: blocks of later waves never arrive, the chip hangs; keep blockDim <= the core count (" +
                   std::to_string(cores_) + ") in kernels that call SyncAll");
          return false;
        }
        if (!drained(B)) {
          B.blocked = sblock::drain_sync;
          return false;
        }
        arrive_sync(b);
        return false;
      default:
        fail(hw_error_kind::invalid_use, B, r, "record kind cannot run on the scalar pipe (trace is malformed)");
        return false;
    }
  }

  void arrive_sync(std::uint32_t b) {
    auto& B = blocks_[b];
    B.blocked = sblock::sync;
    // SyncAll meets the cores of the caller's kind (the AIVs of a mixed kernel apart from its AICs).
    const int k = static_cast<int>(B.tr->kind);
    sync_max_[k] = std::max(sync_max_[k], std::max(B.s_time, now_));
    if (++sync_arrived_[k] < kind_count_[k]) return;
    const double release = sync_max_[k] + ns(prm_.sync_all_cycles);
    sync_arrived_[k] = 0;
    sync_max_[k] = 0;
    for (std::uint32_t i = 0; i < blocks_.size(); ++i) {
      auto& X = blocks_[i];
      if (X.blocked != sblock::sync || static_cast<int>(X.tr->kind) != k) continue;
      ++X.pc;
      X.s_time = release;
      X.scalar_ns += ns(prm_.sync_all_cycles);
      X.blocked = sblock::none;
      push(release, ev::scalar, i);
    }
  }

  void on_pipe_idle(std::uint32_t b) {
    auto& B = blocks_[b];
    if ((B.blocked == sblock::drain || B.blocked == sblock::drain_sync) && drained(B)) {
      if (B.blocked == sblock::drain) {
        B.scalar_ns += issue_ns_;
        ++B.pc;
        B.blocked = sblock::none;
        B.s_time = std::max(B.s_time, now_) + issue_ns_;
        push(B.s_time, ev::scalar, b);
      } else {
        B.s_time = std::max(B.s_time, now_);
        arrive_sync(b);
      }
      return;
    }
    finish_block_if_done(b);
  }

  // ---------------------------------------------------------------- flags
  static void mark_double_sets(block_state& B) {
    const auto& recs = B.tr->recs;
    B.double_set.assign(recs.size(), false);
    std::unordered_map<std::uint32_t, bool> pending;
    for (std::size_t i = 0; i < recs.size(); ++i) {
      const trace_rec& r = recs[i];
      if (r.kind != rec_kind::set_flag && r.kind != rec_kind::wait_flag) continue;
      bool& p = pending[flag_key(r.src, r.dst, r.event)];
      if (r.kind == rec_kind::set_flag) {
        B.double_set[i] = p;
        p = true;
      } else {
        p = false;
      }
    }
  }

  // Implicit serialisation (docs/sim.md): a record that reads UB another pipe wrote, or writes UB
  // another pipe read or wrote, starts after that pipe's record finished, as on the chip where the
  // program (or the compiler) must order them. Tracked per 32 B of UB, by pipe ordinals.
  void mark_deps(block_state& B) const {
    const auto& recs = B.tr->recs;
    std::uint64_t top = 0;
    for (const auto& r : recs) {
      top = std::max<std::uint64_t>(top, std::uint64_t{r.ub_addr} + r.ub_bytes);
      for (int k = 0; k < 2; ++k) top = std::max<std::uint64_t>(top, std::uint64_t{r.src_addr[k]} + r.src_bytes[k]);
    }
    if (top == 0) return;
    const std::size_t cells = static_cast<std::size_t>((top + 31) / 32);
    std::vector<std::uint32_t> last_w[pipe_count], last_r[pipe_count];
    for (int q = 1; q < pipe_count; ++q) {
      last_w[q].assign(cells, 0);
      last_r[q].assign(cells, 0);
    }
    std::uint32_t issued[pipe_count] = {0, 0, 0, 0};
    B.dep.assign(recs.size(), deps{});
    for (std::size_t i = 0; i < recs.size(); ++i) {
      const trace_rec& r = recs[i];
      const int p = queued_pipe(r);
      if (p < 0) continue;
      deps& d = B.dep[i];
      auto over = [&](std::uint32_t addr, std::uint32_t len, auto&& f) {
        if (len == 0) return;
        for (std::size_t c = addr / 32; c <= (std::uint64_t{addr} + len - 1) / 32; ++c) f(c);
      };
      for (int q = 1; q < pipe_count; ++q) {
        if (q == p) continue;
        over(r.ub_addr, r.ub_bytes, [&](std::size_t c) { d.need[q] = std::max({d.need[q], last_w[q][c], last_r[q][c]}); });
        for (int k = 0; k < 2; ++k)
          over(r.src_addr[k], r.src_bytes[k], [&](std::size_t c) { d.need[q] = std::max(d.need[q], last_w[q][c]); });
      }
      if (p == P_S) continue;
      const std::uint32_t ord = ++issued[p];
      over(r.ub_addr, r.ub_bytes, [&](std::size_t c) { last_w[p][c] = ord; });
      for (int k = 0; k < 2; ++k) over(r.src_addr[k], r.src_bytes[k], [&](std::size_t c) { last_r[p][c] = ord; });
    }
  }

  // The pipe whose queue a record goes to (P_S for scalar work), or -1 for the records the scalar
  // thread runs inline (SyncAll, PIPE_ALL barriers, flags of the scalar pipe).
  static int queued_pipe(const trace_rec& r) {
    if (r.kind == rec_kind::scalar) return P_S;
    if (r.kind == rec_kind::sync_all || (r.kind == rec_kind::barrier && r.p == pipe::all)) return -1;
    const int p = pipe_of(r);
    return p == P_S || p >= pipe_count ? -1 : p;
  }

  bool deps_met(const block_state& B, std::uint32_t rec_index) const {
    if (B.dep.empty()) return true;
    const deps& d = B.dep[rec_index];
    for (int q = 1; q < pipe_count; ++q)
      if (B.pipes[q].done < d.need[q]) return false;
    return true;
  }

  // Pipe p of block b finished a record: wake what waited for it.
  void record_done(std::uint32_t b, int p) {
    auto& B = blocks_[b];
    ++B.pipes[p].done;
    for (int q = 1; q < pipe_count; ++q)
      if (q != p && B.pipes[q].dep_wait) push(now_, ev::pipe, b, static_cast<std::uint32_t>(q));
    if (B.blocked == sblock::dep && deps_met(B, B.pc)) resume_scalar(b, now_);
  }

  // A SetFlag on a pipe whose flag is still set although its program pairs every SetFlag with a
  // WaitFlag (the waiting pipe has not reached the earlier one's WaitFlag yet): the setting pipe
  // stalls until that WaitFlag clears the flag [ASSUMED: the chip's flag is one bit and real
  // kernels (cann-ops add_rms_norm_cast) rely on such re-sets completing].
  // (A scalar-source SetFlag stalls the scalar thread instead: scalar_inline.)
  bool set_must_wait(const block_state& B, std::uint32_t rec_index, const trace_rec& r) const {
    if (r.src == pipe::s || B.double_set[rec_index]) return false;
    auto it = B.flags.find(flag_key(r.src, r.dst, r.event));
    return it != B.flags.end() && it->second;
  }

  // A WaitFlag consumed the flag `key`: a pipe stalled on re-setting it may go on.
  void flag_cleared(std::uint32_t b, const trace_rec& wait_rec) {
    if (wait_rec.src == pipe::s) {
      auto& B = blocks_[b];
      if (B.blocked == sblock::set_flag && B.blocked_key == flag_key(wait_rec.src, wait_rec.dst, wait_rec.event)) {
        resume_scalar(b, now_);
      }
      return;
    }
    if (wait_rec.src == pipe::all) return;
    auto& P = blocks_[b].pipes[static_cast<int>(wait_rec.src)];
    if (P.set_stalled) push(now_, ev::pipe, b, static_cast<std::uint32_t>(wait_rec.src));
  }

  void set_flag(std::uint32_t b, const trace_rec& r, double t) {
    auto& B = blocks_[b];
    const auto key = flag_key(r.src, r.dst, r.event);
    bool& f = B.flags[key];
    if (f) {
      fail(hw_error_kind::double_set_event, B, r,
           "SetFlag<" + event_name(r) + "> while the flag is still set: the matching WaitFlag has not consumed the "
           "previous SetFlag (flags are binary; the chip may hang). Pair every SetFlag with one WaitFlag, or use "
           "another event id");
      return;
    }
    f = true;
    if (r.dst == pipe::s) {
      if (B.blocked == sblock::flag && B.blocked_key == key) {
        f = false;
        B.scalar_ns += issue_ns_;
        ++B.pc;
        resume_scalar(b, t);
      }
    } else if (r.dst != pipe::all) {
      auto& P = B.pipes[static_cast<int>(r.dst)];
      if (P.waiting) push(t, ev::pipe, b, static_cast<std::uint32_t>(r.dst));
    }
  }

  // ---------------------------------------------------------------- cross-core flags
  // CrossCoreSetFlag fired on block b at now_ (its pipe's earlier work done): a round of its
  // domain completes when every setter has set as often; then each receiver's counter rises and a
  // core waiting on it goes on (sim/runtime/mix.cpp has the same rules for the values).
  void cross_set(std::uint32_t b, const trace_rec& r) {
    const core_trace& me = *blocks_[b].tr;
    const std::uint32_t mode = r.repeats, flag = r.event & 15u;
    const core_kind other = me.kind == core_kind::aic ? core_kind::aiv : core_kind::aic;
    std::uint64_t key = mode == 0 ? static_cast<std::uint64_t>(me.kind)
                        : mode == 1 ? (std::uint64_t{1} << 40) | me.group
                                    : (std::uint64_t{2} << 40) | (std::uint64_t{me.kind == core_kind::aic} << 39) | me.group;
    key = (key << 4) | flag;
    auto& d = cross_[key];
    if (d.sets.empty()) {
      for (std::uint32_t i = 0; i < blocks_.size(); ++i) {
        const core_trace& t = *blocks_[i].tr;
        const bool same_core = mode == 0 || t.group == me.group;
        if (!same_core) continue;
        if (mode == 1 && t.kind != core_kind::aiv) continue;
        if (t.kind == me.kind) d.setters.push_back(i);
        if (mode == 2 ? t.kind == other : t.kind == me.kind) d.receivers.push_back(i);
      }
      d.sets.assign(d.setters.size(), 0);
    }
    const auto at = std::find(d.setters.begin(), d.setters.end(), b);
    if (at == d.setters.end()) return;
    ++d.sets[static_cast<std::size_t>(at - d.setters.begin())];
    const std::uint32_t rounds = *std::min_element(d.sets.begin(), d.sets.end());
    while (d.released < rounds) {
      ++d.released;
      for (std::uint32_t x : d.receivers) {
        auto& X = blocks_[x];
        ++X.cross[flag];
        if (X.blocked == sblock::cross && X.blocked_key == flag) {
          --X.cross[flag];
          X.scalar_ns += issue_ns_;
          ++X.pc;
          resume_scalar(x, now_ + issue_ns_);
        }
      }
    }
  }

  // ---------------------------------------------------------------- pipes
  void pipe_step(std::uint32_t b, int p) {
    auto& B = blocks_[b];
    auto& P = B.pipes[p];
    while (!P.busy && !P.q.empty() && !error_) {
      const entry e = P.q.front();
      if (e.ready > now_) {
        push(e.ready, ev::pipe, b, static_cast<std::uint32_t>(p));
        return;
      }
      const trace_rec& r = rec(B, e.rec);
      if (!deps_met(B, e.rec)) {
        P.dep_wait = true;
        return;
      }
      P.dep_wait = false;
      switch (r.kind) {
        case rec_kind::set_flag:
          if (set_must_wait(B, e.rec, r)) {
            P.set_stalled = true;
            return;
          }
          P.set_stalled = false;
          P.q.pop_front();
          set_flag(b, r, now_);
          record_done(b, p);
          break;
        case rec_kind::wait_flag: {
          auto it = B.flags.find(flag_key(r.src, r.dst, r.event));
          if (it == B.flags.end() || !it->second) {
            P.waiting = true;
            return;
          }
          it->second = false;
          P.waiting = false;
          P.q.pop_front();
          flag_cleared(b, r);
          record_done(b, p);
          break;
        }
        case rec_kind::barrier:
          P.q.pop_front();
          record_done(b, p);
          break;
        case rec_kind::cross_set:
          P.q.pop_front();
          cross_set(b, r);
          record_done(b, p);
          break;
        case rec_kind::vector:
        case rec_kind::copy_local: {
          P.q.pop_front();
          double bank_cycles = 0;
          const double c = r.kind == rec_kind::vector ? vector_cycles(r, bank_cycles) : ub_copy_cycles(r);
          P.busy = true;
          P.start = now_;
          B.vec_ns += ns(c);
          B.bank_ns += ns(bank_cycles);
          push(now_ + ns(c), ev::pipe_done, b, static_cast<std::uint32_t>(p));
          break;
        }
        case rec_kind::copy_in:
        case rec_kind::copy_out:
          P.q.pop_front();
          P.busy = true;
          P.start = now_;
          start_xfer(b, p, r);
          break;
        case rec_kind::mmad:
        case rec_kind::cube_move: {
          P.q.pop_front();
          const double c = r.kind == rec_kind::mmad ? mmad_cycles(r) : cube_move_cycles(r);
          P.busy = true;
          P.start = now_;
          push(now_ + ns(c), ev::pipe_done, b, static_cast<std::uint32_t>(p));
          break;
        }
        default:
          P.q.pop_front();
          fail(hw_error_kind::invalid_use, B, r, "record kind cannot run on a pipe (trace is malformed)");
          return;
      }
      if (B.blocked == sblock::queue_full && B.blocked_pipe == p) resume_scalar(b, now_);
    }
    if (!P.busy && P.q.empty()) on_pipe_idle(b);
  }

  void pipe_done(std::uint32_t b, int p) {
    auto& P = blocks_[b].pipes[p];
    P.busy = false;
    P.busy_ns += now_ - P.start;
    record_done(b, p);
    pipe_step(b, p);
  }

  double vector_cycles(const trace_rec& r, double& bank_cycles) const {
    const double cpr = prm_.cycles_per_repeat(r.vclass, r.dtype_bytes);
    const double per = std::max(cpr, static_cast<double>(r.bank_cycles));
    if (r.repeats == 0) return prm_.vec_floor_cycles;
    const std::uint32_t mx = prm_.max_repeats;
    auto chunk = [&](std::uint32_t n) { return std::max(prm_.vec_floor_cycles, prm_.vec_head_cycles + n * per); };
    const std::uint32_t full = r.repeats / mx, rem = r.repeats % mx;
    bank_cycles = static_cast<double>(r.repeats) * std::max(0.0, static_cast<double>(r.bank_cycles) - cpr);
    return full * chunk(mx) + (rem != 0 ? chunk(rem) : 0.0);
  }

  // Mmad: one fractal step (16 x C0 by C0 x 16, C0 = 32 B / input element) per
  // mmad_cycles_per_fractal cycles over ceil(m/16) x ceil(k/C0) x ceil(n/16) steps, plus a head.
  double mmad_cycles(const trace_rec& r) const {
    const std::uint32_t elem = r.dtype_bytes == 0 ? 2 : r.dtype_bytes;
    const std::uint32_t c0 = 32 / elem;
    const double steps = static_cast<double>((r.blocks + 15) / 16) * ((r.repeats + c0 - 1) / c0) *
                         ((r.block_bytes + 15) / 16);
    double per = prm_.mmad_cycles_per_fractal[elem == 1 ? 0 : elem == 2 ? 1 : 2];
    // event 1 on a b32 Mmad: HF32 mode, twice the fp32 rate (asc_enable_hf32.md, arch 2201:
    // cube_k 4 -> 8 elements per cycle).
    if (elem == 4 && r.event == 1) per /= 2.0;
    return prm_.mmad_head_cycles + steps * per;
  }
  // LoadData L1 -> L0A/L0B on MTE1 (each buffer's rate; `event` 1 marks L0B), and L0C -> L1/UB
  // on FIX (read L0C, then write out).
  double cube_move_cycles(const trace_rec& r) const {
    const double bytes = static_cast<double>(r.blocks == 0 ? 1 : r.blocks) * r.block_bytes;
    if (r.p == pipe::mte1 || r.p == pipe::mte3 || r.p == pipe::mte2) {  // MTE3: UB -> L1, MTE2: Fill [ASSUMED: L0B's rate]
      const double rate = r.event == 1 ? prm_.mte1_l0b_bytes_per_cycle : prm_.mte1_l0a_bytes_per_cycle;
      return prm_.mte1_start_cycles + bytes / rate;
    }
    const double src = static_cast<double>(r.src_bytes[0]);
    return prm_.mte1_start_cycles + src / prm_.fix_l0c_bytes_per_cycle + bytes / prm_.fix_out_bytes_per_cycle;
  }

  double ub_copy_cycles(const trace_rec& r) const {
    const double bytes = static_cast<double>(r.blocks == 0 ? 1 : r.blocks) * r.block_bytes;
    return std::max(prm_.vec_floor_cycles, prm_.vec_head_cycles + bytes / prm_.ub_copy_bytes_per_cycle);
  }

  // ---------------------------------------------------------------- transfers
  void start_xfer(std::uint32_t b, int p, const trace_rec& r) {
    auto& B = blocks_[b];
    const bool read = r.kind == rec_kind::copy_in;
    const double nblocks = r.blocks == 0 ? 1.0 : static_cast<double>(r.blocks);
    const double bytes = nblocks * r.block_bytes;
    (read ? B.in_bytes : B.out_bytes) += static_cast<std::uint64_t>(bytes);
    const double burst = r.block_bytes > 0 ? r.block_bytes : 1.0;
    const dma_curve& curve = read ? prm_.gm_to_ub : prm_.ub_to_gm;
    const double stream_ns = std::max(curve.time_ns(burst) - prm_.dma_latency_ns, 1e-3);
    double cap = burst / stream_ns;
    // Alignment: GM traffic goes in 128/256/512 B requests per 512 B window, partial pieces
    // round up (chip traffic grows); a transfer not 512 B aligned also runs the core's DMA engine
    // at align_eff_32b (32 B aligned) or align_eff_unaligned of its rate.
    const std::uint64_t w = prm_.window_bytes;
    const bool multi = r.blocks > 1;
    double requested = bytes;
    if (r.gm_addr % w != 0 || r.block_bytes % w != 0) {
      requested = nblocks * requested_bytes(r.gm_addr % w, r.block_bytes, w);
      const bool al32 = r.gm_addr % 32 == 0 && (!multi || r.block_bytes % 32 == 0);
      if (r.gm_addr % w != 0 || multi) cap *= al32 ? prm_.align_eff_32b : prm_.align_eff_unaligned;
      // `cap` was derived from the useful bytes of a burst; the flow drains the requested
      // (rounded-up) bytes, so scale the rate alike: rounding costs chip bandwidth (shared
      // below), not extra per-core DMA time for tiny bursts (4 B padded to 128 B would
      // otherwise take 32x its measured time).
      if (requested > bytes && bytes > 0) cap *= requested / bytes;
    }
    double latency_ns = prm_.dma_latency_ns;
    if (read && r.event == 2) {
      // GM -> L1 with ND -> NZ (Huawei's gemm cycle model): each row a burst of 512/256/128 B
      // packages, 512 B at nd2nz_bytes_per_cycle each, after nd2nz_start_cycles.
      std::uint64_t left = r.block_bytes, packages = 0;
      for (std::uint64_t piece : {512u, 256u, 128u}) {
        packages += left / piece;
        left %= piece;
      }
      if (left != 0) ++packages;
      const double row_ns = ns(static_cast<double>(packages) * 512.0 / prm_.nd2nz_bytes_per_cycle);
      cap = row_ns > 0 ? static_cast<double>(r.block_bytes) / row_ns : cap;
      requested = bytes;
      latency_ns += ns(prm_.nd2nz_start_cycles);
    } else if (!read && r.p == pipe::fix) {
      // Fixpipe L0C -> GM: L0C read at fix_l0c_bytes_per_cycle and the output at
      // fix_out_bytes_per_cycle (same model), then the chip's share as any GM write.
      const double c = static_cast<double>(r.src_bytes[0]) / prm_.fix_l0c_bytes_per_cycle + bytes / prm_.fix_out_bytes_per_cycle;
      cap = c > 0 ? bytes / ns(c) : cap;
      requested = bytes;
    }
    std::uint32_t id;
    if (!free_.empty()) {
      id = free_.back();
      free_.pop_back();
    } else {
      id = static_cast<std::uint32_t>(xfers_.size());
      xfers_.emplace_back();
    }
    xfer& x = xfers_[id];
    x = xfer{};
    x.block = b;
    x.pipe_idx = p;
    x.live = true;
    x.remaining = std::max(requested, bytes);
    x.gm_buf = r.gm_buf;
    x.win_lo = r.gm_addr / w;
    x.win_hi = (r.gm_addr + static_cast<std::uint64_t>(std::max(bytes, 1.0)) - 1) / w;
    // Several cores on the same 512 B windows serialise.
    for (std::uint32_t o : in_flight_) {
      const xfer& y = xfers_[o];
      if (y.block != b && y.gm_buf == x.gm_buf && y.win_lo <= x.win_hi && x.win_lo <= y.win_hi) {
        cap *= prm_.same_window_eff;
        break;
      }
    }
    x.cap = cap;
    const l2_result l2 = l2_access(r);
    if (!prm_.l2_model) {
      x.w_hbm = 1.0;
    } else {
      const double miss = read ? bytes - l2.hit : 0.0;
      x.w_hbm = bytes > 0 ? (miss + l2.writeback) / bytes : 1.0;
    }
    (read ? l2_hit_bytes_ : l2_write_bytes_) += read ? l2.hit : bytes;
    l2_writeback_bytes_ += l2.writeback;
    in_flight_.push_back(id);
    push(now_ + latency_ns, ev::xfer_lat, id);
  }

  // Bytes requested from GM for one burst of `len` bytes starting `off` bytes into a window of
  // `w` bytes: each piece inside one window rounds up to a 128, 256 or w byte request.
  static double requested_bytes(std::uint64_t off, std::uint64_t len, std::uint64_t w) {
    auto round_up = [w](std::uint64_t piece) -> double {
      if (piece <= 128 && w >= 128) return 128;
      if (piece <= 256 && w >= 256) return 256;
      return static_cast<double>(((piece + w - 1) / w) * w);
    };
    if (len == 0) return 0;
    const std::uint64_t head = std::min(len, w - off);
    double total = round_up(head);
    const std::uint64_t rest = len - head;
    total += static_cast<double>(rest / w) * static_cast<double>(w);
    if (rest % w != 0) total += round_up(rest % w);
    return total;
  }

  void advance_flows() {
    const double dt = now_ - flow_time_;
    if (dt > 0) {
      for (std::uint32_t id : streaming_) xfers_[id].remaining -= xfers_[id].rate * dt;
    }
    flow_time_ = now_;
  }

  // Max-min fair rates: first over HBM (weights w_hbm), then the L2 part of writes.
  void recompute_rates() {
    fixed_.assign(streaming_.size(), 0);
    double budget = prm_.hbm_gbs;
    for (std::size_t i = 0; i < streaming_.size(); ++i) {
      xfer& x = xfers_[streaming_[i]];
      x.rate = x.cap;
      if (x.w_hbm <= 0) fixed_[i] = 1;
    }
    for (int iter = 0; iter < 64; ++iter) {
      double sumw = 0;
      for (std::size_t i = 0; i < streaming_.size(); ++i)
        if (!fixed_[i]) sumw += xfers_[streaming_[i]].w_hbm;
      if (sumw <= 0) break;
      const double lambda = budget / sumw;
      bool changed = false;
      for (std::size_t i = 0; i < streaming_.size(); ++i) {
        if (fixed_[i]) continue;
        xfer& x = xfers_[streaming_[i]];
        if (x.cap <= lambda) {
          x.rate = x.cap;
          budget -= x.w_hbm * x.cap;
          fixed_[i] = 1;
          changed = true;
        }
      }
      if (!changed) {
        for (std::size_t i = 0; i < streaming_.size(); ++i)
          if (!fixed_[i]) xfers_[streaming_[i]].rate = lambda;
        break;
      }
    }
    double l2_load = 0;
    for (std::uint32_t id : streaming_) l2_load += (1.0 - xfers_[id].w_hbm) * xfers_[id].rate;
    if (l2_load > prm_.l2_gbs) {
      const double scale = prm_.l2_gbs / l2_load;
      for (std::uint32_t id : streaming_) {
        xfer& x = xfers_[id];
        if (x.w_hbm < 1.0) x.rate *= scale + (1.0 - scale) * x.w_hbm;
      }
    }
    double dt_min = std::numeric_limits<double>::infinity();
    for (std::uint32_t id : streaming_) {
      const xfer& x = xfers_[id];
      dt_min = std::min(dt_min, std::max(x.remaining, 0.0) / x.rate);
    }
    ++flow_version_;
    if (std::isfinite(dt_min)) push(now_ + dt_min, ev::xfer_done, flow_version_);
  }

  void xfer_latency_done(std::uint32_t id) {
    advance_flows();
    xfers_[id].streaming = true;
    streaming_.push_back(id);
    recompute_rates();
  }

  void xfer_check(std::uint32_t version) {
    if (version != flow_version_) return;
    advance_flows();
    for (std::size_t i = 0; i < streaming_.size();) {
      const std::uint32_t id = streaming_[i];
      xfer& x = xfers_[id];
      if (x.remaining <= 1e-6 * std::max(1.0, x.rate)) {
        streaming_[i] = streaming_.back();
        streaming_.pop_back();
        finish_xfer(id);
      } else {
        ++i;
      }
    }
    recompute_rates();
  }

  void finish_xfer(std::uint32_t id) {
    xfer& x = xfers_[id];
    x.live = false;
    x.streaming = false;
    auto it = std::find(in_flight_.begin(), in_flight_.end(), id);
    if (it != in_flight_.end()) {
      *it = in_flight_.back();
      in_flight_.pop_back();
    }
    free_.push_back(id);
    pipe_done(x.block, x.pipe_idx);
  }

  // ---------------------------------------------------------------- end of replay
  void detect_stuck() {
    for (std::uint32_t b = 0; b < blocks_.size() && !error_; ++b) {
      auto& B = blocks_[b];
      if (B.finished) continue;
      if (!B.started) continue;  // its core is stuck on an earlier block (reported there)
      for (int p = 1; p < pipe_count && !error_; ++p) {
        const auto& P = B.pipes[p];
        if (P.set_stalled && !P.q.empty()) {
          const trace_rec& r = rec(B, P.q.front().rec);
          fail(hw_error_kind::deadlock, B, r,
               "SetFlag<" + event_name(r) + "> waits for its flag to be consumed, and the WaitFlag that would consume "
               "it never runs (deadlock)");
          break;
        }
        if (P.waiting && !P.q.empty()) {
          const trace_rec& r = rec(B, P.q.front().rec);
          fail(hw_error_kind::deadlock, B, r,
               "WaitFlag<" + event_name(r) + "> on pipe " + pipe_name(r.dst) +
                   " can never be satisfied: no SetFlag<" + std::string(pipe_name(r.src)) + "_" + pipe_name(r.dst) +
                   "> with this id is pending or still to come on block " + std::to_string(B.tr->block_idx) +
                   " (deadlock). Add the matching SetFlag before this wait (for queues: EnQue before DeQue, "
                   "FreeTensor before the next AllocTensor)");
        }
      }
      if (error_) break;
      if (B.blocked == sblock::set_flag && B.pc < B.tr->recs.size()) {
        const trace_rec& r = rec(B, B.pc);
        fail(hw_error_kind::deadlock, B, r,
             "SetFlag<" + event_name(r) + "> on the scalar pipe waits for its flag to be consumed, and the WaitFlag "
             "that would consume it never runs (deadlock)");
      } else if (B.blocked == sblock::flag && B.pc < B.tr->recs.size()) {
        const trace_rec& r = rec(B, B.pc);
        fail(hw_error_kind::deadlock, B, r,
             "WaitFlag<" + event_name(r) + "> on the scalar pipe can never be satisfied: no matching SetFlag is "
             "pending or still to come on block " + std::to_string(B.tr->block_idx) +
             " (deadlock). Add the matching SetFlag before this wait");
      } else if (B.blocked == sblock::cross && B.pc < B.tr->recs.size()) {
        const trace_rec& r = rec(B, B.pc);
        fail(hw_error_kind::deadlock, B, r,
             "CrossCoreWaitFlag(" + std::to_string(r.event) + ") on " + core_kind_name(B.tr->kind) + " " +
                 std::to_string(B.tr->block_idx) +
                 " never goes on: its domain's cores did not all set the flag as often (deadlock)");
      } else if (B.blocked == sblock::sync && B.pc < B.tr->recs.size()) {
        std::string missing;
        for (const auto& X : blocks_) {
          if (X.blocked != sblock::sync) {
            if (!missing.empty()) missing += ", ";
            missing += std::to_string(X.tr->block_idx);
          }
        }
        const trace_rec& r = rec(B, B.pc);
        fail(hw_error_kind::sync_all_missing_core, B, r,
             "SyncAll never completes: block(s) " + missing +
                 " finished or stopped without reaching the same number of SyncAll calls; every block must call "
                 "SyncAll the same number of times");
      } else if (B.pc < B.tr->recs.size()) {
        const trace_rec& r = rec(B, B.pc);
        fail(hw_error_kind::deadlock, B, r, "block " + std::to_string(B.tr->block_idx) +
                                                " stopped here and never finished (deadlock through a flag wait on a pipe)");
      }
    }
  }

  timing_report make_report() const {
    timing_report rep;
    rep.profile = prm_.profile_name;
    // A mixed kernel's blocks are AI Cores (one AIC and its AIVs: `per` traces each); its vector
    // averages are over the AIVs used, its Cube averages over the AICs used.
    const std::size_t n_aic = kind_count_[static_cast<int>(core_kind::aic)];
    const std::size_t n_aiv = kind_count_[static_cast<int>(core_kind::aiv)];
    const bool mixed = n_aic > 0 && n_aiv > 0;
    const std::uint32_t per = mixed ? static_cast<std::uint32_t>(blocks_.size() / n_aic) : 1;
    const std::uint32_t ai_cores_used = cores_used_ / per;
    rep.block_dim = static_cast<std::uint32_t>(blocks_.size()) / per;
    rep.cores_used = ai_cores_used;
    rep.waves = waves_;
    rep.error = error_;
    rep.l2_write_hbm_fraction = !prm_.l2_model ? 1.0 : l2_write_bytes_ > 0 ? l2_writeback_bytes_ / l2_write_bytes_ : 0.0;
    rep.l2_read_hit_kb = l2_hit_bytes_ / 1024.0;
    double aiv_ns = 0, vec = 0, scalar = 0, mte2 = 0, mte3 = 0, bank = 0, mte1 = 0, mac = 0, fix = 0;
    std::uint64_t in = 0, out = 0;
    for (const auto& B : blocks_) {
      block_timing bt;
      bt.block_idx = B.tr->block_idx;
      bt.core = B.core;
      bt.start_us = B.start_ns / 1000.0;
      bt.end_us = (B.finished ? B.end_ns : now_) / 1000.0;
      bt.vec_us = B.vec_ns / 1000.0;
      bt.scalar_us = B.scalar_ns / 1000.0;
      bt.mte2_us = B.pipes[P_MTE2].busy_ns / 1000.0;
      bt.mte3_us = B.pipes[P_MTE3].busy_ns / 1000.0;
      bt.mte1_us = B.pipes[P_MTE1].busy_ns / 1000.0;
      bt.mac_us = B.pipes[P_M].busy_ns / 1000.0;
      bt.fix_us = B.pipes[P_FIX].busy_ns / 1000.0;
      mte1 += bt.mte1_us;
      mac += bt.mac_us;
      fix += bt.fix_us;
      bt.bank_conflict_us = B.bank_ns / 1000.0;
      bt.gm_to_ub_bytes = B.in_bytes;
      bt.ub_to_gm_bytes = B.out_bytes;
      aiv_ns = std::max(aiv_ns, bt.end_us * 1000.0);
      vec += bt.vec_us;
      scalar += bt.scalar_us;
      mte2 += bt.mte2_us;
      mte3 += bt.mte3_us;
      bank += bt.bank_conflict_us;
      in += B.in_bytes;
      out += B.out_bytes;
      rep.blocks.push_back(bt);
    }
    const double n = std::max<double>(mixed ? ai_cores_used * (per - 1) : cores_used_, 1.0);
    const double n_cube = std::max<double>(mixed ? ai_cores_used : cores_used_, 1.0);
    rep.aiv_time_us = aiv_ns / 1000.0;
    rep.task_duration_us = prm_.launch_base_us + prm_.head_per_core_us * ai_cores_used + rep.aiv_time_us;
    rep.vec_us = vec / n;
    rep.scalar_us = scalar / n;
    rep.mte2_us = mte2 / n;
    rep.mte3_us = mte3 / n;
    rep.mte1_us = mte1 / n_cube;
    rep.mac_us = mac / n_cube;
    rep.fix_us = fix / n_cube;
    if (rep.aiv_time_us > 0) {
      rep.vec_ratio = rep.vec_us / rep.aiv_time_us;
      rep.scalar_ratio = rep.scalar_us / rep.aiv_time_us;
      rep.mte2_ratio = rep.mte2_us / rep.aiv_time_us;
      rep.mte3_ratio = rep.mte3_us / rep.aiv_time_us;
      rep.mac_ratio = rep.mac_us / rep.aiv_time_us;
    }
    rep.bank_conflict_ratio = vec > 0 ? bank / vec : 0.0;
    rep.gm_to_ub_kb = static_cast<double>(in) / 1024.0;
    rep.ub_to_gm_kb = static_cast<double>(out) / 1024.0;
    return rep;
  }

  const timing_params& prm_;
  const std::vector<core_trace>& traces_;
  std::uint32_t cores_ = 1, cores_used_ = 0, waves_ = 0;
  double issue_ns_ = 0;
  l2_residency l2_;
  double l2_hit_bytes_ = 0, l2_write_bytes_ = 0, l2_writeback_bytes_ = 0;

  std::vector<block_state> blocks_;
  std::priority_queue<event, std::vector<event>, event_later> events_;
  std::uint64_t seq_ = 0;
  double now_ = 0;
  std::optional<hw_error> error_;
  // flows
  std::vector<xfer> xfers_;
  std::vector<std::uint32_t> free_, streaming_, in_flight_;
  std::vector<char> fixed_;
  double flow_time_ = 0;
  std::uint32_t flow_version_ = 0;
  // SyncAll, per core kind
  std::size_t sync_arrived_[2] = {0, 0};
  double sync_max_[2] = {0, 0};
  std::size_t kind_count_[2] = {0, 0};
  // Cross-core flags: per domain (mode, kind or AI Core, flag) the rounds each setter made.
  struct cross_domain {
    std::vector<std::uint32_t> setters, receivers, sets;
    std::uint32_t released = 0;
  };
  std::map<std::uint64_t, cross_domain> cross_;
};

}  // namespace

timing_report simulate(const std::vector<core_trace>& traces, const timing_params& params,
                       const timing_options& opts) {
  simulator sim(traces, params, opts);
  return sim.run();
}

timing_report simulate(const std::vector<core_trace>& traces, const device_profile& profile,
                       const timing_options& opts) {
  const timing_params params = parse_timing_params(profile.raw, "profile '" + profile.name + "'");
  return simulate(traces, params, opts);
}

}  // namespace aopt::sim
