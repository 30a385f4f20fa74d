// Emulated CANN operator definition (register/op_def_registry.h): ops::OpDef and OP_ADD,
// IMPL_OP_OPTILING / IMPL_OP_INFERSHAPE, plus the gert contexts and ge types the host sources
// of an operator use. Every definition is captured at static-initialization time into
// aopt::sim::host::op_defs(), from which the harness learns the operator's signature.
#pragma once

#include <cctype>
#include <cstdint>
#include <functional>
#include <iostream>  // the CANN registration headers bring it; host sources use std::cout unincluded
#include <map>
#include <memory>
#include <set>  // likewise: host sources (matmul_all_reduce) declare std::set tables unincluded
#include <string>
#include <vector>

#include "aopt_sim/host/gert.h"
#include "aopt_sim/host/op_log.h"
#include "ascendc/host_api/tiling/template_argument.h"
#include "graph/operator.h"  // the check-supported function's ge::Operator and ge::AscendString
#include "graph/types.h"
#include "graph/utils/type_utils.h"
#include "register/tilingdata_base.h"
#include "tiling/platform/platform_ascendc.h"

namespace aopt::sim::host {

enum class param_type : uint8_t { required, optional, dynamic };

struct param_def {
  std::string name;
  param_type type = param_type::required;
  std::vector<ge::DataType> dtypes;
  std::vector<ge::Format> formats;
  bool value_depend = false;
  bool shape_depends_on_compute = false;  // OutputShapeDependOnCompute: the kernel writes its shape
  // OpParamDef::InitValue: the value the runtime writes into this output before the kernel runs
  // (a kernel that accumulates into it with atomic adds). Empty: none. One entry: every dtype;
  // more: one per entry of `dtypes`, in order.
  std::vector<double> init_values;
};

struct attr_def {
  std::string name;
  gert::AoptAttrValue::kind kind = gert::AoptAttrValue::kind::none;
  bool required = false;
  gert::AoptAttrValue default_value;  // meaningful when !required or has_value
  bool has_value = false;             // the OpDef wrote a value (`.AttrType(REQUIRED).String("reflect")` too)
};

// Everything known about one operator type in this process.
struct op_def_record {
  std::string op_type;
  std::string kernel;  // snake_case of op_type unless overridden (opInterface.value)
  std::vector<param_def> inputs;
  std::vector<param_def> outputs;
  std::vector<attr_def> attrs;
  // IMPL_OP_*(Op).PrivateAttr(name, default): attributes the operator's InferShape/tiling read
  // after the OpDef's own (runtime index = OpDef attributes + position here), with their defaults.
  std::vector<attr_def> private_attrs;
  std::vector<std::string> socs;
  bool defined = false;  // an OpDef (OP_ADD) was seen, not only IMPL_OP_* registrations
  gert::TilingKernelFunc tiling = nullptr;
  gert::InferShapeKernelFunc infer_shape = nullptr;
  gert::InferDataTypeKernelFunc infer_dtype = nullptr;
  gert::TilingParseKernelFunc tiling_parse = nullptr;
  std::function<std::shared_ptr<void>()> make_compile_info;
};

// Registry of this process (host executable): op type -> record.
inline std::map<std::string, op_def_record>& op_defs() {
  static std::map<std::string, op_def_record> m;
  return m;
}
inline op_def_record& op_def_for(const std::string& op_type) {
  auto& r = op_defs()[op_type];
  r.op_type = op_type;
  return r;
}

// "AddCustom" -> "add_custom", "MulV3" -> "mul_v3" (CANN's rule for kernel function names).
inline std::string snake_case(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (std::isupper(c) != 0) {
      const bool prev_lower_or_digit = i > 0 && (std::islower(static_cast<unsigned char>(s[i - 1])) != 0 ||
                                                 std::isdigit(static_cast<unsigned char>(s[i - 1])) != 0);
      const bool prev_upper_next_lower = i > 0 && std::isupper(static_cast<unsigned char>(s[i - 1])) != 0 &&
                                         i + 1 < s.size() && std::islower(static_cast<unsigned char>(s[i + 1])) != 0;
      if (prev_lower_or_digit || prev_upper_next_lower) out.push_back('_');
      out.push_back(static_cast<char>(std::tolower(c)));
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out;
}

}  // namespace aopt::sim::host

namespace ops {

enum Option { IGNORE = 0, OPTIONAL = 1, REQUIRED = 2, DYNAMIC = 3, VIRTUAL = 4 };
enum class DependScope : uint32_t { ALL = 0, TILING = 1, INVALID_SCOPE };
enum class FollowType : uint32_t { ALL = 0, DTYPE = 1, FORMAT = 2, SHAPE = 3, INVALID_TYPE };
enum class ItemFindStatus { ITEM_FIND = 0, ITEM_NOEXIST = 1 };

// An output's initial value (OpParamDef::InitValue): its type and number, as the public OpDef
// documentation describes them. sim records the value (param_def::init_values) and the harness
// writes it into the output before the kernel runs (docs/harness-protocol.md).
enum class ScalarType : uint32_t {
  UINT64 = 0, INT64 = 1, UINT32 = 2, INT32 = 3, UINT16 = 4, INT16 = 5, UINT8 = 6, INT8 = 7, FLOAT32 = 8, FLOAT16 = 9,
  INVALID_DTYPE = static_cast<uint32_t>(-1),
};
union ScalarNum {
  uint64_t value_u64;
  int64_t value_i64;
  float value_f32;
  ScalarNum() : value_u64(0) {}
  explicit ScalarNum(uint64_t v) : value_u64(v) {}
  explicit ScalarNum(int64_t v) : value_i64(v) {}
  explicit ScalarNum(float v) : value_f32(v) {}
};
struct ScalarVar {
  ScalarType scalar_type = ScalarType::INVALID_DTYPE;
  ScalarNum scalar_num{};
  ScalarVar() = default;
  // The number is kept in the union member `t` names ({ScalarType::FLOAT32, 1} holds 1.0f).
  ScalarVar(ScalarType t, uint64_t n) : scalar_type(t), scalar_num(num_(t, n)) {}
  ScalarVar(ScalarType t, int64_t n) : scalar_type(t), scalar_num(num_(t, n)) {}
  ScalarVar(ScalarType t, int n) : scalar_type(t), scalar_num(num_(t, n)) {}
  ScalarVar(ScalarType t, unsigned int n) : scalar_type(t), scalar_num(num_(t, n)) {}
  ScalarVar(ScalarType t, float n) : scalar_type(t), scalar_num(num_(t, n)) {}
  ScalarVar(ScalarType t, double n) : scalar_type(t), scalar_num(num_(t, n)) {}

 private:
  template <class N>
  static ScalarNum num_(ScalarType t, N n) {
    if (t == ScalarType::FLOAT32 || t == ScalarType::FLOAT16) return ScalarNum(static_cast<float>(n));
    if (t == ScalarType::UINT64 || t == ScalarType::UINT32 || t == ScalarType::UINT16 || t == ScalarType::UINT8)
      return ScalarNum(static_cast<uint64_t>(n));
    return ScalarNum(static_cast<int64_t>(n));
  }
};

class OpParamDef {
 public:
  explicit OpParamDef(aopt::sim::host::param_def* d) : d_(d) {}
  OpParamDef& ParamType(Option t) {
    d_->type = t == DYNAMIC    ? aopt::sim::host::param_type::dynamic
               : t == OPTIONAL ? aopt::sim::host::param_type::optional
                               : aopt::sim::host::param_type::required;
    return *this;
  }
  OpParamDef& DataType(std::vector<ge::DataType> types) {
    d_->dtypes = std::move(types);
    return *this;
  }
  OpParamDef& DataTypeList(std::vector<ge::DataType> types) { return DataType(std::move(types)); }
  OpParamDef& Format(std::vector<ge::Format> formats) {
    d_->formats = std::move(formats);
    return *this;
  }
  OpParamDef& FormatList(std::vector<ge::Format> formats) { return Format(std::move(formats)); }
  OpParamDef& UnknownShapeFormat(std::vector<ge::Format> formats) {
    if (d_->formats.empty()) d_->formats = std::move(formats);
    return *this;
  }
  OpParamDef& ValueDepend(Option) {
    d_->value_depend = true;
    return *this;
  }
  OpParamDef& ValueDepend(Option, DependScope) { return ValueDepend(REQUIRED); }
  OpParamDef& IgnoreContiguous() { return *this; }
  OpParamDef& AutoContiguous() { return *this; }
  OpParamDef& Scalar() { return *this; }
  OpParamDef& ScalarList() { return *this; }
  OpParamDef& To(ge::DataType) { return *this; }
  OpParamDef& To(const char*) { return *this; }
  OpParamDef& Follow(const char*) { return *this; }
  OpParamDef& Follow(const char*, FollowType) { return *this; }
  OpParamDef& InitValue(uint64_t v) {
    d_->init_values = {static_cast<double>(v)};
    return *this;
  }
  OpParamDef& InitValue(const ScalarVar& v) {
    d_->init_values = {number_(v)};
    return *this;
  }
  OpParamDef& InitValue(const std::vector<ScalarVar>& vs) {
    d_->init_values.clear();
    for (const auto& v : vs) d_->init_values.push_back(number_(v));
    return *this;
  }
  OpParamDef& OutputShapeDependOnCompute() {
    d_->shape_depends_on_compute = true;
    return *this;
  }
  OpParamDef& DataTypeForBinQuery(std::vector<ge::DataType>) { return *this; }
  OpParamDef& FormatForBinQuery(std::vector<ge::Format>) { return *this; }
  OpParamDef& Comment(const char*) { return *this; }

 private:
  // A ScalarVar's number: the union member its scalar_type names.
  static double number_(const ScalarVar& v) {
    switch (v.scalar_type) {
      case ScalarType::FLOAT32:
      case ScalarType::FLOAT16: return static_cast<double>(v.scalar_num.value_f32);
      case ScalarType::UINT64:
      case ScalarType::UINT32:
      case ScalarType::UINT16:
      case ScalarType::UINT8: return static_cast<double>(v.scalar_num.value_u64);
      default: return static_cast<double>(v.scalar_num.value_i64);
    }
  }
  aopt::sim::host::param_def* d_;
};

class OpAttrDef {
 public:
  explicit OpAttrDef(aopt::sim::host::attr_def* d) : d_(d) {}
  OpAttrDef& AttrType(Option t) {
    d_->required = (t == REQUIRED);
    return *this;
  }
  OpAttrDef& Bool() { return kind_(K::boolean); }
  OpAttrDef& Bool(bool v) {
    d_->default_value.b = v;
    d_->has_value = true;
    return kind_(K::boolean);
  }
  OpAttrDef& Float() { return kind_(K::float32); }
  OpAttrDef& Float(float v) {
    d_->default_value.f = v;
    d_->has_value = true;
    return kind_(K::float32);
  }
  OpAttrDef& Int() { return kind_(K::int64); }
  OpAttrDef& Int(int64_t v) {
    d_->default_value.i = v;
    d_->has_value = true;
    return kind_(K::int64);
  }
  OpAttrDef& String() { return kind_(K::string); }
  OpAttrDef& String(const char* v) {
    d_->default_value.s = v != nullptr ? v : "";
    d_->has_value = true;
    return kind_(K::string);
  }
  OpAttrDef& ListInt() { return kind_(K::list_int); }
  OpAttrDef& ListInt(std::vector<int64_t> v) {
    d_->default_value.li = std::move(v);
    d_->has_value = true;
    return kind_(K::list_int);
  }
  OpAttrDef& ListFloat() { return kind_(K::list_float); }
  OpAttrDef& ListFloat(std::vector<float> v) {
    d_->default_value.lf = std::move(v);
    d_->has_value = true;
    return kind_(K::list_float);
  }
  OpAttrDef& ListBool() { return kind_(K::list_bool); }
  OpAttrDef& ListBool(std::vector<bool> v) {
    d_->default_value.lb.assign(v.begin(), v.end());
    d_->has_value = true;
    return kind_(K::list_bool);
  }
  OpAttrDef& Version(uint32_t) { return *this; }
  OpAttrDef& Comment(const char*) { return *this; }

 private:
  using K = gert::AoptAttrValue::kind;
  OpAttrDef& kind_(K k) {
    d_->kind = k;
    d_->default_value.k = k;
    return *this;
  }
  aopt::sim::host::attr_def* d_;
};

// Per-SoC configuration (`AddConfig("ascend910b", cfg)`): accepted, not needed on `sim`
// except opInterface.value, which renames the kernel function.
class OpAICoreConfig {
 public:
  OpAICoreConfig() = default;
  explicit OpAICoreConfig(const char*) {}
  OpParamDef& Input(const char* name) { return param_(name); }
  OpParamDef& Output(const char* name) { return param_(name); }
  OpAICoreConfig& DynamicCompileStaticFlag(bool) { return *this; }
  OpAICoreConfig& DynamicFormatFlag(bool) { return *this; }
  OpAICoreConfig& DynamicRankSupportFlag(bool) { return *this; }
  OpAICoreConfig& DynamicShapeSupportFlag(bool) { return *this; }
  OpAICoreConfig& NeedCheckSupportFlag(bool) { return *this; }
  OpAICoreConfig& PrecisionReduceFlag(bool) { return *this; }
  OpAICoreConfig& ExtendCfgInfo(const char* key, const char* value) {
    if (key != nullptr && value != nullptr && std::string(key) == "opInterface.value") interface_ = value;
    return *this;
  }
  const std::string& aopt_interface() const { return interface_; }

 private:
  OpParamDef& param_(const char* name) {
    scratch_.push_back(std::make_unique<aopt::sim::host::param_def>());
    scratch_.back()->name = name;
    defs_.push_back(std::make_unique<OpParamDef>(scratch_.back().get()));
    return *defs_.back();
  }
  std::string interface_;
  std::vector<std::unique_ptr<aopt::sim::host::param_def>> scratch_;
  std::vector<std::unique_ptr<OpParamDef>> defs_;
};

class OpAICoreDef {
 public:
  explicit OpAICoreDef(aopt::sim::host::op_def_record* r) : r_(r) {}
  OpAICoreDef& SetTiling(gert::TilingKernelFunc f) {
    r_->tiling = f;
    return *this;
  }
  OpAICoreDef& AddConfig(const char* soc) {
    r_->socs.emplace_back(soc);
    return *this;
  }
  OpAICoreDef& AddConfig(const char* soc, OpAICoreConfig& cfg) {
    r_->socs.emplace_back(soc);
    if (!cfg.aopt_interface().empty()) r_->kernel = cfg.aopt_interface();
    return *this;
  }
  template <class F>
  OpAICoreDef& SetCheckSupport(F) { return *this; }
  template <class F>
  OpAICoreDef& SetOpSelectFormat(F) { return *this; }

 private:
  aopt::sim::host::op_def_record* r_;
};

class OpMC2Def {
 public:
  OpMC2Def& HcclGroup(const char*) { return *this; }
  OpMC2Def& HcclGroup(std::vector<const char*>) { return *this; }
};

class OpDef {
 public:
  explicit OpDef(const char* type) : aicore_(&rec_) {
    rec_.op_type = type;
    rec_.kernel = aopt::sim::host::snake_case(type);
    rec_.defined = true;
  }
  OpDef(const OpDef&) = delete;
  OpDef& operator=(const OpDef&) = delete;
  virtual ~OpDef() = default;

  OpParamDef& Input(const char* name) { return param_(rec_.inputs, input_defs_, name); }
  OpParamDef& Output(const char* name) { return param_(rec_.outputs, output_defs_, name); }
  OpAttrDef& Attr(const char* name) {
    rec_.attrs.emplace_back();
    rec_.attrs.back().name = name;
    attr_defs_.clear();  // vector may have moved: rebuild the handles
    for (auto& a : rec_.attrs) attr_defs_.push_back(std::make_unique<OpAttrDef>(&a));
    return *attr_defs_.back();
  }
  OpDef& SetInferShape(gert::InferShapeKernelFunc f) {
    rec_.infer_shape = f;
    return *this;
  }
  template <class F>
  OpDef& SetInferShapeRange(F) { return *this; }
  OpDef& SetInferDataType(gert::InferDataTypeKernelFunc f) {
    rec_.infer_dtype = f;
    return *this;
  }
  OpAICoreDef& AICore() { return aicore_; }
  OpMC2Def& MC2() { return mc2_; }
  OpDef& Comment(const char*) { return *this; }
  OpDef& EnableFallBack() { return *this; }
  const char* GetOpType() const { return rec_.op_type.c_str(); }
  // emulator: the captured record
  const aopt::sim::host::op_def_record& aopt_record() const { return rec_; }

 private:
  OpParamDef& param_(std::vector<aopt::sim::host::param_def>& list, std::vector<std::unique_ptr<OpParamDef>>& handles,
                     const char* name) {
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (list[i].name == name) return *handles[i];
    }
    list.emplace_back();
    list.back().name = name;
    handles.clear();
    for (auto& p : list) handles.push_back(std::make_unique<OpParamDef>(&p));
    return *handles.back();
  }
  aopt::sim::host::op_def_record rec_;
  std::vector<std::unique_ptr<OpParamDef>> input_defs_;
  std::vector<std::unique_ptr<OpParamDef>> output_defs_;
  std::vector<std::unique_ptr<OpAttrDef>> attr_defs_;
  OpAICoreDef aicore_;
  OpMC2Def mc2_;
};

// Merges a finished definition into the registry (keeps IMPL_OP_* functions registered
// separately).
inline bool aopt_register_op_def(const OpDef& def) {
  const auto& src = def.aopt_record();
  auto& dst = aopt::sim::host::op_def_for(src.op_type);
  dst.kernel = src.kernel;
  dst.inputs = src.inputs;
  dst.outputs = src.outputs;
  dst.attrs = src.attrs;
  dst.socs = src.socs;
  dst.defined = true;
  if (src.tiling) dst.tiling = src.tiling;
  if (src.infer_shape) dst.infer_shape = src.infer_shape;
  if (src.infer_dtype) dst.infer_dtype = src.infer_dtype;
  return true;
}

}  // namespace ops

#define OP_ADD(op_type, ...)                                                                \
  [[maybe_unused]] static const bool aopt_op_def_registered_##op_type = [] {                \
    op_type aopt_def(#op_type);                                                             \
    return ::ops::aopt_register_op_def(aopt_def);                                           \
  }()

// IMPL_OP_OPTILING(Op).Tiling(f).TilingParse<CompileInfo>(parse)
// IMPL_OP_INFERSHAPE(Op).InferShape(f).InferDataType(g)
namespace gert {
class OpImplRegisterV2 {
 public:
  explicit OpImplRegisterV2(const char* op_type) : r_(&aopt::sim::host::op_def_for(op_type)) {
    if (r_->kernel.empty()) r_->kernel = aopt::sim::host::snake_case(op_type);
  }
  OpImplRegisterV2& Tiling(TilingKernelFunc f, std::size_t = 2048) {
    r_->tiling = f;
    return *this;
  }
  template <class CompileInfo>
  OpImplRegisterV2& TilingParse(TilingParseKernelFunc f) {
    r_->tiling_parse = f;
    r_->make_compile_info = [] { return std::shared_ptr<void>(std::make_shared<CompileInfo>()); };
    return *this;
  }
  OpImplRegisterV2& InferShape(InferShapeKernelFunc f) {
    r_->infer_shape = f;
    return *this;
  }
  OpImplRegisterV2& InferDataType(InferDataTypeKernelFunc f) {
    r_->infer_dtype = f;
    return *this;
  }
  // Every output takes the first input's data type (the registration's documented shortcut).
  OpImplRegisterV2& InferOutDataTypeSameWithFirstInput() {
    r_->infer_dtype = [](InferDataTypeContext* context) -> ge::graphStatus {
      const ge::DataType dt = context->GetInputDataType(0);
      for (std::size_t i = 0; i < context->GetComputeNodeOutputNum(); ++i) {
        if (context->SetOutputDataType(i, dt) != ge::GRAPH_SUCCESS) return ge::GRAPH_FAILED;
      }
      return ge::GRAPH_SUCCESS;
    };
    return *this;
  }
  template <class F>
  OpImplRegisterV2& InferShapeRange(F) { return *this; }
  OpImplRegisterV2& InputsDataDependency(std::initializer_list<int32_t>) { return *this; }
  OpImplRegisterV2& TilingInputsDataDependency(std::initializer_list<int32_t>) { return *this; }
  // A private attribute: not in the OpDef, appended after its attributes with this default.
  OpImplRegisterV2& PrivateAttr(const char* name, int64_t value) {
    aopt::sim::host::attr_def a;
    a.kind = gert::AoptAttrValue::kind::int64;
    a.default_value.i = value;
    return add_private(name, std::move(a));
  }
  OpImplRegisterV2& PrivateAttr(const char* name, const char* value) {
    aopt::sim::host::attr_def a;
    a.kind = gert::AoptAttrValue::kind::string;
    a.default_value.s = value != nullptr ? value : "";
    return add_private(name, std::move(a));
  }
  // The function that writes a tiling's "simplified key" (which prebuilt kernel binary a tiling
  // selects, e.g. cann-ops' mat_mul_v3): sim builds the kernel for every case and never calls it.
  using GenSimplifiedKeyKernelFunc = ge::graphStatus (*)(TilingContext*, ge::char_t*);
  OpImplRegisterV2& GenSimplifiedKey(GenSimplifiedKeyKernelFunc) { return *this; }

 private:
  OpImplRegisterV2& add_private(const char* name, aopt::sim::host::attr_def a) {
    a.name = name != nullptr ? name : "";
    a.default_value.k = a.kind;
    a.has_value = true;
    for (auto& p : r_->private_attrs) {
      if (p.name == a.name) {
        p = std::move(a);  // registered again (another IMPL_OP_* of the op): the last one wins
        return *this;
      }
    }
    r_->private_attrs.push_back(std::move(a));
    return *this;
  }
  aopt::sim::host::op_def_record* r_;
};
}  // namespace gert

#define AOPT_IMPL_CAT2_(a, b) a##b
#define AOPT_IMPL_CAT_(a, b) AOPT_IMPL_CAT2_(a, b)
#define IMPL_OP(op_type)                                                                      \
  [[maybe_unused]] static ::gert::OpImplRegisterV2 AOPT_IMPL_CAT_(aopt_op_impl_, __COUNTER__) = \
      ::gert::OpImplRegisterV2(#op_type)
#define IMPL_OP_OPTILING(op_type) IMPL_OP(op_type)
#define IMPL_OP_INFERSHAPE(op_type) IMPL_OP(op_type)
