// CANN graph header name (emulated): ge::Operator, the graph-level operator the check-supported
// and op-select-format functions of an OpDef receive (`OpAICoreDef::SetCheckSupport`), with
// ge::TensorDesc (graph/tensor.h) and ge::AscendString, by the public graph API documentation (graph/operator.h:
// GetInputDesc, GetInputDescByName, TryGetInputDesc, GetAttr, ...). sim never calls those
// functions (there is no graph compiler); the classes let host code that defines them compile, and
// behave as documented when a test builds one: an unknown input or output gives a default
// TensorDesc (DT_FLOAT, FORMAT_NCHW), an unknown attribute GRAPH_FAILED.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "graph/ascend_string.h"
#include "graph/tensor.h"
#include "graph/types.h"

namespace ge {

class Operator {
 public:
  using attr_value = std::variant<int64_t, float, bool, std::string, std::vector<int64_t>, std::vector<float>>;

  Operator() = default;
  explicit Operator(const char* type) : type_(type == nullptr ? "" : type) {}
  Operator(const char* name, const char* type) : name_(name == nullptr ? "" : name), type_(type == nullptr ? "" : type) {}

  graphStatus GetName(AscendString& name) const {
    name = AscendString(name_.c_str());
    return GRAPH_SUCCESS;
  }
  graphStatus GetOpType(AscendString& type) const {
    type = AscendString(type_.c_str());
    return GRAPH_SUCCESS;
  }

  // Inputs and outputs, by name or index; an unknown one is a default TensorDesc.
  Operator& AddInput(const char* name, const TensorDesc& d) { return add(inputs_, name, d); }
  Operator& AddOutput(const char* name, const TensorDesc& d) { return add(outputs_, name, d); }
  TensorDesc GetInputDesc(const std::string& name) const { return find(inputs_, name); }
  TensorDesc GetInputDescByName(const char* name) const { return find(inputs_, name == nullptr ? "" : name); }
  TensorDesc GetInputDesc(uint32_t index) const { return index < inputs_.size() ? inputs_[index].second : TensorDesc(); }
  graphStatus TryGetInputDesc(const char* name, TensorDesc& d) const {
    for (const auto& [n, t] : inputs_) {
      if (name != nullptr && n == name) {
        d = t;
        return GRAPH_SUCCESS;
      }
    }
    return GRAPH_FAILED;
  }
  TensorDesc GetOutputDesc(const std::string& name) const { return find(outputs_, name); }
  TensorDesc GetOutputDescByName(const char* name) const { return find(outputs_, name == nullptr ? "" : name); }
  TensorDesc GetOutputDesc(uint32_t index) const { return index < outputs_.size() ? outputs_[index].second : TensorDesc(); }
  std::size_t GetInputsSize() const { return inputs_.size(); }
  std::size_t GetOutputsSize() const { return outputs_.size(); }

  // Attributes: GRAPH_FAILED when absent or of another type.
  template <class T>
  Operator& SetAttr(const char* name, const T& v) {
    attrs_[name == nullptr ? "" : name] = stored(v);
    return *this;
  }
  graphStatus GetAttr(const char* name, int64_t& v) const { return get(name, v); }
  graphStatus GetAttr(const char* name, int32_t& v) const {
    int64_t w = 0;
    const auto s = get(name, w);
    if (s == GRAPH_SUCCESS) v = static_cast<int32_t>(w);
    return s;
  }
  graphStatus GetAttr(const char* name, float& v) const { return get(name, v); }
  graphStatus GetAttr(const char* name, bool& v) const { return get(name, v); }
  graphStatus GetAttr(const char* name, std::string& v) const { return get(name, v); }
  graphStatus GetAttr(const char* name, AscendString& v) const {
    std::string s;
    const auto r = get(name, s);
    if (r == GRAPH_SUCCESS) v = AscendString(s.c_str());
    return r;
  }
  graphStatus GetAttr(const char* name, std::vector<int64_t>& v) const { return get(name, v); }
  graphStatus GetAttr(const char* name, std::vector<float>& v) const { return get(name, v); }
  graphStatus GetAttr(const std::string& name, int64_t& v) const { return GetAttr(name.c_str(), v); }
  graphStatus GetAttr(const std::string& name, float& v) const { return GetAttr(name.c_str(), v); }
  graphStatus GetAttr(const std::string& name, bool& v) const { return GetAttr(name.c_str(), v); }

 private:
  using port_list = std::vector<std::pair<std::string, TensorDesc>>;
  Operator& add(port_list& ports, const char* name, const TensorDesc& d) {
    ports.emplace_back(name == nullptr ? "" : name, d);
    return *this;
  }
  static TensorDesc find(const port_list& ports, const std::string& name) {
    for (const auto& [n, t] : ports) {
      if (n == name) return t;
    }
    return TensorDesc();
  }
  template <class T>
  static attr_value stored(const T& v) {
    if constexpr (std::is_same_v<T, bool>) {
      return v;
    } else if constexpr (std::is_integral_v<T>) {
      return static_cast<int64_t>(v);
    } else if constexpr (std::is_floating_point_v<T>) {
      return static_cast<float>(v);
    } else if constexpr (std::is_convertible_v<T, std::string>) {
      return std::string(v);
    } else {
      return attr_value(v);
    }
  }
  template <class T>
  graphStatus get(const char* name, T& v) const {
    const auto it = attrs_.find(name == nullptr ? "" : name);
    if (it == attrs_.end() || !std::holds_alternative<T>(it->second)) return GRAPH_FAILED;
    v = std::get<T>(it->second);
    return GRAPH_SUCCESS;
  }

  std::string name_, type_;
  port_list inputs_, outputs_;
  std::map<std::string, attr_value> attrs_;
};

}  // namespace ge
