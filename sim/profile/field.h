// Private helpers of the profile loader: typed access to {"value", "source"} fields with
// error messages naming the file, the field and what is expected.
#pragma once

#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace aopt::sim::detail {

class field_reader {
 public:
  field_reader(const nlohmann::json& root, std::string where) : root_(root), where_(std::move(where)) {}

  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    throw std::runtime_error(where_ + ": field '" + path + "': " + what +
                             " (each field is {\"value\": ..., \"source\": \"...\"}; see docs/sim.md)");
  }

  // The {"value", "source"} object at dotted `path`; returns its value.
  const nlohmann::json& value(const std::string& path) const {
    const nlohmann::json* cur = &root_;
    std::size_t start = 0;
    while (true) {
      const std::size_t dot = path.find('.', start);
      const std::string key = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
      if (!cur->is_object() || !cur->contains(key)) fail(path, "missing");
      cur = &(*cur)[key];
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    if (!cur->is_object() || !cur->contains("value")) fail(path, "expected an object with \"value\" and \"source\"");
    const auto& src = (*cur)["source"];
    if (!src.is_string() || src.get<std::string>().empty()) fail(path, "expected a non-empty \"source\" string saying where the value comes from");
    return (*cur)["value"];
  }

  double number(const std::string& path, double lo, double hi) const {
    const auto& v = value(path);
    if (!v.is_number()) fail(path, "expected a number in [" + fmt(lo) + ", " + fmt(hi) + "]");
    const double d = v.get<double>();
    if (!(d >= lo && d <= hi)) fail(path, "value " + fmt(d) + " is outside [" + fmt(lo) + ", " + fmt(hi) + "]");
    return d;
  }
  std::uint64_t integer(const std::string& path, std::uint64_t lo, std::uint64_t hi) const {
    const auto& v = value(path);
    if (!v.is_number_integer() || (v.is_number_integer() && v.get<std::int64_t>() < 0))
      fail(path, "expected a non-negative integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    const auto u = v.get<std::uint64_t>();
    if (u < lo || u > hi) fail(path, "value " + std::to_string(u) + " is outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    return u;
  }
  std::string string(const std::string& path) const {
    const auto& v = value(path);
    if (!v.is_string() || v.get<std::string>().empty()) fail(path, "expected a non-empty string");
    return v.get<std::string>();
  }
  bool boolean(const std::string& path) const {
    const auto& v = value(path);
    if (!v.is_boolean()) fail(path, "expected true or false");
    return v.get<bool>();
  }

 private:
  static std::string fmt(double d) {
    std::string s = std::to_string(d);
    while (s.size() > 1 && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
  }
  const nlohmann::json& root_;
  std::string where_;
};

}  // namespace aopt::sim::detail
