// The prebuilt main of an operator's C++ reference (reference.h). Usage: ref REF_JSON where
//   {"inputs":  [{"name", "dtype", "shape", "file"} | {"name", "list": [{...}, ...]}],
//    "outputs": [{"name", "dtype", "shape", "file"}], "attrs": {...}}
// List inputs are passed as `name.0`, `name.1`, ... An output with "in_place": true is the final
// content of the input of its name (context::updated): it starts as that input (the reference
// updates what the operator updates in place); every other output starts zero-filled. Exit 0 on success, 2 with a message
// on error.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <stdexcept>

#include "aopt/evaluation/dtype.h"
#include "aopt/reference.h"

namespace aopt::ref {

std::int64_t tensor::numel() const {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

std::int64_t tensor::dim(int i) const {
  const int n = static_cast<int>(shape.size());
  const int k = i < 0 ? n + i : i;
  if (k < 0 || k >= n) throw std::out_of_range("tensor '" + name + "': dim " + std::to_string(i) + " out of range");
  return shape[static_cast<std::size_t>(k)];
}

const tensor& context::in(std::string_view name) const {
  for (const auto& t : inputs) {
    if (t.name == name) return t;
  }
  throw std::out_of_range("reference: no input named '" + std::string(name) + "'");
}

tensor& context::out(std::string_view name) {
  for (auto& t : outputs) {
    if (t.name == name) return t;
  }
  for (auto& t : updated) {
    if (t.name == name) return t;
  }
  throw std::out_of_range("reference: no output named '" + std::string(name) + "'");
}

double round_to(std::string_view dtype, double v) {
  const auto t = aopt::evaluation::parse_dtype(dtype);
  if (!t) throw std::invalid_argument("round_to: unknown dtype '" + std::string(dtype) + "'");
  return aopt::evaluation::round_to(*t, v);
}

}  // namespace aopt::ref

namespace {

namespace ev = aopt::evaluation;

ev::dtype need_dtype(const std::string& s) {
  auto t = ev::parse_dtype(s);
  if (!t) throw std::runtime_error("unknown dtype '" + s + "'");
  return *t;
}

aopt::ref::tensor read_tensor(const nlohmann::json& j, const std::string& name) {
  aopt::ref::tensor t;
  t.name = name;
  t.dtype = j.at("dtype").get<std::string>();
  t.shape = j.at("shape").get<std::vector<std::int64_t>>();
  const auto file = j.at("file").get<std::string>();
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read input file " + file);
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  t.data = ev::decode(need_dtype(t.dtype), bytes.data(), bytes.size());
  if (static_cast<std::int64_t>(t.data.size()) != t.numel()) {
    throw std::runtime_error("input " + name + ": file " + file + " holds " + std::to_string(t.data.size()) +
                             " elements, shape says " + std::to_string(t.numel()));
  }
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: " << argv[0] << " REF_JSON\n";
    return 2;
  }
  try {
    std::ifstream in(argv[1]);
    if (!in) throw std::runtime_error(std::string("cannot open ") + argv[1]);
    const auto spec = nlohmann::json::parse(in);
    aopt::ref::context ctx;
    for (const auto& i : spec.at("inputs")) {
      const auto name = i.at("name").get<std::string>();
      if (i.contains("list")) {
        std::size_t k = 0;
        for (const auto& t : i["list"]) ctx.inputs.push_back(read_tensor(t, name + "." + std::to_string(k++)));
      } else {
        ctx.inputs.push_back(read_tensor(i, name));
      }
    }
    for (const auto& o : spec.at("outputs")) {
      aopt::ref::tensor t;
      t.name = o.at("name").get<std::string>();
      t.dtype = o.at("dtype").get<std::string>();
      t.shape = o.at("shape").get<std::vector<std::int64_t>>();
      t.data.assign(static_cast<std::size_t>(t.numel()), 0.0);
      if (o.value("in_place", false)) {
        t.data = ctx.in(t.name).data;
        ctx.updated.push_back(std::move(t));
      } else {
        ctx.outputs.push_back(std::move(t));
      }
    }
    if (spec.contains("attrs")) ctx.attrs = spec["attrs"];
    aopt_reference(ctx);
    std::size_t oi = 0, ui = 0;
    for (const auto& o : spec.at("outputs")) {
      const auto& t = o.value("in_place", false) ? ctx.updated.at(ui++) : ctx.outputs.at(oi++);
      const auto bytes = ev::encode(need_dtype(t.dtype), t.data);  // encode rounds to the dtype
      const auto file = o.at("file").get<std::string>();
      std::ofstream out(file, std::ios::binary | std::ios::trunc);
      out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
      if (!out) throw std::runtime_error("cannot write output file " + file);
    }
  } catch (const std::exception& e) {
    std::cerr << "reference: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
