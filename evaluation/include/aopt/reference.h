// The interface of an operator's independent reference (`reference.cpp` beside aopt.json).
// The evaluator compiles the file with a prebuilt main that reads the case's input tensors,
// calls aopt_reference(), rounds each output value to its dtype and writes it back.
//
//   #include "aopt/reference.h"
//   void aopt_reference(aopt::ref::context& ctx) {
//     const auto& x = ctx.in("x"); const auto& y = ctx.in("y"); auto& z = ctx.out("z");
//     for (std::size_t i = 0; i < z.data.size(); ++i)
//       z.data[i] = aopt::ref::round_to(z.dtype, aopt::ref::round_to(z.dtype, x.data[i]) + y.data[i]);
//   }
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace aopt::ref {

struct tensor {
  std::string name;
  std::string dtype;                // "float16", "float32", "bfloat16", "int32", ... (aopt.json names)
  std::vector<std::int64_t> shape;
  std::vector<double> data;         // decoded values, row-major; outputs arrive sized, zero-filled

  std::int64_t numel() const;
  std::int64_t dim(int i) const;    // negative i counts from the end
};

struct context {
  std::vector<tensor> inputs;
  std::vector<tensor> outputs;
  // The final content of each input, starting as the input: an in-place operator's reference
  // updates what the operator updates (`ctx.out("x")` finds it when no output is named "x").
  std::vector<tensor> updated;
  nlohmann::json attrs = nlohmann::json::object();

  const tensor& in(std::string_view name) const;   // throws std::out_of_range naming `name`
  tensor& out(std::string_view name);              // an output, else an input's final content
  template <class T>
  T attr(std::string_view name, T fallback) const {
    auto it = attrs.find(std::string(name));
    return it == attrs.end() ? fallback : it->get<T>();
  }
};

// Rounds v to the precision of dtype (round to nearest even for float16/bfloat16/float32;
// truncation toward zero and wrap-around for integer types, as a C++ conversion does).
double round_to(std::string_view dtype, double v);

}  // namespace aopt::ref

// Defined by the operator's reference.cpp.
void aopt_reference(aopt::ref::context& ctx);
