// AscendC::ListTensorDesc / AscendC::TensorDesc: the kernel-side view of a dynamic
// (tensor-list) input or output. The kernel receives one GM pointer to a descriptor laid out
// as CANN documents it (uint64_t words):
//   [0]                  byte offset of the data-pointer table from the start
//   per tensor i:        (dim | i << 32), then dim words with the shape
//   at the offset:       one data pointer per tensor
// The harness (sim/harness) writes this layout; aopt::sim::host::build_list_desc() makes one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace AscendC {

template <typename T>
class TensorDesc {
 public:
  TensorDesc() = default;
  void SetShapeAddr(uint64_t* shape_addr) { shape_ = shape_addr; }
  uint64_t GetDim() const { return dim_; }
  uint64_t GetIndex() const { return index_; }
  uint64_t GetShape(uint32_t offset) const { return (shape_ != nullptr && offset < dim_) ? shape_[offset] : 0; }
  T* GetDataPtr() const { return data_; }
  // emulator: filled by ListTensorDesc::GetDesc
  void aopt_set(uint64_t dim, uint64_t index, const uint64_t* shape, T* data) {
    dim_ = dim;
    index_ = index;
    data_ = data;
    if (shape_ != nullptr) {
      for (uint64_t i = 0; i < dim; ++i) shape_[i] = shape[i];
    }
  }

 private:
  uint64_t* shape_ = nullptr;
  uint64_t dim_ = 0;
  uint64_t index_ = 0;
  T* data_ = nullptr;
};

class ListTensorDesc {
 public:
  ListTensorDesc() = default;
  explicit ListTensorDesc(void* data, uint32_t length = 0xffffffffu, uint32_t shape_size = 0xffffffffu) {
    Init(data, length, shape_size);
  }
  void Init(void* data, uint32_t /*length*/ = 0xffffffffu, uint32_t /*shape_size*/ = 0xffffffffu) {
    base_ = static_cast<const uint64_t*>(data);
    count_ = 0;
    if (base_ == nullptr) return;
    const uint64_t ptr_word = base_[0] / 8;
    uint64_t pos = 1;
    while (pos < ptr_word) {
      const uint64_t dim = base_[pos] & 0xffffffffu;
      pos += 1 + dim;
      ++count_;
    }
  }
  uint32_t GetSize() const { return count_; }
  template <typename T>
  T* GetDataPtr(uint32_t index) const {
    if (base_ == nullptr || index >= count_) return nullptr;
    const uint64_t ptr_word = base_[0] / 8;
    return reinterpret_cast<T*>(static_cast<uintptr_t>(base_[ptr_word + index]));
  }
  template <typename T>
  void GetDesc(TensorDesc<T>& desc, uint32_t index) const {
    if (base_ == nullptr || index >= count_) return;
    uint64_t pos = 1;
    for (uint32_t i = 0; i < index; ++i) pos += 1 + (base_[pos] & 0xffffffffu);
    const uint64_t dim = base_[pos] & 0xffffffffu;
    desc.aopt_set(dim, base_[pos] >> 32, base_ + pos + 1, GetDataPtr<T>(index));
  }

 private:
  const uint64_t* base_ = nullptr;
  uint32_t count_ = 0;
};

}  // namespace AscendC

namespace aopt::sim::host {
// Builds the descriptor words for tensors with `shapes` whose data live at `ptrs`.
inline std::vector<uint64_t> build_list_desc(const std::vector<std::vector<int64_t>>& shapes,
                                             const std::vector<const void*>& ptrs) {
  std::vector<uint64_t> w;
  w.push_back(0);
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    w.push_back(static_cast<uint64_t>(shapes[i].size()) | (static_cast<uint64_t>(i) << 32));
    for (int64_t d : shapes[i]) w.push_back(static_cast<uint64_t>(d));
  }
  w[0] = static_cast<uint64_t>(w.size()) * 8;
  for (const void* p : ptrs) w.push_back(static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p)));
  return w;
}
}  // namespace aopt::sim::host
