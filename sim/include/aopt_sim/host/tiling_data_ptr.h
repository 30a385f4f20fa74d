// TilingData::SetDataPtr (CANN: a reserved interface of the tiling-data classes, "开发者无需关注",
// used by cann-ops' matmul tilings: quant_batch_matmul_v3's Reset() binds its tiling data to
// context->GetRawTilingData()->GetData(), clears that buffer and then only calls the setters,
// with no SaveToBuffer). In CANN the fields then live in that buffer. sim's classes hold their
// fields themselves, so SetDataPtr binds the object's bytes to the buffer here and every write
// through the class (the set_ functions, the tiling APIs that fill a TCubeTiling or SoftMaxTiling)
// is copied to the same offset of the buffer. The bindings last one tiling call: the harness
// clears them before and after it (a later object at the same address must not write into an old
// buffer).
#pragma once

#include <cstddef>
#include <cstring>
#include <vector>

namespace aopt::sim::host {

struct data_ptr_binding {
  const unsigned char* object = nullptr;
  std::size_t size = 0;
  unsigned char* buffer = nullptr;
};

inline std::vector<data_ptr_binding>& data_ptr_bindings() {
  static std::vector<data_ptr_binding> v;
  return v;
}

// Binds [object, object + size) to buffer (the same object bound again takes the new buffer).
inline void bind_data_ptr(const void* object, std::size_t size, void* buffer) {
  auto& v = data_ptr_bindings();
  const auto* o = static_cast<const unsigned char*>(object);
  for (auto it = v.begin(); it != v.end();) it = it->object == o ? v.erase(it) : it + 1;
  if (buffer != nullptr) v.push_back({o, size, static_cast<unsigned char*>(buffer)});
}

// Copies the bytes [at, at + n) of a bound object to its buffer (nothing when none is bound).
inline void write_through(const void* at, std::size_t n) {
  const auto* p = static_cast<const unsigned char*>(at);
  for (const data_ptr_binding& b : data_ptr_bindings()) {
    if (p < b.object || p >= b.object + b.size) continue;
    const std::size_t off = static_cast<std::size_t>(p - b.object);
    std::memcpy(b.buffer + off, p, n < b.size - off ? n : b.size - off);
  }
}

inline void clear_data_ptr_bindings() { data_ptr_bindings().clear(); }

}  // namespace aopt::sim::host
