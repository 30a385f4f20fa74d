// Helpers for the kernel-core tests: GM buffers and a one-call launch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>

#include "aopt_sim/runtime.h"

namespace aopt::sim::test {

// A GM allocation owned by the test.
class gm_buffer {
 public:
  explicit gm_buffer(std::size_t bytes, std::string name = "buf")
      : p_(static_cast<std::uint8_t*>(gm_alloc(bytes, std::move(name)))), bytes_(bytes) {}
  ~gm_buffer() { gm_free(p_); }
  gm_buffer(const gm_buffer&) = delete;
  gm_buffer& operator=(const gm_buffer&) = delete;
  std::uint8_t* get() const { return p_; }
  template <typename T>
  T* as() const { return reinterpret_cast<T*>(p_); }
  std::size_t bytes() const { return bytes_; }

 private:
  std::uint8_t* p_;
  std::size_t bytes_;
};

inline launch_result run(std::uint32_t blocks, const std::function<void()>& body,
                         std::uint32_t cores = 40, std::uint32_t ub = 196608) {
  launch_options o;
  o.block_dim = blocks;
  o.core_count = cores;
  o.ub_bytes = ub;
  return launch(o, body);
}

// True when `file` (a __FILE__ / __builtin_FILE path) names the test source `name`.
inline bool file_is(const std::string& file, const std::string& name) {
  return file.size() >= name.size() && file.compare(file.size() - name.size(), name.size(), name) == 0;
}

}  // namespace aopt::sim::test
