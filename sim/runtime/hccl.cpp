// The one-rank HCCL context and windows (aopt_sim/hccl_context.h): GM allocations made on first
// use and kept for the life of the process (a harness process runs one case; its launches share
// them as one device's HCCL buffers would be shared by its kernels).
#include <array>
#include <atomic>
#include <mutex>
#include <new>

#include "aopt_sim/hccl_context.h"
#include "aopt_sim/runtime.h"

namespace aopt::sim::hccl {
namespace {

struct group_state {
  std::once_flag made;
  std::uint8_t* own = nullptr;                 // sim's context block
  std::atomic<std::uint8_t*> set{nullptr};     // SetHcclContext's, if any
};

std::array<group_state, max_groups>& groups() {
  static std::array<group_state, max_groups> g;
  return g;
}

std::uint8_t* make_context(std::uint32_t index) {
  const std::string domain = "HCCL domain " + std::to_string(index);
  auto* block = static_cast<std::uint8_t*>(gm_alloc(sizeof(context_block), domain + " context"));
  context_block c;
  c.group_index = index;
  c.window_bytes = window_bytes;
  c.window_in = static_cast<std::uint8_t*>(gm_alloc(window_bytes, domain + " WindowsIn (rank 0)"));
  c.window_out = static_cast<std::uint8_t*>(gm_alloc(window_bytes, domain + " WindowsOut (rank 0)"));
  new (block) context_block(c);
  return block;
}

}  // namespace

std::uint8_t* group_context(std::uint32_t index) {
  if (index >= max_groups) return nullptr;
  group_state& g = groups()[index];
  if (std::uint8_t* s = g.set.load()) return s;
  std::call_once(g.made, [&] { g.own = make_context(index); });
  return g.own;
}

void set_group_context(std::uint32_t index, std::uint8_t* context) {
  if (index < max_groups) groups()[index].set.store(context);
}

}  // namespace aopt::sim::hccl
