// LocalTensor: a typed view of a region of the current core's UB.
// The kernel-core layer (queues, TBuf, DataCopy) creates them; the vector layer reads
// aopt_addr()/aopt_ptr() to compute and to record addresses for the timing model.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "aopt_sim/kernel/core.h"
#include "aopt_sim/kernel/shape_info.h"
#include "aopt_sim/kernel/types.h"

namespace AscendC {

// LCM is another name of VECCALC (as in the host tiling's enum): TBuf<> is TBuf<TPosition::VECCALC>.
enum class TPosition : std::uint8_t { GM, A1, A2, B1, B2, C1, C2, CO1, CO2, VECIN, VECOUT, VECCALC, LCM = VECCALC, SPM, SHM, TSCM, MAX };
using QuePosition = TPosition;

template <typename T>
class LocalTensor {
 public:
  using PrimType = T;
  LocalTensor() = default;
  // Our own constructor (not AscendC API): a view of `count` elements at UB byte address `addr`.
  // `capacity`: the elements of its buffer from `addr` on (default `count`). The chip checks no
  // tensor length, only the hardware does (UB), so accesses are checked against the buffer the
  // tensor lies in: TBuf::Get(len) with a small len still reaches its whole TBuf.
  LocalTensor(std::uint32_t addr, std::uint32_t count, TPosition pos = TPosition::VECCALC, std::uint32_t capacity = 0)
      : addr_(addr), size_(count), cap_(capacity > count ? capacity : count), pos_(pos) {}

  // Sub-tensor starting `offset` elements in.
  LocalTensor operator[](std::uint32_t offset) const {
    return LocalTensor(addr_ + offset * static_cast<std::uint32_t>(sizeof(T)),
                       size_ > offset ? size_ - offset : 0, pos_, cap_ > offset ? cap_ - offset : 0);
  }
  // `dst = a * b;`, `mask = a >= b;`: runs the expression's instruction into this tensor
  // (vec_operators.h).
  template <typename E, typename = decltype(std::declval<const E&>().aopt_assign_to(std::declval<const LocalTensor&>()))>
  LocalTensor& operator=(const E& expr) {
    expr.aopt_assign_to(*this);
    return *this;
  }
  // Element access for reading and writing, a scalar access like GetValue/SetValue.
  T& operator()(std::uint32_t idx, aopt::sim::src_loc loc = aopt::sim::src_loc::current()) const {
    check_index(idx, loc, "operator()");
    aopt::sim::record_ub_access(elem_addr(idx), sizeof(T), true, true, loc, "operator()");
    return aopt_ptr()[idx];
  }
  T GetValue(std::uint32_t idx, aopt::sim::src_loc loc = aopt::sim::src_loc::current()) const {
    check_index(idx, loc, "GetValue");
    aopt::sim::record_ub_access(elem_addr(idx), sizeof(T), true, false, loc, "GetValue");
    return aopt_ptr()[idx];
  }
  void SetValue(std::uint32_t idx, T value, aopt::sim::src_loc loc = aopt::sim::src_loc::current()) const {
    check_index(idx, loc, "SetValue");
    aopt::sim::record_ub_access(elem_addr(idx), sizeof(T), false, true, loc, "SetValue");
    aopt_ptr()[idx] = value;
  }
  template <typename U>
  LocalTensor<U> ReinterpretCast() const {
    auto as_u = [](std::uint32_t n) { return static_cast<std::uint32_t>((static_cast<std::uint64_t>(n) * sizeof(T)) / sizeof(U)); };
    return LocalTensor<U>(addr_, as_u(size_), pos_, as_u(cap_));
  }
  std::uint32_t GetSize() const { return size_; }
  void SetSize(std::uint32_t size) {
    size_ = size;
    if (cap_ < size) cap_ = size;
  }
  std::uint32_t GetLength() const { return size_ * static_cast<std::uint32_t>(sizeof(T)); }
  TPosition GetPosition() const { return pos_; }
  // The shape a kernel attaches to the tensor (LocalTensor/SetShapeInfo.md, GetShapeInfo.md):
  // stored and returned as given; "no default value": unset, it reads as an empty ShapeInfo. A
  // sub-tensor (operator[]) or a ReinterpretCast view starts without one, being another view.
  void SetShapeInfo(const ShapeInfo& shapeInfo) { shape_ = shapeInfo; }
  ShapeInfo GetShapeInfo() const { return shape_; }
  // The documented (NPU) form: the tensor's address as an integer, in bytes, so kernels add byte
  // offsets to it (`i * 32 + t.GetPhyAddr()`, mat_mul_v3) and cast it to a pointer
  // (`(__ubuf__ T*)t.GetPhyAddr()`). In sim that address is the host address of the UB bytes (the
  // CPU-debug library's T* as an integer), so the pointer casts still reach the data; offset counts
  // elements.
  std::uint64_t GetPhyAddr() const { return reinterpret_cast<std::uintptr_t>(aopt_ptr()); }
  std::uint64_t GetPhyAddr(std::uint32_t offset) const { return reinterpret_cast<std::uintptr_t>(aopt_ptr() + offset); }

  // --- emulator-only accessors (not AscendC API) ---
  std::uint32_t aopt_addr() const { return addr_; }  // UB byte address
  T* aopt_ptr() const { return reinterpret_cast<T*>(aopt::sim::ub_base() + addr_); }
  bool aopt_valid() const { return size_ != 0 || addr_ != 0; }
  std::uint32_t aopt_capacity() const { return cap_; }  // elements of its buffer from here on
  std::uint32_t elem_addr(std::uint32_t idx) const { return addr_ + idx * static_cast<std::uint32_t>(sizeof(T)); }

 private:
  void check_index(std::uint32_t idx, const aopt::sim::src_loc& loc, const char* api) const {
    aopt::sim::check_ub_access(addr_, (std::uint64_t{idx} + 1) * sizeof(T), std::uint64_t{cap_} * sizeof(T),
                               idx < cap_ ? "the element" : "an element past the tensor's buffer", loc, api);
  }
  std::uint32_t addr_ = 0;
  std::uint32_t size_ = 0;
  std::uint32_t cap_ = 0;
  TPosition pos_ = TPosition::VECCALC;
  ShapeInfo shape_{};
};

}  // namespace AscendC
