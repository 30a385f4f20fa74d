// The emulated CANN host runtime types (namespace gert): shapes, tensor descriptions, attributes
// and the contexts a tiling / InferShape / InferDataType function receives. Names and
// signatures follow CANN's documented API; the data behind them lives in an
// aopt::sim::host::op_instance that the harness fills for one run.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "graph/types.h"
// CANN's exe_graph/runtime/continuous_vector.h, which every context header reaches, includes
// <securec.h>: host code calls memset_s / memcpy_s with no include of its own (cann-ops'
// gemm/cache_tiling_basic_block_calc.cc).
#include "securec.h"

namespace fe {
class PlatFormInfos;
}

namespace gert {

class Shape {
 public:
  static constexpr std::size_t kMaxDimNum = 25;
  static constexpr int64_t kInvalidDimValue = std::numeric_limits<int64_t>::min();

  Shape() = default;
  Shape(std::initializer_list<int64_t> dims) {
    for (int64_t d : dims) AppendDim(d);
  }
  std::size_t GetDimNum() const { return dim_num_; }
  void SetDimNum(std::size_t n) { dim_num_ = std::min(n, kMaxDimNum); }
  int64_t GetDim(std::size_t idx) const { return idx < dim_num_ ? dims_[idx] : kInvalidDimValue; }
  void SetDim(std::size_t idx, int64_t v) {
    if (idx < kMaxDimNum) dims_[idx] = v;
  }
  Shape& AppendDim(int64_t v) {
    if (dim_num_ < kMaxDimNum) dims_[dim_num_++] = v;
    return *this;
  }
  // Number of elements: 1 for a scalar, -1 when a dimension is unknown (negative).
  int64_t GetShapeSize() const {
    int64_t n = 1;
    for (std::size_t i = 0; i < dim_num_; ++i) {
      if (dims_[i] < 0) return -1;
      n *= dims_[i];
    }
    return n;
  }
  bool IsScalar() const { return dim_num_ == 0; }
  void SetScalar() { dim_num_ = 0; }
  const int64_t& operator[](std::size_t idx) const { return dims_[idx]; }
  int64_t& operator[](std::size_t idx) { return dims_[idx]; }
  bool operator==(const Shape& o) const {
    if (dim_num_ != o.dim_num_) return false;
    for (std::size_t i = 0; i < dim_num_; ++i) {
      if (dims_[i] != o.dims_[i]) return false;
    }
    return true;
  }
  bool operator!=(const Shape& o) const { return !(*this == o); }

 private:
  std::size_t dim_num_ = 0;
  std::array<int64_t, kMaxDimNum> dims_{};
};

class StorageShape {
 public:
  StorageShape() = default;
  StorageShape(std::initializer_list<int64_t> origin, std::initializer_list<int64_t> storage)
      : origin_(origin), storage_(storage) {}
  const Shape& GetOriginShape() const { return origin_; }
  const Shape& GetStorageShape() const { return storage_; }
  Shape& MutableOriginShape() { return origin_; }
  Shape& MutableStorageShape() { return storage_; }
  bool operator==(const StorageShape& o) const { return origin_ == o.origin_ && storage_ == o.storage_; }

 private:
  Shape origin_;
  Shape storage_;
};

class StorageFormat {
 public:
  StorageFormat() = default;
  StorageFormat(ge::Format origin, ge::Format storage) : origin_(origin), storage_(storage) {}
  ge::Format GetOriginFormat() const { return origin_; }
  ge::Format GetStorageFormat() const { return storage_; }
  void SetOriginFormat(ge::Format f) { origin_ = f; }
  void SetStorageFormat(ge::Format f) { storage_ = f; }

 private:
  ge::Format origin_ = ge::FORMAT_ND;
  ge::Format storage_ = ge::FORMAT_ND;
};

class CompileTimeTensorDesc {
 public:
  ge::DataType GetDataType() const { return dtype_; }
  void SetDataType(ge::DataType dt) { dtype_ = dt; }
  ge::Format GetOriginFormat() const { return format_.GetOriginFormat(); }
  ge::Format GetStorageFormat() const { return format_.GetStorageFormat(); }
  const StorageFormat& GetFormat() const { return format_; }
  void SetOriginFormat(ge::Format f) { format_.SetOriginFormat(f); }
  void SetStorageFormat(ge::Format f) { format_.SetStorageFormat(f); }

 private:
  ge::DataType dtype_ = ge::DT_FLOAT;
  StorageFormat format_;
};

// A tensor as a tiling function sees it: shape, dtype and (for value-depend inputs) the
// host copy of its data.
class Tensor {
 public:
  Tensor() = default;
  const StorageShape& GetShape() const { return shape_; }
  StorageShape& MutableShape() { return shape_; }
  const Shape& GetStorageShape() const { return shape_.GetStorageShape(); }
  const Shape& GetOriginShape() const { return shape_.GetOriginShape(); }
  Shape& MutableStorageShape() { return shape_.MutableStorageShape(); }
  Shape& MutableOriginShape() { return shape_.MutableOriginShape(); }
  int64_t GetShapeSize() const { return shape_.GetStorageShape().GetShapeSize(); }
  ge::DataType GetDataType() const { return dtype_; }
  void SetDataType(ge::DataType dt) { dtype_ = dt; }
  ge::Format GetStorageFormat() const { return format_.GetStorageFormat(); }
  ge::Format GetOriginFormat() const { return format_.GetOriginFormat(); }
  const StorageFormat& GetFormat() const { return format_; }
  void SetStorageFormat(ge::Format f) { format_.SetStorageFormat(f); }
  void SetOriginFormat(ge::Format f) { format_.SetOriginFormat(f); }
  template <typename T>
  const T* GetData() const { return static_cast<const T*>(data_); }
  template <typename T>
  T* GetData() { return static_cast<T*>(const_cast<void*>(data_)); }
  const void* GetAddr() const { return data_; }
  std::size_t GetSize() const { return size_; }
  // emulator: attach the host copy of the tensor's bytes (not owned)
  void SetData(const void* data, std::size_t bytes) {
    data_ = data;
    size_ = bytes;
  }

 private:
  StorageShape shape_;
  ge::DataType dtype_ = ge::DT_FLOAT;
  StorageFormat format_;
  const void* data_ = nullptr;
  std::size_t size_ = 0;
};

class ContinuousVector {
 public:
  ContinuousVector() = default;
  ContinuousVector(const void* data, std::size_t size) : data_(data), size_(size) {}
  std::size_t GetSize() const { return size_; }
  std::size_t GetCapacity() const { return size_; }
  const void* GetData() const { return data_; }

 private:
  const void* data_ = nullptr;
  std::size_t size_ = 0;
};

template <typename T>
class TypedContinuousVector : public ContinuousVector {
 public:
  TypedContinuousVector() = default;
  TypedContinuousVector(const T* data, std::size_t size) : ContinuousVector(data, size) {}
  const T* GetData() const { return static_cast<const T*>(ContinuousVector::GetData()); }
};

// One attribute value, kept by RuntimeAttrs.
struct AoptAttrValue {
  enum class kind : uint8_t { none, boolean, int64, float32, string, list_int, list_float, list_bool, data_type };
  kind k = kind::none;
  bool b = false;
  int64_t i = 0;
  float f = 0.0f;
  std::string s;
  std::vector<int64_t> li;
  std::vector<float> lf;
  std::vector<uint8_t> lb;  // bools, one byte each
  TypedContinuousVector<int64_t> li_view;
  TypedContinuousVector<float> lf_view;
  TypedContinuousVector<bool> lb_view;
  // GE stores a list attribute as a ContinuousVector whose first 8 bytes are its capacity: what
  // GetInt(index) of a list attribute reads there (real tiling code does, by index slips).
  int64_t list_head = 0;
  void refresh_views() {
    if (k == kind::boolean) i = b ? 1 : 0;  // the bool's slot read as an integer (GetAttrPointer)
    list_head = static_cast<int64_t>(k == kind::list_int ? li.size() : k == kind::list_float ? lf.size() : lb.size());
    li_view = TypedContinuousVector<int64_t>(li.data(), li.size());
    lf_view = TypedContinuousVector<float>(lf.data(), lf.size());
    lb_view = TypedContinuousVector<bool>(reinterpret_cast<const bool*>(lb.data()), lb.size());
  }
};

class RuntimeAttrs {
 public:
  std::size_t GetAttrNum() const { return attrs_.size(); }
  // Pointer to attribute `index` read as T: int64_t / float / bool / char (string) /
  // ContinuousVector or TypedContinuousVector<T> (lists); nullptr if absent or of another kind.
  // The public runtime_attrs.h reinterprets the attribute's storage as T whatever its kind, so
  // tiling code reads a Bool attribute as int64_t (`GetAttrPointer<int64_t>` of zero_infinity):
  // here a bool lives in a zero-filled 8-byte slot and reads as 0 or 1 [ASSUMED: the real
  // storage's bytes past the bool are not documented].
  template <typename T>
  const T* GetAttrPointer(std::size_t index) const {
    if (index >= attrs_.size()) return nullptr;
    const AoptAttrValue& a = *attrs_[index];
    using U = std::remove_cv_t<T>;
    if constexpr (std::is_same_v<U, char>) {
      return a.k == AoptAttrValue::kind::string ? a.s.c_str() : nullptr;
    } else if constexpr (std::is_same_v<U, bool>) {
      return a.k == AoptAttrValue::kind::boolean ? &a.b : nullptr;
    } else if constexpr (std::is_same_v<U, float>) {
      return a.k == AoptAttrValue::kind::float32 ? &a.f : nullptr;
    } else if constexpr (std::is_same_v<U, int64_t>) {
      if (a.k == AoptAttrValue::kind::list_int || a.k == AoptAttrValue::kind::list_float ||
          a.k == AoptAttrValue::kind::list_bool) {
        return &a.list_head;
      }
      return (a.k == AoptAttrValue::kind::int64 || a.k == AoptAttrValue::kind::data_type ||
              a.k == AoptAttrValue::kind::boolean)
                 ? &a.i
                 : nullptr;
    } else if constexpr (std::is_same_v<U, int32_t> || std::is_same_v<U, uint32_t> ||
                         std::is_same_v<U, uint64_t>) {
      return (a.k == AoptAttrValue::kind::int64 || a.k == AoptAttrValue::kind::data_type ||
              a.k == AoptAttrValue::kind::boolean)
                 ? reinterpret_cast<const T*>(&a.i)  // little-endian: low bits first
                 : nullptr;
    } else if constexpr (std::is_same_v<U, ContinuousVector>) {
      switch (a.k) {
        case AoptAttrValue::kind::list_int: return &a.li_view;
        case AoptAttrValue::kind::list_float: return &a.lf_view;
        case AoptAttrValue::kind::list_bool: return &a.lb_view;
        default: return nullptr;
      }
    } else if constexpr (std::is_same_v<U, TypedContinuousVector<int64_t>>) {
      return a.k == AoptAttrValue::kind::list_int ? &a.li_view : nullptr;
    } else if constexpr (std::is_same_v<U, TypedContinuousVector<float>>) {
      return a.k == AoptAttrValue::kind::list_float ? &a.lf_view : nullptr;
    } else if constexpr (std::is_same_v<U, TypedContinuousVector<bool>>) {
      return a.k == AoptAttrValue::kind::list_bool ? &a.lb_view : nullptr;
    } else {
      static_assert(sizeof(T) == 0, "GetAttrPointer<T>: unsupported attribute type in the aopt sim");
      return nullptr;
    }
  }
  const int64_t* GetInt(std::size_t index) const { return GetAttrPointer<int64_t>(index); }
  const float* GetFloat(std::size_t index) const { return GetAttrPointer<float>(index); }
  const bool* GetBool(std::size_t index) const { return GetAttrPointer<bool>(index); }
  const char* GetStr(std::size_t index) const { return GetAttrPointer<char>(index); }
  const TypedContinuousVector<int64_t>* GetListInt(std::size_t index) const {
    return GetAttrPointer<TypedContinuousVector<int64_t>>(index);
  }
  const TypedContinuousVector<float>* GetListFloat(std::size_t index) const {
    return GetAttrPointer<TypedContinuousVector<float>>(index);
  }
  const TypedContinuousVector<bool>* GetListBool(std::size_t index) const {
    return GetAttrPointer<TypedContinuousVector<bool>>(index);
  }

  // emulator: append one attribute (in OpDef order)
  void aopt_add(std::unique_ptr<AoptAttrValue> v) {
    v->refresh_views();
    attrs_.push_back(std::move(v));
  }

 private:
  std::vector<std::unique_ptr<AoptAttrValue>> attrs_;
};

// The raw tiling buffer of a TilingContext.
class TilingData {
 public:
  explicit TilingData(std::size_t capacity = 0) : buf_(capacity, 0) {}
  void* GetData() { return buf_.data(); }
  const void* GetData() const { return buf_.data(); }
  std::size_t GetCapacity() const { return buf_.size(); }
  std::size_t GetDataSize() const { return size_; }
  void SetDataSize(std::size_t size) { size_ = size; }
  template <typename T>
  ge::graphStatus Append(const T& data) {
    static_assert(std::is_trivially_copyable_v<T>, "TilingData::Append needs a trivially copyable type");
    if (size_ + sizeof(T) > buf_.size()) return ge::GRAPH_FAILED;
    std::memcpy(buf_.data() + size_, &data, sizeof(T));
    size_ += sizeof(T);
    return ge::GRAPH_SUCCESS;
  }
  template <typename T>
  ge::graphStatus Append(const T* data, std::size_t count) {
    if (size_ + sizeof(T) * count > buf_.size()) return ge::GRAPH_FAILED;
    std::memcpy(buf_.data() + size_, data, sizeof(T) * count);
    size_ += sizeof(T) * count;
    return ge::GRAPH_SUCCESS;
  }

 private:
  std::vector<uint8_t> buf_;
  std::size_t size_ = 0;
};

}  // namespace gert

namespace aopt::sim::host {

// One input or output instance of the node being tiled.
struct io_slot {
  std::string name;             // IR name ("x"); list members share it
  std::size_t ir_index = 0;     // index of the IR input/output in the OpDef
  std::size_t relative = 0;     // position inside a dynamic list
  gert::StorageShape shape;
  gert::CompileTimeTensorDesc desc;
  gert::Tensor tensor;          // shape + dtype + host data of the instance
};

// Everything a tiling/infer function may ask about the node: filled by the harness or a test.
struct op_instance {
  std::string node_name = "aopt_node";
  std::string node_type;
  std::vector<io_slot> inputs;   // instances in order; absent optional inputs are not listed
  std::vector<io_slot> outputs;
  std::size_t ir_input_count = 0;
  std::size_t ir_output_count = 0;
  gert::RuntimeAttrs attrs;
  gert::TilingData raw_tiling{64 * 1024};
  std::vector<std::size_t> workspaces = std::vector<std::size_t>(16, 0);
  std::size_t workspace_num = 0;  // what the last GetWorkspaceSizes(n) asked for
  uint32_t block_dim = 0;
  uint64_t tiling_key = 0;
  bool tiling_key_set = false;
  uint32_t schedule_mode = 0;
  bool need_atomic = false;
  int32_t deterministic = 0;
  std::size_t typed_tiling_bytes = 0;  // sizeof(T) of the last GetTilingData<T>()
  fe::PlatFormInfos* platform = nullptr;
  const void* compile_info = nullptr;

  // instance index of (IR input `ir`, list position `rel`), or -1
  long find_input(std::size_t ir, std::size_t rel) const {
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      if (inputs[i].ir_index == ir && inputs[i].relative == rel) return static_cast<long>(i);
    }
    return -1;
  }
  long find_output(std::size_t ir, std::size_t rel) const {
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      if (outputs[i].ir_index == ir && outputs[i].relative == rel) return static_cast<long>(i);
    }
    return -1;
  }
};

}  // namespace aopt::sim::host

namespace gert {

// Shared accessors of the node's inputs/outputs/attrs for every kind of context.
// What a context knows of its node (ExtendedKernelContext::GetComputeNodeInfo()): name, type and
// the number of input and output instances.
// Where an IR input's (or output's) instances sit among the node's: the first instance's index
// and how many (a dynamic list has several, an absent optional input none).
class AnchorInstanceInfo {
 public:
  AnchorInstanceInfo() = default;
  AnchorInstanceInfo(uint32_t start, uint32_t num) : start_(start), num_(num) {}
  uint32_t GetInstanceStart() const { return start_; }
  uint32_t GetInstanceNum() const { return num_; }

 private:
  uint32_t start_ = 0;
  uint32_t num_ = 0;
};

class ComputeNodeInfo {
 public:
  explicit ComputeNodeInfo(aopt::sim::host::op_instance* op) : op_(op) {}
  const AnchorInstanceInfo* GetInputInstanceInfo(std::size_t ir_index) const {
    return anchor(op_->inputs, op_->ir_input_count, ir_index, in_anchors_);
  }
  const AnchorInstanceInfo* GetOutputInstanceInfo(std::size_t ir_index) const {
    return anchor(op_->outputs, op_->ir_output_count, ir_index, out_anchors_);
  }
  const char* GetNodeName() const { return op_->node_name.c_str(); }
  const char* GetNodeType() const { return op_->node_type.c_str(); }
  std::size_t GetInputsNum() const { return op_->inputs.size(); }
  std::size_t GetOutputsNum() const { return op_->outputs.size(); }
  std::size_t GetIrInputsNum() const { return op_->ir_input_count; }
  std::size_t GetIrOutputsNum() const { return op_->ir_output_count; }
  const CompileTimeTensorDesc* GetInputTdInfo(std::size_t index) const {
    return index < op_->inputs.size() ? &op_->inputs[index].desc : nullptr;
  }
  const CompileTimeTensorDesc* GetOutputTdInfo(std::size_t index) const {
    return index < op_->outputs.size() ? &op_->outputs[index].desc : nullptr;
  }
  const RuntimeAttrs* GetAttrs() const { return &op_->attrs; }

 private:
  template <class Slots>
  static const AnchorInstanceInfo* anchor(const Slots& slots, std::size_t ir_count, std::size_t ir,
                                          std::vector<AnchorInstanceInfo>& cache) {
    if (ir >= ir_count) return nullptr;
    if (cache.size() != ir_count) cache.assign(ir_count, AnchorInstanceInfo());
    uint32_t start = 0, num = 0;
    bool seen = false;
    for (std::size_t i = 0; i < slots.size(); ++i) {
      if (slots[i].ir_index < ir && !seen) start = static_cast<uint32_t>(i + 1);
      if (slots[i].ir_index == ir) {
        if (!seen) start = static_cast<uint32_t>(i);
        seen = true;
        ++num;
      }
    }
    cache[ir] = AnchorInstanceInfo(start, num);
    return &cache[ir];
  }
  aopt::sim::host::op_instance* op_;
  mutable std::vector<AnchorInstanceInfo> in_anchors_;
  mutable std::vector<AnchorInstanceInfo> out_anchors_;
};

class ExtendedKernelContext {
 public:
  explicit ExtendedKernelContext(aopt::sim::host::op_instance* op) : op_(op), node_info_(op) {}
  const ComputeNodeInfo* GetComputeNodeInfo() const { return &node_info_; }
  const char* GetNodeName() const { return op_->node_name.c_str(); }
  const char* GetNodeType() const { return op_->node_type.c_str(); }
  const RuntimeAttrs* GetAttrs() const { return &op_->attrs; }
  std::size_t GetComputeNodeInputNum() const { return op_->inputs.size(); }
  std::size_t GetComputeNodeOutputNum() const { return op_->outputs.size(); }
  // The compile-time descriptors (dtype, formats) of the node's inputs and outputs, for every
  // kind of context (an InferShape function reads its output's format by GetOutputDesc).
  const CompileTimeTensorDesc* GetInputDesc(std::size_t index) const {
    auto* s = in_(index);
    return s ? &s->desc : nullptr;
  }
  const CompileTimeTensorDesc* GetOptionalInputDesc(std::size_t ir_index) const {
    auto* s = in_ir_(ir_index, 0);
    return s ? &s->desc : nullptr;
  }
  const CompileTimeTensorDesc* GetDynamicInputDesc(std::size_t ir_index, std::size_t relative_index) const {
    auto* s = in_ir_(ir_index, relative_index);
    return s ? &s->desc : nullptr;
  }
  const CompileTimeTensorDesc* GetOutputDesc(std::size_t index) const {
    auto* s = out_(index);
    return s ? &s->desc : nullptr;
  }
  // emulator
  aopt::sim::host::op_instance* aopt_op() const { return op_; }

 protected:
  aopt::sim::host::io_slot* in_(std::size_t i) const {
    return i < op_->inputs.size() ? &op_->inputs[i] : nullptr;
  }
  aopt::sim::host::io_slot* in_ir_(std::size_t ir, std::size_t rel) const {
    const long i = op_->find_input(ir, rel);
    return i < 0 ? nullptr : &op_->inputs[static_cast<std::size_t>(i)];
  }
  aopt::sim::host::io_slot* out_(std::size_t i) const {
    return i < op_->outputs.size() ? &op_->outputs[i] : nullptr;
  }
  aopt::sim::host::io_slot* out_ir_(std::size_t ir, std::size_t rel) const {
    const long i = op_->find_output(ir, rel);
    return i < 0 ? nullptr : &op_->outputs[static_cast<std::size_t>(i)];
  }
  aopt::sim::host::op_instance* op_;
  ComputeNodeInfo node_info_;
};

class CompileTimeTensorDesc;

class TilingContext : public ExtendedKernelContext {
 public:
  using ExtendedKernelContext::ExtendedKernelContext;

  const StorageShape* GetInputShape(std::size_t index) const {
    auto* s = in_(index);
    return s ? &s->shape : nullptr;
  }
  const StorageShape* GetOptionalInputShape(std::size_t ir_index) const {
    auto* s = in_ir_(ir_index, 0);
    return s ? &s->shape : nullptr;
  }
  const StorageShape* GetDynamicInputShape(std::size_t ir_index, std::size_t relative_index) const {
    auto* s = in_ir_(ir_index, relative_index);
    return s ? &s->shape : nullptr;
  }
  const StorageShape* GetOutputShape(std::size_t index) const {
    auto* s = out_(index);
    return s ? &s->shape : nullptr;
  }
  const Tensor* GetInputTensor(std::size_t index) const {
    auto* s = in_(index);
    return s ? &s->tensor : nullptr;
  }
  const Tensor* GetOptionalInputTensor(std::size_t ir_index) const {
    auto* s = in_ir_(ir_index, 0);
    return s ? &s->tensor : nullptr;
  }
  const Tensor* GetDynamicInputTensor(std::size_t ir_index, std::size_t relative_index) const {
    auto* s = in_ir_(ir_index, relative_index);
    return s ? &s->tensor : nullptr;
  }

  ge::graphStatus SetBlockDim(uint32_t block_dim) {
    op_->block_dim = block_dim;
    return ge::GRAPH_SUCCESS;
  }
  uint32_t GetBlockDim() const { return op_->block_dim; }
  ge::graphStatus SetTilingKey(uint64_t key) {
    op_->tiling_key = key;
    op_->tiling_key_set = true;
    return ge::GRAPH_SUCCESS;
  }
  uint64_t GetTilingKey() const { return op_->tiling_key; }
  ge::graphStatus SetScheduleMode(uint32_t mode) {
    op_->schedule_mode = mode;
    return ge::GRAPH_SUCCESS;
  }
  uint32_t GetScheduleMode() const { return op_->schedule_mode; }
  ge::graphStatus SetNeedAtomic(bool atomic) {
    op_->need_atomic = atomic;
    return ge::GRAPH_SUCCESS;
  }
  bool NeedAtomic() const { return op_->need_atomic; }
  int32_t GetDeterministic() const { return op_->deterministic; }
  // Array of `num` workspace sizes (bytes); [0] is what the kernel's workspace pointer gets.
  std::size_t* GetWorkspaceSizes(std::size_t num) {
    if (num > op_->workspaces.size()) op_->workspaces.resize(num, 0);
    op_->workspace_num = std::max(op_->workspace_num, num);
    return op_->workspaces.data();
  }
  std::size_t GetWorkspaceNum() const { return op_->workspace_num; }
  TilingData* GetRawTilingData() { return &op_->raw_tiling; }
  // Layout-3 plain-struct tiling: the raw buffer viewed as T (zeroed, size recorded).
  template <typename T>
  T* GetTilingData() {
    static_assert(std::is_trivially_copyable_v<T>, "GetTilingData<T>: T must be a plain struct");
    if (sizeof(T) > op_->raw_tiling.GetCapacity()) return nullptr;
    op_->typed_tiling_bytes = sizeof(T);
    if (op_->raw_tiling.GetDataSize() < sizeof(T)) op_->raw_tiling.SetDataSize(sizeof(T));
    return static_cast<T*>(op_->raw_tiling.GetData());
  }
  fe::PlatFormInfos* GetPlatformInfo() const { return op_->platform; }
  template <typename T = void>
  const T* GetCompileInfo() const { return static_cast<const T*>(op_->compile_info); }
};

class InferShapeContext : public ExtendedKernelContext {
 public:
  using ExtendedKernelContext::ExtendedKernelContext;
  const Shape* GetInputShape(std::size_t index) const {
    auto* s = in_(index);
    return s ? &s->shape.GetOriginShape() : nullptr;
  }
  const Shape* GetOptionalInputShape(std::size_t ir_index) const {
    auto* s = in_ir_(ir_index, 0);
    return s ? &s->shape.GetOriginShape() : nullptr;
  }
  const Shape* GetDynamicInputShape(std::size_t ir_index, std::size_t relative_index) const {
    auto* s = in_ir_(ir_index, relative_index);
    return s ? &s->shape.GetOriginShape() : nullptr;
  }
  const Tensor* GetInputTensor(std::size_t index) const {
    auto* s = in_(index);
    return s ? &s->tensor : nullptr;
  }
  const Tensor* GetOptionalInputTensor(std::size_t ir_index) const {
    auto* s = in_ir_(ir_index, 0);
    return s ? &s->tensor : nullptr;
  }
  Shape* GetOutputShape(std::size_t index) {
    auto* s = out_(index);
    return s ? &s->shape.MutableOriginShape() : nullptr;
  }
  // Every kernel context's (CANN's ExtendedKernelContext): conv2d_backprop_filter_v2's InferShape
  // reads the output's origin format.
  const CompileTimeTensorDesc* GetOutputDesc(std::size_t index) const {
    auto* s = out_(index);
    return s ? &s->desc : nullptr;
  }
};

class InferDataTypeContext : public ExtendedKernelContext {
 public:
  using ExtendedKernelContext::ExtendedKernelContext;
  ge::DataType GetInputDataType(std::size_t index) const {
    auto* s = in_(index);
    return s ? s->desc.GetDataType() : ge::DT_UNDEFINED;
  }
  ge::DataType GetOptionalInputDataType(std::size_t ir_index) const {
    auto* s = in_ir_(ir_index, 0);
    return s ? s->desc.GetDataType() : ge::DT_UNDEFINED;
  }
  ge::DataType GetDynamicInputDataType(std::size_t ir_index, std::size_t relative_index) const {
    auto* s = in_ir_(ir_index, relative_index);
    return s ? s->desc.GetDataType() : ge::DT_UNDEFINED;
  }
  ge::DataType GetOutputDataType(std::size_t index) const {
    auto* s = out_(index);
    return s ? s->desc.GetDataType() : ge::DT_UNDEFINED;
  }
  ge::graphStatus SetOutputDataType(std::size_t index, ge::DataType dt) {
    auto* s = out_(index);
    if (!s) return ge::GRAPH_FAILED;
    s->desc.SetDataType(dt);
    s->tensor.SetDataType(dt);
    return ge::GRAPH_SUCCESS;
  }
};

// A shape range (min and max shape) as InferShapeRange functions read and write them.
template <typename T>
class Range {
 public:
  Range() = default;
  Range(T* min, T* max) : min_(min), max_(max) {}
  const T* GetMin() const { return min_; }
  const T* GetMax() const { return max_; }
  T* GetMin() { return min_; }
  T* GetMax() { return max_; }
  void SetMin(T* min) { min_ = min; }
  void SetMax(T* max) { max_ = max; }

 private:
  T* min_ = nullptr;
  T* max_ = nullptr;
};

// Context of an InferShapeRange function. sim registers such functions (IMPL_OP_INFERSHAPE(..)
// .InferShapeRange(f)) but runs none: shape ranges serve graph compilation with dynamic shapes,
// and every run here has static shapes. The context is complete so that a test can call one:
// an input's range is [its shape, its shape]; an output's range starts as its shape.
class InferShapeRangeContext : public ExtendedKernelContext {
 public:
  explicit InferShapeRangeContext(aopt::sim::host::op_instance* op) : ExtendedKernelContext(op) {
    in_shapes_.reserve(op->inputs.size());
    for (auto& i : op->inputs) in_shapes_.push_back(i.shape.GetOriginShape());
    for (auto& o : op->outputs) {
      out_min_.push_back(o.shape.GetOriginShape());
      out_max_.push_back(o.shape.GetOriginShape());
    }
    for (std::size_t i = 0; i < in_shapes_.size(); ++i) in_ranges_.emplace_back(&in_shapes_[i], &in_shapes_[i]);
    for (std::size_t i = 0; i < out_min_.size(); ++i) out_ranges_.emplace_back(&out_min_[i], &out_max_[i]);
  }
  const Range<Shape>* GetInputShapeRange(std::size_t index) const {
    return index < in_ranges_.size() ? &in_ranges_[index] : nullptr;
  }
  const Range<Shape>* GetOptionalInputShapeRange(std::size_t ir_index) const {
    const long i = op_->find_input(ir_index, 0);
    return i < 0 ? nullptr : &in_ranges_[static_cast<std::size_t>(i)];
  }
  const Range<Shape>* GetDynamicInputShapeRange(std::size_t ir_index, std::size_t relative_index) const {
    const long i = op_->find_input(ir_index, relative_index);
    return i < 0 ? nullptr : &in_ranges_[static_cast<std::size_t>(i)];
  }
  Range<Shape>* GetOutputShapeRange(std::size_t index) {
    return index < out_ranges_.size() ? &out_ranges_[index] : nullptr;
  }
 private:
  std::vector<Shape> in_shapes_, out_min_, out_max_;
  std::vector<Range<Shape>> in_ranges_, out_ranges_;
};

// Context of a TilingParse (compile-info) function.
class TilingParseContext {
 public:
  TilingParseContext(void* compile_info, fe::PlatFormInfos* platform, const char* node_name)
      : compile_info_(compile_info), platform_(platform), node_name_(node_name) {}
  template <typename T>
  T* GetCompiledInfo() { return static_cast<T*>(compile_info_); }
  const char* GetCompiledJson() const { return "{}"; }
  fe::PlatFormInfos* GetPlatformInfo() const { return platform_; }
  const char* GetNodeName() const { return node_name_; }
  const char* GetNodeType() const { return node_name_; }

 private:
  void* compile_info_;
  fe::PlatFormInfos* platform_;
  const char* node_name_;
};

using TilingKernelFunc = ge::graphStatus (*)(TilingContext*);
using InferShapeKernelFunc = ge::graphStatus (*)(InferShapeContext*);
using InferDataTypeKernelFunc = ge::graphStatus (*)(InferDataTypeContext*);
using TilingParseKernelFunc = ge::graphStatus (*)(TilingParseContext*);
using InferShapeRangeKernelFunc = ge::graphStatus (*)(InferShapeRangeContext*);

}  // namespace gert
