// GlobalTensor: a typed view of emulated GM. SetGlobalBuffer looks the pointer up in the GM
// registry once; every later access is checked against that allocation without locks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "aopt_sim/kernel/core.h"
#include "aopt_sim/kernel/shape_info.h"
#include "aopt_sim/kernel/types.h"

namespace AscendC {

enum class CacheMode : std::uint8_t {
  CACHE_MODE_DISABLE = 0,
  CACHE_MODE_NORMAL = 1,
  CACHE_MODE_LAST = 2,
  CACHE_MODE_PERSISTENT = 4,
};
enum class CacheRwMode : std::uint8_t { READ = 1, WRITE = 2, RW = 3 };

template <typename T>
class GlobalTensor {
 public:
  using PrimType = T;
  GlobalTensor() = default;

  void SetGlobalBuffer(__gm__ T* buffer, std::uint64_t bufferSize,
                       aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
    attach(buffer, loc);
    size_ = bufferSize;
  }
  void SetGlobalBuffer(__gm__ T* buffer, aopt::sim::src_loc loc = aopt::sim::src_loc::current()) {
    attach(buffer, loc);
    const auto* b = reinterpret_cast<const std::byte*>(buffer);
    size_ = (alloc_base_ != nullptr && alloc_end_ > b)
                ? static_cast<std::uint64_t>(alloc_end_ - b) / sizeof(T)
                : 0;
  }

  GlobalTensor operator[](std::uint64_t offset) const {
    GlobalTensor r = *this;
    r.addr_ = addr_ + offset;
    r.size_ = size_ > offset ? size_ - offset : 0;
    r.shape_ = ShapeInfo{};  // another view: no shape until it is given one, as LocalTensor's
    return r;
  }
  // The shape a kernel attaches to the tensor (GlobalTensor/SetShapeInfo.md, GetShapeInfo.md):
  // stored and returned as given; unset, it reads as an empty ShapeInfo ("no default value").
  void SetShapeInfo(const ShapeInfo& shapeInfo) { shape_ = shapeInfo; }
  ShapeInfo GetShapeInfo() const { return shape_; }

  AOPT_SIM_UNTRACED T GetValue(std::uint64_t offset, aopt::sim::src_loc loc = aopt::sim::src_loc::current()) const {
    aopt_check_read(addr_ + offset, sizeof(T), loc, "GlobalTensor::GetValue");
    aopt::sim::record_gm_access(addr_ + offset, loc, "GlobalTensor::GetValue");
    return addr_[offset];
  }
  AOPT_SIM_UNTRACED void SetValue(std::uint64_t offset, T value,
                aopt::sim::src_loc loc = aopt::sim::src_loc::current()) const {
    aopt_check(addr_ + offset, sizeof(T), loc, "GlobalTensor::SetValue");
    aopt::sim::record_gm_access(addr_ + offset, loc, "GlobalTensor::SetValue");
    addr_[offset] = value;
  }

  __gm__ T* GetPhyAddr() const { return addr_; }
  __gm__ T* GetPhyAddr(std::uint64_t offset) const { return addr_ + offset; }
  std::uint64_t GetSize() const { return size_; }

  // L2 cache hints have no functional effect; the timing model sees CACHE_MODE_DISABLE as
  // copies that bypass L2 (trace_rec::l2_bypass).
  template <CacheRwMode rwMode = CacheRwMode::RW>
  void SetL2CacheHint(CacheMode mode) {
    l2_bypass_ = mode == CacheMode::CACHE_MODE_DISABLE;
  }

  // --- emulator-only accessors (not AscendC API) ---
  // Checks that [p, p+bytes) lies inside this tensor's GM allocation.
  void aopt_check(const void* p, std::uint64_t bytes, const aopt::sim::src_loc& loc,
                  const char* api) const {
    const auto* b = static_cast<const std::byte*>(p);
    if (alloc_base_ == nullptr) fail_unattached(loc, api);
    if (b < alloc_base_ || b > alloc_end_ ||
        bytes > static_cast<std::uint64_t>(alloc_end_ - b)) {
      const long long off = static_cast<long long>(b - alloc_base_);
      aopt::sim::fail(aopt::sim::hw_error_kind::gm_out_of_bounds,
                      "GM access of " + std::to_string(bytes) + " bytes at byte offset " +
                          std::to_string(off) + " of '" + alloc_name_ + "' is outside it (" +
                          std::to_string(alloc_end_ - alloc_base_) +
                          " bytes): check the offsets and lengths computed from the tiling",
                      loc, api);
    }
  }
  // Checks a read of [p, p+bytes): inside the allocation (padding included) as aopt_check; past
  // it but within the allocation's last mapped page, allowed with a warning, as on the chip,
  // which maps GM by pages and faults only past them (the bytes there are junk, so a result
  // that depends on them fails the output check); anything else as aopt_check.
  void aopt_check_read(const void* p, std::uint64_t bytes, const aopt::sim::src_loc& loc, const char* api) const {
    const auto* b = static_cast<const std::byte*>(p);
    if (alloc_base_ == nullptr || b < alloc_base_ || b > alloc_end_ ||
        bytes <= static_cast<std::uint64_t>(alloc_end_ - b) || bytes > static_cast<std::uint64_t>(alloc_page_end_ - b)) {
      aopt_check(p, bytes, loc, api);
      return;
    }
    const long long off = static_cast<long long>(b - alloc_base_);
    aopt::sim::warn(aopt::sim::hw_error_kind::gm_out_of_bounds,
                    "GM read of " + std::to_string(bytes) + " bytes at byte offset " + std::to_string(off) + " of '" +
                        alloc_name_ + "' runs " + std::to_string(static_cast<long long>(b + bytes - alloc_end_)) +
                        " bytes past it and its padding (" + std::to_string(alloc_end_ - alloc_base_) +
                        " bytes): the chip reads whatever lies there without a fault (junk here); fine only if "
                        "those values never reach an output",
                    loc, api);
  }
  // Byte offset of p from the start of its GM allocation (what the trace records).
  std::uint64_t aopt_gm_offset(const void* p) const {
    return static_cast<std::uint64_t>(static_cast<const std::byte*>(p) - alloc_base_);
  }
  const char* aopt_alloc_name() const { return alloc_name_; }
  bool aopt_l2_bypass() const { return l2_bypass_; }
  // Small id of the GM allocation (0 = unknown), for the timing model's same-window rule.
  std::uint16_t aopt_gm_buf() const {
    if (alloc_base_ == nullptr) return 0;
    const auto page = reinterpret_cast<std::uintptr_t>(alloc_base_) >> 12;
    return static_cast<std::uint16_t>((page % 65535) + 1);
  }

 private:
  // Lenient like the hardware: an address outside every GM buffer (or null, for an optional
  // input) is only an error when the kernel accesses through it.
  void attach(__gm__ T* buffer, const aopt::sim::src_loc& loc) {
    addr_ = buffer;
    set_loc_ = loc;
    alloc_base_ = nullptr;
    alloc_end_ = nullptr;
    alloc_page_end_ = nullptr;
    alloc_name_ = "";
    if (buffer == nullptr) return;
    const void* base = nullptr;
    const char* name = aopt::sim::gm_find(buffer, 0, &base);
    if (name == nullptr) return;
    alloc_base_ = static_cast<const std::byte*>(base);
    alloc_end_ = alloc_base_ + aopt::sim::gm_alloc_bytes(base);
    alloc_page_end_ = alloc_base_ + aopt::sim::gm_mapped_bytes(base);
    alloc_name_ = name;
  }
  [[noreturn]] void fail_unattached(const aopt::sim::src_loc& loc, const char* api) const {
    std::string msg;
    if (set_loc_.line == 0) {
      msg = "GlobalTensor used before SetGlobalBuffer: call SetGlobalBuffer with a GM address "
            "the kernel was given";
    } else if (addr_ == nullptr) {
      msg = std::string("GlobalTensor was given a null address by SetGlobalBuffer at ") +
            set_loc_.file + ":" + std::to_string(set_loc_.line) +
            ": the input or output is absent; do not access it";
    } else {
      msg = std::string("the address given to SetGlobalBuffer at ") + set_loc_.file + ":" +
            std::to_string(set_loc_.line) +
            " is not inside any GM buffer the kernel was given (inputs, outputs, workspace, "
            "tiling): check the offset arithmetic";
    }
    aopt::sim::fail(aopt::sim::hw_error_kind::gm_out_of_bounds, msg, loc, api);
  }

  __gm__ T* addr_ = nullptr;
  std::uint64_t size_ = 0;
  const std::byte* alloc_base_ = nullptr;
  const std::byte* alloc_end_ = nullptr;
  const std::byte* alloc_page_end_ = nullptr;  // the end of its last mapped page
  const char* alloc_name_ = "";
  bool l2_bypass_ = false;
  aopt::sim::src_loc set_loc_{};
  ShapeInfo shape_{};
};

enum class CacheLine : std::uint64_t { SINGLE_CACHE_LINE = 0, ENTIRE_DATA_CACHE };
enum class DcciDst : std::uint64_t { CACHELINE_ALL = 0, CACHELINE_UB, CACHELINE_OUT, CACHELINE_ATOMIC };

// Scalar data-cache maintenance: no-ops, the emulator's scalar GM accesses are coherent.
template <typename T, CacheLine entireType, DcciDst dcciDst>
inline void DataCacheCleanAndInvalid(const GlobalTensor<T>& dst) {}
template <typename T, CacheLine entireType>
inline void DataCacheCleanAndInvalid(const GlobalTensor<T>& dst) {}

}  // namespace AscendC
