// CANN header name (emulated): register/tuning_bank_key_registry.h, the AOE tuning bank's keys.
// An operator type registers how a tiling context becomes its bank key (a plain struct of shapes,
// dtypes, attributes) and how that key is written to and read from JSON, so a tuning bank can be
// queried with it. Written from the public header's documented interface, not its code:
//   DECLARE_STRUCT_RELATE_WITH_OP_V2(OpType, KeyStruct, member, ...)
//       KeyStruct's JSON form (nlohmann, the listed members) and OpType's parse function (key ->
//       JSON text; false when the length is not sizeof(KeyStruct) or the key is null) and load
//       function (JSON text -> a new KeyStruct and its length; false when the text is not JSON of it)
//   REGISTER_OP_BANK_KEY_CONVERT_FUN_V2(OpType, fn)    fn(const gert::TilingContext*, key&, len&)
//   REGISTER_OP_BANK_KEY_PARSE_FUN_V2(OpType, parse, load)
// and the V1 forms (DECLARE_STRUCT_RELATE_WITH_OP, ..._FUN without V2: the parse/load functions
// take nlohmann::json instead of its text). OpBankKeyFuncRegistry(V2)::RegisteredOpFuncInfo(V2)()
// maps each type to its functions; a registration sets its functions on the type's entry and keeps
// the others (the convert and the parse/load registrations of one type may come in either order).
// sim has no tuning bank: these are registered and may be called by the operator's own code,
// nothing in sim queries a bank with them.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "exe_graph/runtime/tiling_context.h"
#include "graph/ascend_string.h"
#include "register/register_types.h"
#include "register/tuning_tiling_reflection_utils.h"

namespace tuningtiling {

using OpBankKeyConvertFun = std::function<bool(const gert::TilingContext*, std::shared_ptr<void>&, size_t&)>;
using OpBankParseFun = std::function<bool(const std::shared_ptr<void>&, size_t, nlohmann::json&)>;
using OpBankLoadFun = std::function<bool(std::shared_ptr<void>&, size_t&, const nlohmann::json&)>;

using OpBankKeyConvertFunV2 = std::function<bool(const gert::TilingContext*, std::shared_ptr<void>&, size_t&)>;
using OpBankParseFunV2 = std::function<bool(const std::shared_ptr<void>&, size_t, ge::AscendString&)>;
using OpBankLoadFunV2 = std::function<bool(std::shared_ptr<void>&, size_t&, const ge::AscendString&)>;

class OpBankKeyFuncInfo {
 public:
  OpBankKeyFuncInfo() = default;
  explicit OpBankKeyFuncInfo(const ge::AscendString& optype) : optype_(optype) {}
  void SetOpConvertFunc(const OpBankKeyConvertFun& convert_func) { convert_func_ = convert_func; }
  void SetOpParseFunc(const OpBankParseFun& parse_func) { parse_func_ = parse_func; }
  void SetOpLoadFunc(const OpBankLoadFun& load_func) { load_func_ = load_func; }
  const OpBankKeyConvertFun& GetBankKeyConvertFunc() const { return convert_func_; }
  const OpBankParseFun& GetBankKeyParseFunc() const { return parse_func_; }
  const OpBankLoadFun& GetBankKeyLoadFunc() const { return load_func_; }
  const ge::AscendString& GetOpType() const { return optype_; }

 private:
  ge::AscendString optype_;
  OpBankKeyConvertFun convert_func_;
  OpBankParseFun parse_func_;
  OpBankLoadFun load_func_;
};

class OpBankKeyFuncInfoV2 {
 public:
  OpBankKeyFuncInfoV2() = default;
  explicit OpBankKeyFuncInfoV2(const ge::AscendString& optype) : optype_(optype) {}
  void SetOpConvertFuncV2(const OpBankKeyConvertFunV2& convert_func) { convert_func_ = convert_func; }
  void SetOpParseFuncV2(const OpBankParseFunV2& parse_func) { parse_func_ = parse_func; }
  void SetOpLoadFuncV2(const OpBankLoadFunV2& load_func) { load_func_ = load_func; }
  const OpBankKeyConvertFunV2& GetBankKeyConvertFuncV2() const { return convert_func_; }
  const OpBankParseFunV2& GetBankKeyParseFuncV2() const { return parse_func_; }
  const OpBankLoadFunV2& GetBankKeyLoadFuncV2() const { return load_func_; }
  const ge::AscendString& GetOpTypeV2() const { return optype_; }

 private:
  ge::AscendString optype_;
  OpBankKeyConvertFunV2 convert_func_;
  OpBankParseFunV2 parse_func_;
  OpBankLoadFunV2 load_func_;
};

class OpBankKeyFuncRegistry {
 public:
  OpBankKeyFuncRegistry(const ge::AscendString& optype, const OpBankKeyConvertFun& convert_func) {
    entry(optype).SetOpConvertFunc(convert_func);
  }
  OpBankKeyFuncRegistry(const ge::AscendString& optype, const OpBankParseFun& parse_func, const OpBankLoadFun& load_func) {
    auto& e = entry(optype);
    e.SetOpParseFunc(parse_func);
    e.SetOpLoadFunc(load_func);
  }
  static std::unordered_map<ge::AscendString, OpBankKeyFuncInfo>& RegisteredOpFuncInfo() {
    static std::unordered_map<ge::AscendString, OpBankKeyFuncInfo> info;
    return info;
  }

 private:
  static OpBankKeyFuncInfo& entry(const ge::AscendString& optype) {
    return RegisteredOpFuncInfo().try_emplace(optype, optype).first->second;
  }
};

class OpBankKeyFuncRegistryV2 {
 public:
  OpBankKeyFuncRegistryV2(const ge::AscendString& optype, const OpBankKeyConvertFunV2& convert_func) {
    entry(optype).SetOpConvertFuncV2(convert_func);
  }
  OpBankKeyFuncRegistryV2(const ge::AscendString& optype, const OpBankParseFunV2& parse_func,
                          const OpBankLoadFunV2& load_func) {
    auto& e = entry(optype);
    e.SetOpParseFuncV2(parse_func);
    e.SetOpLoadFuncV2(load_func);
  }
  static std::unordered_map<ge::AscendString, OpBankKeyFuncInfoV2>& RegisteredOpFuncInfoV2() {
    static std::unordered_map<ge::AscendString, OpBankKeyFuncInfoV2> info;
    return info;
  }

 private:
  static OpBankKeyFuncInfoV2& entry(const ge::AscendString& optype) {
    return RegisteredOpFuncInfoV2().try_emplace(optype, optype).first->second;
  }
};

}  // namespace tuningtiling

#define REGISTER_OP_BANK_KEY_CONVERT_FUN(optype, opfunc) \
  static ::tuningtiling::OpBankKeyFuncRegistry g_##optype##BankKeyRegistryInterf(#optype, (opfunc))
#define REGISTER_OP_BANK_KEY_PARSE_FUN(optype, parse_func, load_func) \
  static ::tuningtiling::OpBankKeyFuncRegistry g_##optype##BankParseInterf(#optype, (parse_func), (load_func))
#define REGISTER_OP_BANK_KEY_CONVERT_FUN_V2(optype, opfunc) \
  static ::tuningtiling::OpBankKeyFuncRegistryV2 g_##optype##BankKeyRegistryInterfV2(#optype, (opfunc))
#define REGISTER_OP_BANK_KEY_PARSE_FUN_V2(optype, parse_func, load_func) \
  static ::tuningtiling::OpBankKeyFuncRegistryV2 g_##optype##BankParseInterfV2(#optype, (parse_func), (load_func))

// A key struct's JSON form: an object of the listed members. Members are copied by value, as the
// key structs are packed (#pragma pack(1)) and a reference cannot bind to their members; a member
// missing from the object throws nlohmann::json::out_of_range (the load functions return false).
#define AOPT_TUNING_KEY_TO_JSON(member) \
  aopt_json_[#member] = static_cast<std::decay_t<decltype(aopt_key_.member)>>(aopt_key_.member);
#define AOPT_TUNING_KEY_FROM_JSON(member) \
  aopt_key_.member = aopt_json_.at(#member).get<std::decay_t<decltype(aopt_key_.member)>>();
#define AOPT_TUNING_KEY_JSON(bank_key, ...)                                                 \
  inline void to_json(nlohmann::json& aopt_json_, const bank_key& aopt_key_) {              \
    NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(AOPT_TUNING_KEY_TO_JSON, __VA_ARGS__))         \
  }                                                                                         \
  inline void from_json(const nlohmann::json& aopt_json_, bank_key& aopt_key_) {            \
    NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(AOPT_TUNING_KEY_FROM_JSON, __VA_ARGS__))       \
  }

// The key struct's JSON form and the type's parse/load functions (V1: nlohmann::json values).
#define DECLARE_STRUCT_RELATE_WITH_OP(op, bank_key, ...)                                                         \
  AOPT_TUNING_KEY_JSON(bank_key, __VA_ARGS__)                                                                    \
  static bool ParseFunc##op##bank_key(const std::shared_ptr<void>& in_args, size_t len, nlohmann::json& out) {   \
    if (in_args == nullptr || len != sizeof(bank_key)) return false;                                             \
    out = *std::static_pointer_cast<bank_key>(in_args);                                                          \
    return true;                                                                                                 \
  }                                                                                                              \
  static bool LoadFunc##op##bank_key(std::shared_ptr<void>& in_args, size_t& len, const nlohmann::json& in) {    \
    try {                                                                                                        \
      auto key = std::make_shared<bank_key>(in.get<bank_key>());                                                 \
      in_args = key;                                                                                             \
      len = sizeof(bank_key);                                                                                    \
      return true;                                                                                               \
    } catch (const std::exception&) {                                                                            \
      return false;                                                                                              \
    }                                                                                                            \
  }                                                                                                              \
  REGISTER_OP_BANK_KEY_PARSE_FUN(op, ParseFunc##op##bank_key, LoadFunc##op##bank_key)

// V2: the parse function gives the key's JSON text, the load function reads one.
#define DECLARE_STRUCT_RELATE_WITH_OP_V2(op, bank_key, ...)                                                      \
  AOPT_TUNING_KEY_JSON(bank_key, __VA_ARGS__)                                                                    \
  static bool ParseFuncV2##op##bank_key(const std::shared_ptr<void>& in_args, size_t len,                        \
                                        ge::AscendString& out) {                                                 \
    if (in_args == nullptr || len != sizeof(bank_key)) return false;                                             \
    try {                                                                                                        \
      const nlohmann::json j = *std::static_pointer_cast<bank_key>(in_args);                                     \
      const std::string text = j.dump();                                                                         \
      out = ge::AscendString(text.c_str(), text.size());                                                         \
      return true;                                                                                               \
    } catch (const std::exception&) {                                                                            \
      return false;                                                                                              \
    }                                                                                                            \
  }                                                                                                              \
  static bool LoadFuncV2##op##bank_key(std::shared_ptr<void>& in_args, size_t& len, const ge::AscendString& in) { \
    try {                                                                                                        \
      auto key = std::make_shared<bank_key>(                                                                     \
          nlohmann::json::parse(std::string(in.GetString(), in.GetLength())).get<bank_key>());                   \
      in_args = key;                                                                                             \
      len = sizeof(bank_key);                                                                                    \
      return true;                                                                                               \
    } catch (const std::exception&) {                                                                            \
      return false;                                                                                              \
    }                                                                                                            \
  }                                                                                                              \
  REGISTER_OP_BANK_KEY_PARSE_FUN_V2(op, ParseFuncV2##op##bank_key, LoadFuncV2##op##bank_key)
