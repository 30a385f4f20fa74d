// CANN graph header name (emulated): ge::Shape, the graph-level shape host code builds from a
// vector of dimensions (the advanced APIs' host tiling functions take one); ge::TensorDesc and
// ge::Tensor, a description with the bytes of one tensor (GetData, GetSize, SetData, GetTensorDesc),
// by the public graph API documentation (host code of const-folding helpers takes a Tensor).
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
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

class TensorDesc {
 public:
  TensorDesc() = default;
  TensorDesc(Shape shape, Format format = FORMAT_ND, DataType dt = DT_FLOAT)
      : shape_(std::move(shape)), origin_shape_(shape_), format_(format), origin_format_(format), dtype_(dt) {}
  Shape GetShape() const { return shape_; }
  void SetShape(const Shape& s) { shape_ = s; }
  Shape GetOriginShape() const { return origin_shape_; }
  void SetOriginShape(const Shape& s) { origin_shape_ = s; }
  DataType GetDataType() const { return dtype_; }
  void SetDataType(DataType dt) { dtype_ = dt; }
  Format GetFormat() const { return format_; }
  void SetFormat(Format f) { format_ = f; }
  Format GetOriginFormat() const { return origin_format_; }
  void SetOriginFormat(Format f) { origin_format_ = f; }

 private:
  Shape shape_, origin_shape_;
  Format format_ = FORMAT_NCHW;
  Format origin_format_ = FORMAT_NCHW;
  DataType dtype_ = DT_FLOAT;
};

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(const TensorDesc& desc) : desc_(desc) {}
  Tensor(const TensorDesc& desc, const std::vector<uint8_t>& data) : desc_(desc), data_(data) {}
  Tensor(const TensorDesc& desc, const uint8_t* data, std::size_t size) : desc_(desc) { (void)SetData(data, size); }
  TensorDesc GetTensorDesc() const { return desc_; }
  graphStatus SetTensorDesc(const TensorDesc& desc) {
    desc_ = desc;
    return GRAPH_SUCCESS;
  }
  const uint8_t* GetData() const { return data_.data(); }
  uint8_t* GetData() { return data_.data(); }
  // The size in bytes.
  std::size_t GetSize() const { return data_.size(); }
  graphStatus SetData(const std::vector<uint8_t>& data) {
    data_ = data;
    return GRAPH_SUCCESS;
  }
  graphStatus SetData(std::vector<uint8_t>&& data) {
    data_ = std::move(data);
    return GRAPH_SUCCESS;
  }
  graphStatus SetData(const uint8_t* data, std::size_t size) {
    if (data == nullptr && size != 0) return GRAPH_FAILED;
    data_.assign(data, data + size);
    return GRAPH_SUCCESS;
  }

 private:
  TensorDesc desc_;
  std::vector<uint8_t> data_;
};

}  // namespace ge
