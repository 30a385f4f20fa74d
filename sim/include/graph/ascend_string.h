// CANN header name (emulated): graph/ascend_string.h, ge::AscendString: a string the graph API
// passes across its ABI (an operator's check-support and op-select-format functions fill one).
// Construction from a C string, GetString(), GetLength() and comparisons, as the public header;
// std::hash<ge::AscendString> (the public header specialises it: unordered maps keyed by operator
// type, e.g. register/tuning_bank_key_registry.h's registries).
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace ge {

class AscendString {
 public:
  AscendString() = default;
  AscendString(const char* name) : s_(name == nullptr ? "" : name) {}  // NOLINT: implicit as in CANN
  AscendString(const char* name, std::size_t length) : s_(name == nullptr ? "" : std::string(name, length)) {}
  const char* GetString() const { return s_.c_str(); }
  std::size_t GetLength() const { return s_.size(); }
  bool operator<(const AscendString& o) const { return s_ < o.s_; }
  bool operator>(const AscendString& o) const { return s_ > o.s_; }
  bool operator<=(const AscendString& o) const { return s_ <= o.s_; }
  bool operator>=(const AscendString& o) const { return s_ >= o.s_; }
  bool operator==(const AscendString& o) const { return s_ == o.s_; }
  bool operator!=(const AscendString& o) const { return s_ != o.s_; }

 private:
  std::string s_;
};

// The graph operator an op's check-support function receives (SetCheckSupport /
// SetOpSelectFormat): sim registers such functions and never calls them, so the type is only named.
class Operator;

}  // namespace ge

namespace std {
template <>
struct hash<ge::AscendString> {
  size_t operator()(const ge::AscendString& s) const noexcept { return hash<string>{}(string(s.GetString(), s.GetLength())); }
};
}  // namespace std
