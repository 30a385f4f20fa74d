// Mixed AIC/AIV kernels: the kernel types a kernel declares, where each core of a launch sits,
// and the cross-core flags (CrossCoreSetFlag / CrossCoreWaitFlag, modes 0, 1 and 2) as the
// AscendC reference describes them ("核间同步", "关键特性说明"): every core has 16 counters; a
// round of sets in a domain raises the receivers' counters by one once every setter of the
// domain has set; a wait blocks its core until its counter is non-zero, then takes one.
#include <algorithm>
#include <string>

#include "internal.h"

namespace aopt::sim {

const char* kernel_type_name(kernel_type t) {
  switch (t) {
    case kernel_type::aiv_only: return "KERNEL_TYPE_AIV_ONLY";
    case kernel_type::aic_only: return "KERNEL_TYPE_AIC_ONLY";
    case kernel_type::mix_aic_1_0: return "KERNEL_TYPE_MIX_AIC_1_0";
    case kernel_type::mix_aic_1_1: return "KERNEL_TYPE_MIX_AIC_1_1";
    case kernel_type::mix_aic_1_2: return "KERNEL_TYPE_MIX_AIC_1_2";
    case kernel_type::mix_aiv_1_0: return "KERNEL_TYPE_MIX_AIV_1_0";
  }
  return "?";
}

namespace {
struct declared_types {
  std::mutex mu;
  std::optional<kernel_type> fallback;
  std::optional<kernel_type> inferred;
  std::map<std::uint64_t, kernel_type> keyed;
};
declared_types& declared() {
  static declared_types d;
  return d;
}
}  // namespace

void declare_kernel_type(kernel_type t, bool keyed, std::uint64_t key) {
  auto& d = declared();
  std::lock_guard lk(d.mu);
  if (keyed) {
    d.keyed[key] = t;
  } else {
    d.fallback = t;
  }
}

void declare_inferred_kernel_type(kernel_type t) {
  auto& d = declared();
  std::lock_guard lk(d.mu);
  // A kernel's Cube instructions infer AIC-only, its Matmul API use mixed 1:2 (which also
  // instantiates Mmad): the marks register in any order at load, and the mixed one wins.
  if (t == kernel_type::aic_only && d.inferred) return;
  d.inferred = t;
}

std::optional<kernel_type> declared_kernel_type(std::uint64_t tiling_key) {
  auto& d = declared();
  std::lock_guard lk(d.mu);
  auto it = d.keyed.find(tiling_key);
  if (it != d.keyed.end()) return it->second;
  return d.fallback ? d.fallback : d.inferred;
}

void clear_declared_kernel_types() {
  auto& d = declared();
  std::lock_guard lk(d.mu);
  d.fallback.reset();
  d.inferred.reset();
  d.keyed.clear();
}

namespace detail {

void place_core(const launch_options& opts, std::uint32_t unit, core_context& ctx) {
  const std::uint32_t aic = kernel_aic_per_block(opts.kernel);
  const std::uint32_t aiv = kernel_aiv_per_block(opts.kernel);
  const std::uint32_t per = aic + aiv;
  ctx.unit = unit;
  ctx.kernel = opts.kernel;
  ctx.group = unit / per;
  const std::uint32_t member = unit % per;
  if (member < aic) {
    ctx.kind = core_kind::aic;
    ctx.sub_block = 0;
    ctx.block_idx = ctx.group;
  } else {
    ctx.kind = core_kind::aiv;
    ctx.sub_block = member - aic;
    // GetBlockIdx on an AIV of a 1:2 kernel: [0, 2 * blockDim), the AI Core's two AIVs side by side.
    ctx.block_idx = ctx.group * aiv + ctx.sub_block;
  }
}

void prepare_launch_barrier(const launch_options& opts, launch_barrier& b) {
  b.kernel = opts.kernel;
  b.groups = opts.block_dim;
  b.participants[static_cast<int>(core_kind::aic)] = opts.block_dim * kernel_aic_per_block(opts.kernel);
  b.participants[static_cast<int>(core_kind::aiv)] = opts.block_dim * kernel_aiv_per_block(opts.kernel);
  b.counters.assign(std::size_t{opts.block_dim} * cores_per_block(opts.kernel), {});
}

}  // namespace detail

namespace {

using detail::core_context;
using detail::launch_barrier;

core_context& ctx_or_fail_mix(const char* api) {
  core_context* c = detail::current_core();
  if (c == nullptr) {
    hw_error e;
    e.kind = hw_error_kind::invalid_use;
    e.message = std::string(api) + " was called outside an emulated core";
    e.site.api = api;
    throw hw_fault{std::move(e)};
  }
  return *c;
}

// The cores of a domain: who must set, who receives.
struct domain_cores {
  std::vector<std::uint32_t> setters;
  std::vector<std::uint32_t> receivers;
  std::uint32_t my_index = 0;  // the caller among the setters
  std::uint64_t key = 0;
};

std::uint32_t unit_of(kernel_type t, std::uint32_t group, core_kind kind, std::uint32_t sub) {
  const std::uint32_t per = detail::cores_per_block(t);
  return group * per + (kind == core_kind::aic ? 0 : kernel_aic_per_block(t) + sub);
}

std::vector<std::uint32_t> cores_of(const launch_barrier& b, core_kind kind, std::optional<std::uint32_t> group) {
  std::vector<std::uint32_t> out;
  const std::uint32_t n = kind == core_kind::aic ? kernel_aic_per_block(b.kernel) : kernel_aiv_per_block(b.kernel);
  for (std::uint32_t g = 0; g < b.groups; ++g) {
    if (group && *group != g) continue;
    for (std::uint32_t s = 0; s < n; ++s) out.push_back(unit_of(b.kernel, g, kind, s));
  }
  return out;
}

domain_cores domain_of(const launch_barrier& b, const core_context& c, std::uint8_t mode, std::uint32_t flag) {
  domain_cores d;
  const core_kind other = c.kind == core_kind::aic ? core_kind::aiv : core_kind::aic;
  switch (mode) {
    case 0:  // every core of the caller's kind in the launch
      d.setters = cores_of(b, c.kind, std::nullopt);
      d.receivers = d.setters;
      d.key = static_cast<std::uint64_t>(c.kind);
      break;
    case 1:  // the AIVs of one AI Core
      d.setters = cores_of(b, core_kind::aiv, c.group);
      d.receivers = d.setters;
      d.key = (std::uint64_t{1} << 40) | c.group;
      break;
    default:  // 2: the AIC towards its AIVs, or the AIVs towards their AIC
      d.setters = cores_of(b, c.kind, c.group);
      d.receivers = cores_of(b, other, c.group);
      d.key = (std::uint64_t{2} << 40) | (std::uint64_t{c.kind == core_kind::aic} << 39) | c.group;
      break;
  }
  d.key = (d.key << 4) | flag;
  d.my_index = static_cast<std::uint32_t>(std::find(d.setters.begin(), d.setters.end(), c.unit) - d.setters.begin());
  return d;
}

std::string core_name(const launch_barrier& b, std::uint32_t unit) {
  const std::uint32_t per = detail::cores_per_block(b.kernel);
  const std::uint32_t g = unit / per, m = unit % per, aic = kernel_aic_per_block(b.kernel);
  if (m < aic) return "the AIC of block " + std::to_string(g);
  if (per == 1) return "the AIV of block " + std::to_string(g);
  return "AIV " + std::to_string(m - aic) + " of block " + std::to_string(g);
}

std::string this_core(const core_context& c) {
  if (c.kind == core_kind::aic) return "the AIC of block " + std::to_string(c.group);
  if (kernel_aiv_per_block(c.kernel) > 1 || kernel_aic_per_block(c.kernel) > 0) {
    return "AIV " + std::to_string(c.sub_block) + " of block " + std::to_string(c.group);
  }
  return "the AIV of block " + std::to_string(c.group);
}

std::uint16_t flag_bits(std::uint16_t flag, const src_loc& loc, const char* api) {
  if (flag < detail::cross_flag_count) return flag;
  warn(hw_error_kind::param_out_of_range,
       std::string(api) + ": flagId " + std::to_string(flag) + " is outside 0..15; the chip keeps its low 4 bits (" +
           std::to_string(flag & 15) + ")",
       loc, api);
  return static_cast<std::uint16_t>(flag & 15);
}

void record_cross(bool set, std::uint8_t mode, std::uint16_t flag, pipe p, const src_loc& loc, const char* api) {
  trace_rec r;
  r.kind = set ? rec_kind::cross_set : rec_kind::cross_wait;
  r.p = p;
  r.src = p;
  r.dst = p;
  r.event = flag;
  r.repeats = mode;
  r.site = site_of(loc, api);
  record(r);
}

}  // namespace

// Outside a launch (host code built with the kernel headers) every core reads as an AIV, as
// before mixed kernels existed.
core_kind current_core_kind() {
  const core_context* c = detail::current_core();
  return c == nullptr ? core_kind::aiv : c->kind;
}
kernel_type current_kernel_type() { return ctx_or_fail_mix("KERNEL_TASK_TYPE").kernel; }
std::uint32_t sub_block_idx() { return ctx_or_fail_mix("GetSubBlockIdx").sub_block; }
std::uint32_t sub_block_num() {
  const core_context& c = ctx_or_fail_mix("GetSubBlockNum");
  return c.kind == core_kind::aic ? 1 : std::max<std::uint32_t>(1, kernel_aiv_per_block(c.kernel));
}

void cross_core_set(std::uint8_t mode, std::uint16_t flag_in, pipe p, const src_loc& loc, const char* api) {
  core_context& c = ctx_or_fail_mix(api);
  if (mode > 2) {
    fail(hw_error_kind::invalid_use,
         std::string(api) + " mode " + std::to_string(mode) +
             ": Atlas A2/A3 chips have modes 0 (all AIC or all AIV cores), 1 (the AIVs of one AI Core) and 2 (an "
             "AIC and its AIVs)",
         loc, api);
  }
  const bool mixed = kernel_aic_per_block(c.kernel) > 0 && kernel_aiv_per_block(c.kernel) > 0;
  if (mode != 0 && !mixed) {
    fail(hw_error_kind::invalid_use,
         std::string(api) + " mode " + std::to_string(mode) +
             " synchronises the cores of one AI Core (mode 1: its AIVs; mode 2: its AIC (Cube) core and its AIVs), "
             "which a " + kernel_type_name(c.kernel) +
             " kernel does not start: declare the kernel mixed, KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2) "
             "or KERNEL_TYPE_MIX_AIC_1_1",
         loc, api);
  }
  if (mode == 1 && c.kind == core_kind::aic) {
    fail(hw_error_kind::invalid_use, std::string(api) + " mode 1 synchronises the AIVs of an AI Core; it is called on an AIC", loc, api);
  }
  const std::uint16_t flag = flag_bits(flag_in, loc, api);
  record_cross(true, mode, flag, p, loc, api);
  launch_barrier& b = *c.barrier;
  std::unique_lock<std::mutex> lk(b.mu);
  if (b.aborted) throw detail::launch_aborted{};
  const domain_cores d = domain_of(b, c, mode, flag);
  auto& dom = b.domains[d.key];
  if (dom.sets.empty()) dom.sets.assign(d.setters.size(), 0);
  ++dom.sets[d.my_index];
  const std::uint32_t rounds = *std::min_element(dom.sets.begin(), dom.sets.end());
  while (dom.released < rounds) {
    ++dom.released;
    for (std::uint32_t r : d.receivers) {
      auto& counter = b.counters[r][flag];
      if (counter >= detail::cross_counter_max) {
        const std::string who = core_name(b, r);
        lk.unlock();
        fail(hw_error_kind::param_out_of_range,
             std::string(api) + "(" + std::to_string(flag) + ") raises the flag's counter of " + who +
                 " past 15: it was set 15 times more than it waited; pair every CrossCoreSetFlag with a "
                 "CrossCoreWaitFlag on the receiving cores",
             loc, api);
      }
      ++counter;
    }
  }
  b.cv.notify_all();
}

void cross_core_wait(std::uint8_t mode, std::uint16_t flag_in, const src_loc& loc, const char* api) {
  core_context& c = ctx_or_fail_mix(api);
  // On Atlas A2/A3 the wait's mode and pipe have no effect: it waits on the core's own counter.
  const std::uint16_t flag = flag_bits(flag_in, loc, api);
  record_cross(false, mode, flag, pipe::s, loc, api);
  launch_barrier& b = *c.barrier;
  std::unique_lock<std::mutex> lk(b.mu);
  auto& counter = b.counters[c.unit][flag];
  if (b.aborted) throw detail::launch_aborted{};
  if (counter == 0) detail::wait_blocked(b, lk, [&] { return counter > 0; });
  if (counter > 0) {
    --counter;
    return;
  }
  if (b.aborted) throw detail::launch_aborted{};
  lk.unlock();
  fail(hw_error_kind::deadlock,
       std::string(api) + "(" + std::to_string(flag) + ") on " + this_core(c) +
           " waits for a CrossCoreSetFlag that no core can make: every other core has returned or waits itself. "
           "Each wait needs a round of sets from its domain (mode 0: every core of its kind; mode 1: both AIVs of "
           "its AI Core; mode 2: the AIC for its AIVs, both AIVs for their AIC)",
       loc, api);
}

}  // namespace aopt::sim
