// CANN graph header name (emulated): ge::Shape, the graph-level shape host code builds from a
// vector of dimensions (the advanced APIs' host tiling functions take one).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "graph/types.h"

namespace ge {

class Shape {
 public:
  Shape() = default;
  explicit Shape(const std::vector<int64_t>& dims) : dims_(dims) {}
  std::size_t GetDimNum() const { return dims_.size(); }
  int64_t GetDim(std::size_t idx) const { return idx < dims_.size() ? dims_[idx] : 0; }
  graphStatus SetDim(std::size_t idx, int64_t value) {
    if (idx >= dims_.size()) return GRAPH_FAILED;
    dims_[idx] = value;
    return GRAPH_SUCCESS;
  }
  std::vector<int64_t> GetDims() const { return dims_; }
  // Product of the dimensions: 0 for a shape with no dimensions, -1 when one is unknown.
  int64_t GetShapeSize() const {
    if (dims_.empty()) return 0;
    int64_t n = 1;
    for (int64_t d : dims_) {
      if (d < 0) return -1;
      n *= d;
    }
    return n;
  }
  bool IsUnknownShape() const {
    for (int64_t d : dims_) {
      if (d < 0) return true;
    }
    return false;
  }
  bool operator==(const Shape& o) const { return dims_ == o.dims_; }
  bool operator!=(const Shape& o) const { return dims_ != o.dims_; }

 private:
  std::vector<int64_t> dims_;
};

}  // namespace ge
