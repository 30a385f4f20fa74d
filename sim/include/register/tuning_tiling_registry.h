// CANN header name (emulated): register/tuning_tiling_registry.h, the AOE tuning-tiling registry.
// cann-ops' cube tilings (common/op_host/op_tiling/aoe/op_tuning_tiling/*.h: mat_mul_v3, gemm_v2,
// batch_mat_mul_v3, quant_batch_matmul_v3, the conv2d/conv3d backprop operators) declare the
// tiling a tuning bank may hold for an operator type with these macros. Written from the public
// header's documented interface, not its code:
//   BEGIN_TUNING_TILING_DEF(Name)                     a class Name deriving TuningTilingDef
//     TUNING_TILING_DATA_FIELD_DEF(type, field);      a public member, recorded in GetItemInfo()
//   END_TUNING_TILING_DEF                             (type and field names as written)
//   DECLARE_SCHEMA(Name, FIELD(Name, field), ...)     what ToJson/FromJson carry
//                                                     (register/tuning_tiling_reflection_utils.h)
//   REGISTER_TUNING_TILING_CLASS(OpType, Name)        TuningTilingClassFactory creates a Name for
//                                                     "OpType"
// ToJson writes the schema's members into a JSON object (nested tuning-tiling members as objects);
// FromJson reads the members the object holds and leaves the others unchanged; GetClassName() is
// the class's name; CreateTilingDataInstance of a type nobody registered is nullptr. A second
// registration of one type replaces the first [ASSUMED: the public header does not say].
// sim has no tuning bank: nothing ever fills one of these from a bank (cann-ops' RuntimeKb queries
// find nothing), so the operators' own tiling decides, as on a machine whose bank is empty.
#pragma once

#include <map>
#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "graph/ascend_string.h"
#include "register/tuning_tiling_reflection_utils.h"

namespace tuningtiling {

// One member of a tuning-tiling class: its type and its name, as the macro spelled them.
struct TilingItem {
  ge::AscendString dtype_;
  ge::AscendString name_;
};

class TuningTilingDef {
 public:
  virtual void FromJson(const nlohmann::json& j) = 0;
  virtual void ToJson(nlohmann::json& j) = 0;
  ge::AscendString GetClassName() const { return class_name_; }
  virtual std::vector<TilingItem> GetItemInfo() const = 0;

 protected:
  TuningTilingDef() = default;
  TuningTilingDef(const TuningTilingDef&) = default;
  TuningTilingDef& operator=(const TuningTilingDef&) = default;
  virtual ~TuningTilingDef() = default;

  std::vector<TilingItem> field_info_;
  ge::AscendString class_name_;
};

using TuningTilingDefPtr = std::shared_ptr<TuningTilingDef>;

// Each TUNING_TILING_DATA_FIELD_DEF adds a member `<field>_item_` of this type after the field: its
// construction appends the field's TilingItem, so an object lists its fields in declaration order.
// Copying an object copies the list and adds nothing.
template <typename Owner>
class TuningFieldRecorder {
 public:
  TuningFieldRecorder(Owner* owner, const char* dtype, const char* name) { owner->field_info_.push_back({dtype, name}); }
  TuningFieldRecorder(const TuningFieldRecorder&) = default;
  TuningFieldRecorder& operator=(const TuningFieldRecorder&) = default;
};

#define BEGIN_TUNING_TILING_DEF(class_name)                                                              \
  class class_name : public ::tuningtiling::TuningTilingDef {                                            \
    using aopt_tuning_self_ = class_name;                                                                \
    friend class ::tuningtiling::TuningFieldRecorder<class_name>;                                        \
                                                                                                         \
   public:                                                                                               \
    class_name() { class_name_ = #class_name; }                                                          \
    void FromJson(const nlohmann::json& j) override { ::tuningtiling::schema_detail::read_fields(j, *this); } \
    void ToJson(nlohmann::json& j) override { ::tuningtiling::schema_detail::write_fields(*this, j); }  \
    std::vector<::tuningtiling::TilingItem> GetItemInfo() const override { return field_info_; }

#define TUNING_TILING_DATA_FIELD_DEF(data_type, field_name)                                              \
 public:                                                                                                 \
  data_type field_name{};                                                                                \
                                                                                                         \
 private:                                                                                                \
  ::tuningtiling::TuningFieldRecorder<aopt_tuning_self_> field_name##_item_{this, #data_type, #field_name}; \
                                                                                                         \
 public:

#define END_TUNING_TILING_DEF \
  }                           \
  ;

using TuningTilingDefConstructor = std::shared_ptr<TuningTilingDef> (*)();

// Operator type -> the constructor of its tuning-tiling class.
class TuningTilingClassFactory {
 public:
  static std::map<ge::AscendString, TuningTilingDefConstructor>& RegisterInfo() {
    static std::map<ge::AscendString, TuningTilingDefConstructor> info;
    return info;
  }
  static void RegisterTilingData(const ge::AscendString& optype, TuningTilingDefConstructor const constructor) {
    RegisterInfo()[optype] = constructor;
  }
  static std::shared_ptr<TuningTilingDef> CreateTilingDataInstance(const ge::AscendString& optype) {
    const auto& info = RegisterInfo();
    const auto it = info.find(optype);
    if (it == info.end() || it->second == nullptr) return nullptr;
    return it->second();
  }
};

#define REGISTER_TUNING_TILING_CLASS(optype, class_name)                                            \
  class optype##Helper {                                                                            \
   public:                                                                                          \
    optype##Helper() {                                                                              \
      ::tuningtiling::TuningTilingClassFactory::RegisterTilingData(#optype, &optype##Helper::Create); \
    }                                                                                               \
    static std::shared_ptr<::tuningtiling::TuningTilingDef> Create() {                              \
      return std::make_shared<class_name>();                                                        \
    }                                                                                               \
  };                                                                                                \
  static optype##Helper g_tuning_tiling_##optype##Helper

}  // namespace tuningtiling
