// Builds synthetic traces for the timing-model tests, each record with its own call site
// ("synthetic.cpp", line = the `line` argument) so error messages can be checked.
#pragma once

#include <string>
#include <vector>

#include "aopt_sim/trace.h"

namespace aopt::sim::test {

class trace_builder {
 public:
  explicit trace_builder(std::uint32_t block_idx = 0) { tr_.block_idx = block_idx; }

  trace_builder& copy_in(std::uint64_t gm, std::uint32_t bytes, std::uint32_t line = 0, bool bypass = false) {
    trace_rec r = base(rec_kind::copy_in, pipe::mte2, line, "DataCopy");
    r.blocks = 1;
    r.block_bytes = bytes;
    r.gm_addr = gm;
    r.l2_bypass = bypass;
    return add(r);
  }
  trace_builder& copy_out(std::uint64_t gm, std::uint32_t bytes, std::uint32_t line = 0) {
    trace_rec r = base(rec_kind::copy_out, pipe::mte3, line, "DataCopy");
    r.blocks = 1;
    r.block_bytes = bytes;
    r.gm_addr = gm;
    return add(r);
  }
  trace_builder& vec(std::uint32_t repeats, vec_class c = vec_class::binary, std::uint16_t bank_cycles = 0,
                     std::uint8_t dtype_bytes = 2, std::uint32_t line = 0) {
    trace_rec r = base(rec_kind::vector, pipe::v, line, "Add");
    r.repeats = repeats;
    r.vclass = c;
    r.bank_cycles = bank_cycles;
    r.dtype_bytes = dtype_bytes;
    return add(r);
  }
  trace_builder& set(pipe src, pipe dst, std::uint16_t ev, std::uint32_t line = 0) {
    trace_rec r = base(rec_kind::set_flag, src, line, "SetFlag");
    r.src = src;
    r.dst = dst;
    r.event = ev;
    return add(r);
  }
  trace_builder& wait(pipe src, pipe dst, std::uint16_t ev, std::uint32_t line = 0) {
    trace_rec r = base(rec_kind::wait_flag, dst, line, "WaitFlag");
    r.src = src;
    r.dst = dst;
    r.event = ev;
    return add(r);
  }
  trace_builder& barrier(pipe p, std::uint32_t line = 0) { return add(base(rec_kind::barrier, p, line, "PipeBarrier")); }
  trace_builder& sync_all(std::uint32_t line = 0) { return add(base(rec_kind::sync_all, pipe::s, line, "SyncAll")); }
  trace_builder& scalar(std::uint32_t accesses, std::uint64_t cycles = 0, std::uint32_t line = 0) {
    trace_rec r = base(rec_kind::scalar, pipe::s, line, "GetValue");
    r.repeats = accesses;
    r.cycles = cycles;
    return add(r);
  }
  core_trace build() const { return tr_; }

 private:
  trace_rec base(rec_kind k, pipe p, std::uint32_t line, const char* api) {
    trace_rec r;
    r.kind = k;
    r.p = p;
    r.site = static_cast<std::uint32_t>(tr_.sites.size());
    tr_.sites.push_back(call_site{"synthetic.cpp", line, "kernel", api});
    return r;
  }
  trace_builder& add(const trace_rec& r) {
    tr_.recs.push_back(r);
    return *this;
  }
  core_trace tr_;
};

}  // namespace aopt::sim::test
