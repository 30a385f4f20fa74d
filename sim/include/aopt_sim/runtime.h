// The emulated device runtime: GM allocations and kernel launch on blockDim emulated AIV cores.
// Contract shared by the kernel API (sim/include/aopt_sim/kernel), the harness (sim/harness),
// the timing model's tests and the API tests. Implementation: sim/runtime/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "aopt_sim/trace.h"

namespace aopt::sim {

// Hardware errors: what the chip would reject or hang on. Never a slowdown.
enum class hw_error_kind : std::uint8_t {
  ub_overflow,          // TPipe/TBuf allocations exceed the core's UB
  misaligned,           // UB or GM address not 32 B aligned where the instruction requires it
  truncated_copy,       // contiguous DataCopy of a size that is not a multiple of 32 B
  param_out_of_range,   // repeat > 255, blockLen > 65535, count > tensor size, ...
  reserved_event,       // an event id outside 0..7 (6 and 7: a warning, advised against)
  double_set_event,     // SetFlag twice before the matching WaitFlag
  deadlock,             // a WaitFlag that can never be satisfied
  gm_out_of_bounds,     // a GM access outside every allocation the kernel was given
  ub_out_of_bounds,     // a LocalTensor access outside its buffer
  sync_all_missing_core,// SyncAll with a core that never arrives
  invalid_use,          // API misuse: DeQue on an empty queue, FreeTensor twice, ...
};
// Stable snake_case name of a kind (result.json "kind", messages). Inline so that libraries
// that do not link the runtime (the timing model) share it.
inline const char* hw_error_kind_name(hw_error_kind k) {
  switch (k) {
    case hw_error_kind::ub_overflow: return "ub_overflow";
    case hw_error_kind::misaligned: return "misaligned";
    case hw_error_kind::truncated_copy: return "truncated_copy";
    case hw_error_kind::param_out_of_range: return "param_out_of_range";
    case hw_error_kind::reserved_event: return "reserved_event";
    case hw_error_kind::double_set_event: return "double_set_event";
    case hw_error_kind::deadlock: return "deadlock";
    case hw_error_kind::gm_out_of_bounds: return "gm_out_of_bounds";
    case hw_error_kind::ub_out_of_bounds: return "ub_out_of_bounds";
    case hw_error_kind::sync_all_missing_core: return "sync_all_missing_core";
    case hw_error_kind::invalid_use: return "invalid_use";
  }
  return "unknown";
}

struct hw_error {
  hw_error_kind kind = hw_error_kind::invalid_use;
  std::string message;   // what was wrong and what to do
  call_site site;        // where in the operator's source
  std::uint32_t block_idx = 0;
  std::string to_string() const;  // "file:line: in function: API: message (core N)"
};

// Thrown inside an emulated core; caught by launch(). Kernel code never sees it.
struct hw_fault {
  hw_error error;
};

// GM memory the kernel may address. Allocations are 4096-byte aligned and zero-filled, the rest
// of their last page junk (gm_padding_junk); a kernel's GM writes must fall inside one of them,
// its reads inside one or the rest of its last page (see gm_alloc_device).
void* gm_alloc(std::size_t bytes, std::string name);
void gm_free(void* p);
// Allocation containing [p, p+bytes) or nullptr; `base` receives its start.
const char* gm_find(const void* p, std::size_t bytes, const void** base = nullptr);
// The loaded kernel image whose read-only data segments hold its `__gm__` globals: the shared
// object containing `addr` (the harness passes the kernel's entry after dlopen). Unset, the main
// program is the image (tests link their kernels in). Other objects' data (libc's strings) is never GM.
void set_kernel_image(const void* addr);

// A device allocation as the runtime makes it for an operator's tensors (aclrtMalloc: the size
// is rounded up to a multiple of 32 bytes, then 32 bytes are added). Kernels may read and write
// the padding (a tail copied as whole 32-byte blocks); it starts filled with junk
// (gm_padding_junk: NaN in every float type, -1 in every integer type), so a kernel whose
// results depend on it fails the output check. Writes beyond the padding are errors. Reads
// beyond it but within the allocation's last 4 KiB page are what the chip does without a fault
// (its GM is mapped by pages; the bytes are whatever lies there, uninitialized): they read junk
// and the run carries a warning; reads past the page are errors.
inline constexpr std::size_t device_alloc_bytes(std::size_t bytes) { return (bytes + 31) / 32 * 32 + 32; }
inline constexpr unsigned char gm_padding_junk = 0xFF;
void* gm_alloc_device(std::size_t bytes, std::string name);

// Which cores a kernel starts on (KERNEL_TASK_TYPE_DEFAULT / KERNEL_TASK_TYPE of the kernel,
// "设置Kernel类型" in the AscendC reference). For a mixed kernel the block dim counts AI Cores:
// each block is one AIC and its AIVs (1:1 or 1:2), all running the kernel at once, sharing GM.
enum class kernel_type : std::uint8_t { aiv_only, aic_only, mix_aic_1_0, mix_aic_1_1, mix_aic_1_2, mix_aiv_1_0 };
const char* kernel_type_name(kernel_type t);
// AIC and AIV cores one block of the kernel type runs on.
constexpr std::uint32_t kernel_aic_per_block(kernel_type t) {
  return t == kernel_type::aiv_only || t == kernel_type::mix_aiv_1_0 ? 0 : 1;
}
constexpr std::uint32_t kernel_aiv_per_block(kernel_type t) {
  return t == kernel_type::mix_aic_1_2 ? 2 : t == kernel_type::mix_aic_1_1 || t == kernel_type::aiv_only ||
                                                      t == kernel_type::mix_aiv_1_0
                                                  ? 1
                                                  : 0;
}

// The kernel types a loaded kernel declared: KERNEL_TASK_TYPE_DEFAULT(type) and
// KERNEL_TASK_TYPE(key, type) register them when the kernel's shared object is loaded (wherever
// they stand in the kernel body, as the device compiler reads them). The harness clears them
// before it loads a kernel and asks for the launch's tiling key after.
void declare_kernel_type(kernel_type t, bool keyed, std::uint64_t key);
// The type the toolchain infers for a kernel that declares none, from the instructions it uses:
// "算子工程会通过算子使用的指令自动识别算子类型，但该功能无法区分AIC和AIV的配比，默认按照 ... 1:2
// 的配比下发任务" (AscendC guide, 设置合适的核数和算子Kernel类型). A kernel that instantiates the
// high-level Matmul API registers MIX AIC:AIV 1:2 when it loads (aopt_sim/kernel/matmul.h); a
// declaration, keyed or default, always wins.
void declare_inferred_kernel_type(kernel_type t);
std::optional<kernel_type> declared_kernel_type(std::uint64_t tiling_key);
void clear_declared_kernel_types();

struct launch_options {
  std::uint32_t block_dim = 1;
  std::uint32_t core_count = 40;     // physical AIV cores (profile); more blocks run in waves
  std::uint32_t aic_count = 20;      // physical AIC (Cube) cores (profile)
  kernel_type kernel = kernel_type::aiv_only;
  std::uint32_t ub_bytes = 196608;   // UB capacity per core (profile)
  // The Cube's buffers per AI Core (profile; defaults: 910B-class, docs/sim.md "The Cube unit").
  std::uint32_t l1_bytes = 524288;
  std::uint32_t l0a_bytes = 65536;
  std::uint32_t l0b_bytes = 65536;
  std::uint32_t l0c_bytes = 131072;
  std::uint32_t bt_bytes = 1024;
  std::uint32_t fb_bytes = 2048;
  bool record_trace = true;
  std::uint64_t tiling_key = 0;      // what TILING_KEY_IS(k) compares against
};

// Bytes at the start of the kernel's workspace reserved for the system (GetUserWorkspace
// returns workspace + this; the host's GetLibApiWorkSpaceSize() must answer the same).
inline constexpr std::size_t sys_workspace_bytes = std::size_t{16} << 20;

struct launch_result {
  std::vector<core_trace> cores;     // one per core: per block, index = block idx; in a mixed
                                     // kernel per block its AIC then its AIVs
  std::optional<hw_error> error;     // first hardware error, if any (traces are partial then)
  std::vector<hw_error> warnings;    // warn(): once per call site and kind, at most 32
};

// Runs `body` once per core (a block's AIC and AIVs in a mixed kernel), each on its own thread with that block's core context
// (GetBlockIdx, UB, trace). SyncAll inside body is a real barrier across the blocks.
launch_result launch(const launch_options& opts, const std::function<void()>& body);

}  // namespace aopt::sim
