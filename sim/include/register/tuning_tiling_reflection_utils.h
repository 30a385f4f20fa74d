// CANN header name (emulated): register/tuning_tiling_reflection_utils.h, the field schema the
// AOE tuning-tiling classes (register/tuning_tiling_registry.h) serialise by. Written from the
// public header's documented macros, not its code:
//   DECLARE_SCHEMA(Struct, FIELD(Struct, a), FIELD(Struct, b), ...)   (inside namespace tuningtiling)
// declares which members of Struct are serialised and under which JSON names (the member's
// name), in order. A member is written as a JSON value when nlohmann can (numbers, bools, enums
// as their integer, strings, containers) and as a JSON object of its own schema when it is a
// class with one (a tuning-tiling class nested in another, as cann-ops' FfnTunnerTiling holds
// two MatmulTunnerTiling). Reading takes the members whose names the object holds and leaves the
// others as they were; a value of the wrong JSON type throws nlohmann::json::type_error.
#pragma once

#include <cstddef>
#include <iterator>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include <nlohmann/json.hpp>

namespace tuningtiling {

// The schema of T: a tuple of (name, pointer to member) pairs; empty unless DECLARE_SCHEMA
// specialises it.
template <typename T>
struct StructInfo {
  static std::tuple<> Info() { return {}; }
};

#define DECLARE_SCHEMA(Struct, ...)                                        \
  template <>                                                              \
  struct StructInfo<Struct> {                                              \
    static auto Info() { return std::make_tuple(__VA_ARGS__); }            \
  }

#define FIELD(Struct, FieldName) std::make_pair(#FieldName, &Struct::FieldName)

namespace schema_detail {

template <typename T, typename = void>
struct is_range : std::false_type {};
template <typename T>
struct is_range<T, std::void_t<decltype(std::begin(std::declval<T&>()))>> : std::true_type {};

// A member serialised through its own schema (a class that is not a container or a string).
template <typename T>
inline constexpr bool is_record = std::is_class_v<T> && !is_range<T>::value;

template <typename T>
void write_value(nlohmann::json& j, const T& value);
template <typename T>
void read_value(const nlohmann::json& j, T& value);

// The schema is looked up only inside these bodies, which are instantiated where a tuning-tiling
// class's ToJson/FromJson is first needed: after the DECLARE_SCHEMA that follows the class.
template <typename T>
void write_fields(const T& obj, nlohmann::json& j) {
  if (!j.is_object()) j = nlohmann::json::object();
  std::apply([&](const auto&... f) { (write_value(j[f.first], obj.*(f.second)), ...); }, StructInfo<T>::Info());
}

template <typename T>
void read_fields(const nlohmann::json& j, T& obj) {
  if (!j.is_object()) return;
  std::apply(
      [&](const auto&... f) {
        (
            [&] {
              const auto it = j.find(f.first);
              if (it != j.end()) read_value(*it, obj.*(f.second));
            }(),
            ...);
      },
      StructInfo<T>::Info());
}

template <typename T>
void write_value(nlohmann::json& j, const T& value) {
  if constexpr (is_record<T>) {
    write_fields(value, j);
  } else {
    j = value;
  }
}

template <typename T>
void read_value(const nlohmann::json& j, T& value) {
  if constexpr (is_record<T>) {
    read_fields(j, value);
  } else {
    j.get_to(value);
  }
}

}  // namespace schema_detail
}  // namespace tuningtiling
