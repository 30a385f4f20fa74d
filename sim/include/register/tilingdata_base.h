// Emulated CANN tiling-data definition macros (register/tilingdata_base.h).
//
//   BEGIN_TILING_DATA_DEF(TilingData)
//     TILING_DATA_FIELD_DEF(uint32_t, totalLength);
//     TILING_DATA_FIELD_DEF_ARR(uint32_t, 8, perCore);
//   END_TILING_DATA_DEF;
//   REGISTER_TILING_DATA_CLASS(AddCustom, TilingData)
//
// produce one standard-layout class used on both sides: the host sets fields with
// set_<f>(v) / reads get_<f>() and copies the bytes out with SaveToBuffer(); the kernel TU
// (which force-includes the same header, as the real build generates kernel_tiling.h from it)
// reads the public fields (`td.totalLength`) after GET_TILING_DATA. The byte layout is the
// C++ layout of the fields in declaration order (natural alignment), identical on both sides.
// REGISTER_TILING_DATA_CLASS(Op, Cls) also declares the alias AoptTiling_<Op> = Cls in the
// current namespace (GET_TILING_DATA finds optiling::AoptTiling_<AOPT_OP_TYPE>), and on the
// host records the class in aopt::sim::host::tiling_classes().
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "aopt_sim/host/tiling_data_ptr.h"

namespace aopt::sim::host {
// One scalar of a tiling class's byte layout: `count` elements of `elem_size` bytes from `offset`
// (an array field is one entry). A struct field of a type with no layout of its own (TCubeTiling,
// a plain struct) is `opaque`: its bytes are read as 32-bit words.
struct tiling_field {
  std::size_t offset = 0;
  std::size_t elem_size = 0;
  std::size_t count = 1;
  bool is_signed = false;
  bool opaque = false;
};
using tiling_layout = std::vector<tiling_field>;

struct tiling_class_info {
  std::string class_name;
  std::size_t size = 0;
  void (*layout)(tiling_layout&, std::size_t) = nullptr;  // appends the fields, offsets from the argument
};
// op type (first argument of REGISTER_TILING_DATA_CLASS) -> class, for this process.
inline std::map<std::string, tiling_class_info>& tiling_classes() {
  static std::map<std::string, tiling_class_info> m;
  return m;
}
inline bool register_tiling_class(const char* op_type, const char* class_name, std::size_t size,
                                  void (*layout)(tiling_layout&, std::size_t) = nullptr) {
  tiling_classes()[op_type] = tiling_class_info{class_name, size, layout};
  return true;
}

// The field macros number their fields with __COUNTER__ relative to the class's start, each
// field a static member `aopt_field(layout, base, field_tag<k>)`; the class's `aopt_layout`
// walks k over the numbers the class used (a number no field took calls the empty template).
template <int K>
struct field_tag {};

template <typename T, typename = void>
struct has_tiling_layout : std::false_type {};
template <typename T>
struct has_tiling_layout<T, std::void_t<decltype(&T::aopt_layout)>> : std::true_type {};

template <typename T>
void add_tiling_field(tiling_layout& out, std::size_t offset, std::size_t count) {
  if constexpr (has_tiling_layout<T>::value) {
    for (std::size_t i = 0; i < count; ++i) T::aopt_layout(out, offset + i * sizeof(T));
  } else if constexpr (std::is_arithmetic_v<T> || std::is_enum_v<T>) {
    out.push_back(tiling_field{offset, sizeof(T), count, std::is_signed_v<T>, false});
  } else {
    out.push_back(tiling_field{offset, 4, sizeof(T) * count / 4, false, true});
  }
}
}  // namespace aopt::sim::host

#define BEGIN_TILING_DATA_DEF(class_name)                                                    \
  class class_name {                                                                         \
   public:                                                                                   \
    /* The data size padded to 8 bytes (CANN's TilingDef pads its fields, and a tiling checks */ \
    /* that its size is a multiple of 8); the padding is zero in SaveToBuffer's copy. */          \
    std::size_t GetDataSize() const { return (sizeof(class_name) + 7) / 8 * 8; }             \
    void SaveToBuffer(void* aopt_buf, std::size_t aopt_capacity) const {                     \
      if (aopt_buf != nullptr) {                                                             \
        const std::size_t aopt_n = aopt_capacity < GetDataSize() ? aopt_capacity : GetDataSize(); \
        std::memset(aopt_buf, 0, aopt_n);                                                    \
        std::memcpy(aopt_buf, this, aopt_n < sizeof(class_name) ? aopt_n : sizeof(class_name)); \
      }                                                                                      \
    }                                                                                        \
    /* Fields read from the buffer, and every later write copied to it (tiling_data_ptr.h). */ \
    void SetDataPtr(void* aopt_buf) {                                                        \
      if (aopt_buf != nullptr) std::memcpy(this, aopt_buf, sizeof(class_name));              \
      ::aopt::sim::host::bind_data_ptr(this, sizeof(class_name), aopt_buf);                  \
    }                                                                                        \
    void InitData() {}                                                                       \
    using aopt_self = class_name;                                                            \
    static constexpr int aopt_counter_base = __COUNTER__;                                    \
    template <int K>                                                                         \
    static void aopt_field(::aopt::sim::host::tiling_layout&, std::size_t,                   \
                           ::aopt::sim::host::field_tag<K>) {}                               \
    template <int... K>                                                                      \
    static void aopt_walk(::aopt::sim::host::tiling_layout& aopt_out, std::size_t aopt_at,   \
                          std::integer_sequence<int, K...>) {                                \
      (aopt_field(aopt_out, aopt_at, ::aopt::sim::host::field_tag<K + 1>{}), ...);           \
    }                                                                                        \
    static void aopt_layout(::aopt::sim::host::tiling_layout& aopt_out, std::size_t aopt_at) { \
      aopt_walk(aopt_out, aopt_at, std::make_integer_sequence<int, aopt_counter_end - aopt_counter_base - 1>{}); \
    }

#define AOPT_TILING_FIELD_LAYOUT_(data_type, count, field_name)                               \
    static void aopt_field(::aopt::sim::host::tiling_layout& aopt_out, std::size_t aopt_at,   \
                           ::aopt::sim::host::field_tag<__COUNTER__ - aopt_counter_base>) {   \
      ::aopt::sim::host::add_tiling_field<data_type>(aopt_out, aopt_at + offsetof(aopt_self, field_name), count); \
    }

#define TILING_DATA_FIELD_DEF(data_type, field_name)                  \
   public:                                                            \
    AOPT_TILING_FIELD_LAYOUT_(data_type, 1, field_name)               \
    data_type field_name = data_type();                               \
    void set_##field_name(data_type aopt_v) {                         \
      field_name = aopt_v;                                            \
      ::aopt::sim::host::write_through(&field_name, sizeof(field_name)); \
    }                                                                 \
    data_type get_##field_name() const { return field_name; }

#define TILING_DATA_FIELD_DEF_ARR(arr_type, arr_size, field_name)          \
   public:                                                                 \
    AOPT_TILING_FIELD_LAYOUT_(arr_type, (arr_size), field_name)            \
    arr_type field_name[arr_size] = {};                                    \
    void set_##field_name(const arr_type* aopt_v) {                        \
      if (aopt_v != nullptr) std::memcpy(field_name, aopt_v, sizeof(field_name)); \
      ::aopt::sim::host::write_through(field_name, sizeof(field_name));    \
    }                                                                      \
    arr_type* get_##field_name() { return field_name; }                    \
    const arr_type* get_##field_name() const { return field_name; }

#define TILING_DATA_FIELD_DEF_STRUCT(struct_type, field_name)                  \
   public:                                                                     \
    AOPT_TILING_FIELD_LAYOUT_(struct_type, 1, field_name)                      \
    struct_type field_name;                                                    \
    void set_##field_name(const struct_type& aopt_v) {                         \
      field_name = aopt_v;                                                     \
      ::aopt::sim::host::write_through(&field_name, sizeof(field_name));       \
    }                                                                          \
    struct_type& get_##field_name() { return field_name; }                     \
    const struct_type& get_##field_name() const { return field_name; }

// With its own `;`, as the real macro: headers write both `END_TILING_DATA_DEF;` and a bare
// `END_TILING_DATA_DEF` (an extra `;` at namespace scope is an empty declaration).
#define END_TILING_DATA_DEF   \
    static constexpr int aopt_counter_end = __COUNTER__; \
  };

#if defined(__CCE_AICORE__) || defined(AOPT_KERNEL_TU)
// Kernel TU: the alias only; the classes are visible unqualified as the generated
// kernel_tiling.h makes them.
#define REGISTER_TILING_DATA_CLASS(op_type, class_name) using AoptTiling_##op_type = class_name;
namespace optiling {}
using namespace optiling;  // NOLINT: emulates the global-namespace structs of kernel_tiling.h
#include "kernel_tiling/kernel_tiling.h"
// Tiling headers also declare host helpers next to the struct (compile-info structs with a
// platform_ascendc::SocVersion, functions of gert::TilingParseContext): the kernel TU, which
// force-includes the header, sees those declarations too.
#include "aopt_sim/host/gert.h"
#include "tiling/platform/platform_ascendc.h"
#else
#define REGISTER_TILING_DATA_CLASS(op_type, class_name)                                   \
  using AoptTiling_##op_type = class_name;                                                \
  [[maybe_unused]] static const bool aopt_tiling_registered_##op_type =                   \
      ::aopt::sim::host::register_tiling_class(#op_type, #class_name, sizeof(class_name), &class_name::aopt_layout);
#endif
